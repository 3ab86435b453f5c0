// Starts a throwaway redis-server on a free loopback port for a test file, and stops it afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { serverPort } from './ports.js';

export interface RedisServer { uri: string; port: number; stop(): Promise<void> }

/** Why the Redis tests cannot run here, or undefined when redis-server is installed. */
export function redisMissing(): string | undefined {
  const r = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? undefined : 'redis-server is not installed (apt-get install -y redis-server)';
}

/**
 * The skip reason for a file's Redis tests (false when they can run). In CI (`CI` set) a missing server also
 * registers a failing test, so the run cannot pass without the Redis store having been tested.
 */
export function redisSkip(what: string): string | false {
  const missing = redisMissing();
  if (!missing) return false;
  if (process.env.CI) {
    test(`redis-server is installed (${what} need it)`, () => assert.fail(missing));
    return `${missing}: failed above`;
  }
  return `${missing}; skipped outside CI`;
}

/** Answers once the server replies +PONG, so the first test never races its startup. */
async function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => s.write('PING\r\n'));
    s.once('data', (d) => { s.destroy(); resolve(String(d).startsWith('+PONG')); });
    s.once('error', () => resolve(false));
  });
}

export async function startRedis(): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await serverPort();
    // No persistence: the data dies with the process, and nothing is written into the working directory.
    const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const state = { exited: false };
    child.once('exit', () => { state.exited = true; });
    const until = Date.now() + 5000;
    while (!state.exited && !(await ping(port))) {
      if (Date.now() > until) { child.kill('SIGKILL'); throw new Error(`redis-server did not answer on port ${port} within 5 s`); }
      await new Promise((r) => setTimeout(r, 30));
    }
    // One that exited at start lost its port to another file's server in the meantime: start it on another.
    if (!state.exited) return running(port, child, state);
    if (attempt === 5) throw new Error(`redis-server exited at start 5 times (last on port ${port})`);
  }
}

function running(port: number, child: ChildProcess, state: { exited: boolean }): RedisServer {
  return {
    uri: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (state.exited) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
