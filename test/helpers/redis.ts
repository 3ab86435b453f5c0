// Starts a throwaway redis-server on a free loopback port for a test file, and stops it afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { startServer } from './server-process.js';

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

/**
 * Answers once the server on `port` is the process `pid` (INFO's process_id), so the first test never races its
 * startup, nor talks to another file's server that took the port before this one could.
 */
export async function isRedisProcess(port: number, pid: number): Promise<boolean> {
  return new Promise((resolve) => {
    let got = '';
    const s = connect(port, '127.0.0.1', () => s.write('INFO server\r\n'));
    s.on('data', (d) => {
      got += d;
      const id = /process_id:(\d+)/.exec(got);
      if (id || got.startsWith('-')) { s.destroy(); resolve(Number(id?.[1]) === pid); }
    });
    s.once('error', () => resolve(false));
  });
}

export async function startRedis(): Promise<RedisServer> {
  // No persistence: the data dies with the process, and nothing is written into the working directory.
  const server = await startServer((port) => spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  }), isRedisProcess);
  return {
    uri: `redis://127.0.0.1:${server.port}`,
    port: server.port,
    async stop() {
      if (server.exited) return;
      const gone = new Promise((r) => server.child.once('exit', r));
      server.child.kill('SIGTERM');
      await gone;
    },
  };
}
