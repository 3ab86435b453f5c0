// Debian's nginx, to check and run the load balancer's config (deploy/nginx.conf) without Docker: in a temporary prefix
// of its own, as whoever runs the tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { startServer, type ServerProcess } from './server-process.js';

/** The binary: on PATH, else in the sbin directories Debian installs it to, which are off a plain user's PATH. */
export function nginxPath(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':').filter(Boolean), '/usr/sbin', '/usr/local/sbin'];
  return dirs.map((d) => join(d, 'nginx')).find((p) => existsSync(p));
}

/**
 * The skip reason for a file's nginx tests (false when they can run). In CI (`CI` set) a missing nginx also registers
 * a failing test, so the run cannot pass without the load balancer's config having been checked.
 */
export function nginxSkip(what: string): string | false {
  if (nginxPath()) return false;
  const missing = 'nginx is not installed (apt-get install -y nginx)';
  if (process.env.CI) {
    test(`nginx is installed (${what} need it)`, () => assert.fail(missing));
    return `${missing}: failed above`;
  }
  return `${missing}; skipped outside CI`;
}

/**
 * A main config around `http` (a config that goes in nginx's http block, as the image's conf.d/ files do), with every
 * file nginx writes (pid, logs, temporary bodies) under `dir`.
 */
export function mainConfig(dir: string, http: string): string {
  const file = join(dir, 'nginx.conf');
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(dir, t)};`).join('\n');
  writeFileSync(file, `pid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')} warn;\nevents {}\nhttp {\n  access_log off;\n${temp}\n${http}\n}\n`);
  return file;
}

/** `nginx -T` on a main config: the exit status, and its report and dump of every file it read. */
export function nginxTest(dir: string, file: string): { status: number | null; output: string } {
  const r = spawnSync(nginxPath()!, ['-T', '-p', dir, '-c', file, '-e', join(dir, 'error.log')], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stderr}\n${r.stdout}` };
}

/**
 * nginx serving `http` on a port picked for it (`http(port)` writes the listen line), one process in the foreground;
 * another port when the first is taken meanwhile.
 */
export async function startNginx(dir: string, http: (port: number) => string): Promise<ServerProcess & { stop(): Promise<void> }> {
  mkdirSync(dir, { recursive: true });
  const server = await startServer(
    (port) => spawn(nginxPath()!, ['-p', dir, '-c', mainConfig(dir, http(port)), '-e', join(dir, 'error.log'), '-g', 'daemon off; master_process off;'],
      { stdio: 'ignore' }),
    (port) => new Promise((resolve) => {
      const s = connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    }),
  );
  return Object.assign(server, {
    stop: () => new Promise<void>((resolve) => {
      if (server.exited) return resolve();
      server.child.once('exit', () => resolve());
      server.child.kill('SIGKILL');
    }),
  });
}
