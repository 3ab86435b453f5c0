// A server another process runs (redis-server) on ports picked for it, started again on other ports when it exits at
// start because one of them was taken in the meantime.
import type { ChildProcess } from 'node:child_process';
import { serverPort } from './ports.js';

/** The running server: `exited` turns true when the process ends. */
export interface ServerProcess { port: number; child: ChildProcess; exited: boolean }

/**
 * Spawns with `spawnOn(port, more)` (`more`: `extraPorts` further ports, e.g. a cluster bus) until `answers(port, pid)`:
 * given the child's pid, the check can tell the child's answer from another server's that took the port meanwhile.
 * Throws when one start is silent for 5 s, or when 5 starts in a row exit.
 */
export async function startServer(spawnOn: (port: number, more: number[]) => ChildProcess, answers: (port: number, pid: number) => Promise<boolean>, extraPorts = 0): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await serverPort();
    const more: number[] = [];
    for (let i = 0; i < extraPorts; i++) more.push(await serverPort());
    const server: ServerProcess = { port, child: spawnOn(port, more), exited: false };
    server.child.once('exit', () => { server.exited = true; });
    const until = Date.now() + 5000;
    while (!server.exited && !(await answers(port, server.child.pid!).catch(() => false))) {
      if (Date.now() > until) {
        server.child.kill('SIGKILL');
        throw new Error(`server did not answer on port ${port} within 5 s`);
      }
      await new Promise((r) => setTimeout(r, 30));
    }
    if (!server.exited) return server;
    if (attempt === 5) throw new Error(`server exited at start 5 times (last on ports ${[port, ...more].join(', ')})`);
  }
}
