// Starts, pins and stops the simulator and gateway child processes; every child is killed when the bench exits.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBenchConfig } from './bench-config.js';

export const GATEWAY_CPU = 0;
export const CLIENT_CPU = 1; // the simulator and the load generator (this process) share the other core

export interface Child { name: string; pid: number; proc: ChildProcess; tail(): string; stopping: boolean }

const live = new Set<ChildProcess>();

// A synchronous last resort: 'exit' handlers cannot await, so anything still alive gets SIGKILL here.
process.on('exit', () => {
  for (const p of live) if (p.exitCode === null && p.signalCode === null) try { p.kill('SIGKILL'); } catch { /* already gone */ }
});

/** taskset works only with util-linux present and at least two CPUs this process may use. */
export function canPin(): boolean {
  const r = spawnSync('taskset', ['-c', String(CLIENT_CPU), 'true'], { stdio: 'ignore' });
  return r.status === 0;
}

/** Pins every thread of this process (-a: V8's and libuv's threads already exist) to the client core. */
export function pinSelf(cpu: number): boolean {
  return spawnSync('taskset', ['-a', '-pc', String(cpu), String(process.pid)], { stdio: 'ignore' }).status === 0;
}

/** A free loopback port; the tiny race with another process taking it is acceptable for a benchmark. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Spawns `node <args>` (under taskset when pinning); output is drained into a small tail kept for error reports. */
export function startNode(name: string, nodeArgs: string[], env: NodeJS.ProcessEnv, cpu: number | string | undefined, cwd: string,
  onCrash?: (why: string) => void, echo = false): Child {
  const cmd = cpu === undefined ? process.execPath : 'taskset';
  const args = cpu === undefined ? nodeArgs : ['-c', String(cpu), process.execPath, ...nodeArgs];
  // taskset execs node, so the pid is node's own and /proc/<pid> reads the right process.
  const proc = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  let tail = '';
  const keep = (b: Buffer) => { tail = (tail + b.toString('utf8')).slice(-4000); if (echo) process.stderr.write(`[${name}] ${b}`); };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  if (proc.pid === undefined) throw new Error(`${name}: could not spawn ${cmd}`);
  const child: Child = { name, pid: proc.pid, proc, tail: () => tail, stopping: false };
  // A child that dies mid-run would turn every later figure into connection errors: say so at once, with its last words.
  proc.once('exit', (code, signal) => {
    if (!child.stopping) onCrash?.(`${name} (pid ${child.pid}) exited unexpectedly (${signal ? `signal ${signal}` : `code ${code}`}); its last output:\n${tail.trim() || '(none)'}`);
  });
  return child;
}

/** Resolves once the URL answers any HTTP status; rejects when the child exits first or the time is up. */
export async function waitForHttp(child: Child, url: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (let i = 0; i < 1000 && Date.now() < until; i++) {
    if (child.proc.exitCode !== null) throw new Error(`${child.name} exited with ${child.proc.exitCode}:\n${child.tail()}`);
    if (await answers(url)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.name} did not answer ${url} within ${timeoutMs} ms:\n${child.tail()}`);
}

function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', timeout: 1000 }, (res) => { res.resume(); resolve(true); });
    req.once('error', () => resolve(false));
    req.once('timeout', () => { req.destroy(); resolve(false); });
    req.end();
  });
}

/** SIGTERM for a clean exit (so --cpu-prof can write its profile), SIGKILL if it does not go in time. */
export async function stopChild(child: Child, graceMs = 5000): Promise<void> {
  const p = child.proc;
  child.stopping = true;
  if (p.exitCode !== null || p.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => p.once('exit', () => resolve()));
  p.kill('SIGTERM');
  const timer = setTimeout(() => p.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
}

/** Runs the CLI to completion with a time bound; returns stdout. */
function runCli(root: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [join(root, 'dist/src/cli.js'), ...args], { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(proc);
    let out = '';
    let err = '';
    proc.stdout.on('data', (b: Buffer) => { out += b; });
    proc.stderr.on('data', (b: Buffer) => { err += b; });
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      live.delete(proc);
      if (code === 0) resolve(out);
      else reject(new Error(`switchyard ${args.join(' ')} exited with ${code}: ${err.trim() || out.trim()}`));
    });
  });
}

export interface RigOptions { root: string; pin: boolean; profileDir?: string; logLevel: string; verbose: boolean; onCrash(why: string): void }
export interface Rig {
  sim: Child; gateway: Child; gatewayUrl: string; directUrl: string; gatewayKey: string; directKey: string;
  /** A token of a user in a team with a monthly budget and a member cap (issue 39: within 5 µs of the lone token's CPU). */
  teamKey: string;
  /** The bare node:http pass-through (bare-proxy.ts), pinned to the gateway's core: the speed targets' baseline. */
  bare: Child; bareUrl: string;
  tmp: string; logFile: string; stop(): Promise<void>;
  /** Another gateway on the same store and config (own port and log file), unpinned; stopped with the rig or by the caller. */
  /** `pinned`: on the gateway's core like the main gateway (the caller loads one process there at a time). */
  extraGateway(name: string, env: NodeJS.ProcessEnv, pinned?: boolean): Promise<{ url: string; child: Child; stop(): Promise<void> }>;
  /**
   * The bare WebSocket relay (bare-ws-relay.ts) to the simulator's Realtime socket, on the gateway's core: started on
   * the first call (only the realtime scenario needs it), then the same one; stopped with the rig.
   */
  bareWs(): Promise<{ url: string; child: Child }>;
  /** Its pid once started, so the per-core accounting counts it among the rig's processes. */
  bareWsPid(): number | undefined;
}

/**
 * Simulator, bench config, store with one big-quota token, the gateway, then the bare pass-through: each step waits
 * for the one before. The gateway and the bare proxy share GATEWAY_CPU; the scenarios load one of them at a time.
 */
export async function startRig(o: RigOptions): Promise<Rig> {
  const tmp = mkdtempSync(join(tmpdir(), 'switchyard-bench-'));
  const started: Child[] = [];
  const stop = async () => {
    for (const c of [...started].reverse()) await stopChild(c);
  };
  try {
    const simPort = await freePort();
    const directUrl = `http://127.0.0.1:${simPort}`;
    const simEnv = { ...process.env, PORT: String(simPort), SIM_KEYS: 'sim-key' };
    const sim = startNode('simulator', ['dist/simulator/main.js'], simEnv, o.pin ? CLIENT_CPU : undefined, o.root, o.onCrash, o.verbose);
    started.push(sim);
    await waitForHttp(sim, `${directUrl}/_sim/health`);

    const configDir = join(tmp, 'config');
    writeBenchConfig(o.root, configDir);
    const logFile = join(tmp, 'gateway.log');
    const gwPort = await freePort();
    const gwEnv: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(gwPort), HOST: '127.0.0.1',
      SWITCHYARD_SIM_URL: directUrl, SIM_KEY: 'sim-key',
      SWITCHYARD_STORE: `sqlite://${join(tmp, 'store.sqlite')}`,
      SWITCHYARD_CONFIG_DIR: configDir,
      // Logging stays on at info, as in production; only its destination moves off the terminal.
      SWITCHYARD_LOG_FILE: logFile, LOG_LEVEL: o.logLevel,
    };
    delete gwEnv.OPENAI_API_KEY; // never let a benchmark reach a real vendor: loopback only
    const out = await runCli(o.root, ['token', 'create', '--group', 'default', '--quota', '1000000000000', '--name', 'bench'], gwEnv);
    const gatewayKey = out.trim().split('\n').at(-1)!.trim();
    if (!gatewayKey.startsWith('sk-')) throw new Error(`token create printed no key:\n${out}`);
    const teamKey = await teamToken(o.root, gwEnv);

    // SWITCHYARD_BENCH_GATEWAY_FLAGS: node flags for the gateway only (e.g. --max-semi-space-size=32), to measure a runtime setting against the same bare run.
    const flags = process.env.SWITCHYARD_BENCH_GATEWAY_FLAGS?.split(' ').filter(Boolean) ?? [];
    const prof = [...(o.profileDir ? ['--cpu-prof', '--cpu-prof-dir', o.profileDir] : []), ...flags];
    const gateway = startNode('gateway', [...prof, 'dist/src/main.js'], gwEnv, o.pin ? GATEWAY_CPU : undefined, o.root, o.onCrash, o.verbose);
    started.push(gateway);
    const gatewayUrl = `http://127.0.0.1:${gwPort}`;
    await waitForHttp(gateway, `${gatewayUrl}/v1/models`);

    const barePort = await freePort();
    const bareEnv = { ...process.env, BARE_PORT: String(barePort), BARE_UPSTREAM: directUrl, BARE_KEY: 'sim-key' };
    const bare = startNode('bare proxy', ['dist/bench/bare-proxy.js'], bareEnv, o.pin ? GATEWAY_CPU : undefined, o.root, o.onCrash, o.verbose);
    started.push(bare);
    const bareUrl = `http://127.0.0.1:${barePort}`;
    await waitForHttp(bare, `${bareUrl}/_sim/health`); // forwarded blindly: the answer is the simulator's
    const extraGateway = async (name: string, env: NodeJS.ProcessEnv, pinned = false) => {
      const port = await freePort();
      // Children inherit this process's affinity (the client core), so "unpinned" must say every CPU explicitly.
      // Its own request log in the temp dir (a store that is not SQLite would put it in the checkout's data/).
      const logStore = { SWITCHYARD_LOG_STORE: `sqlite://${join(tmp, `${name}.log.sqlite`)}` };
      // SWITCHYARD_BENCH_MAIN: another build's main.js (a checkout of the previous commit), to compare builds in one rotation.
      const main = env.SWITCHYARD_BENCH_MAIN ?? 'dist/src/main.js';
      const child = startNode(name, [main], { ...gwEnv, ...logStore, ...env, PORT: String(port), SWITCHYARD_LOG_FILE: join(tmp, `${name}.log`) },
        o.pin ? (pinned ? GATEWAY_CPU : `0-${cpus().length - 1}`) : undefined, o.root, o.onCrash, o.verbose);
      started.push(child);
      const url = `http://127.0.0.1:${port}`;
      await waitForHttp(child, `${url}/v1/models`);
      return { url, child, stop: () => stopChild(child) };
    };
    let bareWs: Promise<{ url: string; child: Child }> | undefined;
    let bareWsChild: Child | undefined;
    const startBareWs = async () => {
      const port = await freePort();
      const env = { ...process.env, BARE_WS_PORT: String(port), BARE_WS_UPSTREAM: directUrl.replace(/^http/, 'ws'), BARE_KEY: 'sim-key' };
      const child = startNode('bare ws relay', ['dist/bench/bare-ws-relay.js'], env, o.pin ? GATEWAY_CPU : undefined, o.root, o.onCrash, o.verbose);
      started.push(child);
      bareWsChild = child;
      const url = `http://127.0.0.1:${port}`;
      await waitForHttp(child, url); // plain HTTP is answered 426: it listens
      return { url, child };
    };
    return {
      sim, gateway, gatewayUrl, directUrl, gatewayKey, teamKey, directKey: 'sim-key', bare, bareUrl, tmp, logFile, stop, extraGateway,
      bareWs: () => (bareWs ??= startBareWs()), bareWsPid: () => bareWsChild?.pid,
    };
  } catch (err) {
    await stop();
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** The CLI's last line (an id or a key), as scripts take it. */
const lastLine = (out: string) => out.trim().split('\n').at(-1)!.trim();

/** A user in a team (budget and member cap far above what a run spends) and a token of that user. */
async function teamToken(root: string, env: NodeJS.ProcessEnv): Promise<string> {
  const plenty = '1000000000000';
  const user = lastLine(await runCli(root, ['user', 'create', '--name', 'bench-member', '--quota', plenty], env));
  const team = lastLine(await runCli(root, ['team', 'create', '--name', 'bench-team', '--budget', plenty, '--member-cap', plenty, '--period', 'month'], env));
  await runCli(root, ['team', 'add', team, user], env);
  const key = lastLine(await runCli(root, ['token', 'create', '--user', user, '--name', 'bench-team'], env));
  if (!key.startsWith('sk-')) throw new Error('token create printed no key for the team token');
  return key;
}
