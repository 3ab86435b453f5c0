// A gateway in a child process (the real `dist/src/main.js`), for tests that must kill one with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { projectRoot } from '../../src/config/load-config.js';
import { openStore } from '../../src/store/open-store.js';
import { startSimulator } from '../../simulator/server.js';

export interface ChildGateway { url: string; proc: ChildProcess; output(): string; kill(): Promise<void>; stop(): Promise<number | null> }

/**
 * The shipped config with quick task polls (the shipped values suit production) and other settings changed:
 * `other` in channels.yaml, `routes` in routes.yaml, each a [path, value] pair.
 */
export function quickTaskConfig(tasks: Record<string, number> = {}, other: [string[], unknown][] = [], routes: [(string | number)[], unknown][] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-child-'));
  const edit = (file: string, changes: [(string | number)[], unknown][]) => {
    const doc = parseDocument(readFileSync(join(projectRoot, file), 'utf8'));
    for (const [path, v] of changes) doc.setIn(path, v);
    writeFileSync(join(dir, file), String(doc));
  };
  const polls = Object.entries({ poll_interval_ms: 50, poll_base_ms: 50, poll_max_ms: 200, refresh_after_ms: 0, ...tasks });
  edit('channels.yaml', [...polls.map(([k, v]): [string[], unknown] => [['tasks', k], v]), ...other]);
  edit('routes.yaml', routes);
  return dir;
}

/** A store that is not a SQLite file would put its request log in the checkout's data/: a temporary one instead. */
export function tempLogFor(storeUri: string): Record<string, string> {
  if (storeUri.startsWith('sqlite://') || process.env.SWITCHYARD_LOG_STORE) return {};
  return { SWITCHYARD_LOG_STORE: `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-log-')), 'log.sqlite')}` };
}

export async function spawnGateway(env: Record<string, string>): Promise<ChildGateway> {
  const workers = Math.max(1, Number(env.SWITCHYARD_WORKERS ?? 1) || 1);
  const proc = spawn(process.execPath, [join(projectRoot, 'dist/src/main.js')], {
    env: { ...process.env, PORT: '0', SWITCHYARD_WATCH_CONFIG: '0', LOG_LEVEL: 'warn', ...tempLogFor(env.SWITCHYARD_STORE ?? 'sqlite://'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => { out += d; });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`gateway did not start: ${err}`)), 45_000);
    proc.stderr!.on('data', (d) => {
      err += d;
      // With workers, every one of them has started (and run its startup, the token upgrade among it) before the test goes on.
      const ms = [...err.matchAll(/switchyard on (https?:\/\/\S+)/g)];
      if (ms.length >= workers) { clearTimeout(timer); resolve(ms[0][1]); }
    });
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`gateway exited (${code}): ${err}`)); });
  });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return {
    url, proc,
    output: () => out,
    async kill() { proc.kill('SIGKILL'); await exited; },
    async stop() { proc.kill('SIGTERM'); return exited; },
  };
}

/**
 * What a child gateway runs against: a simulator and a SQLite store of its own (the test's handle on it writes
 * through: no quota flush), both closed by the caller's cleanups.
 */
export async function simulatorAndStore(prefix: string, cleanups: (() => Promise<unknown>)[]) {
  const sim = await startSimulator({ port: 0, keys: ['sim-key'] });
  cleanups.push(() => sim.close());
  const storeUri = `sqlite://${join(mkdtempSync(join(tmpdir(), prefix)), 'store.sqlite')}`;
  const store = await openStore(storeUri, { quotaFlushMs: 0 });
  cleanups.push(() => store.close());
  return { sim, storeUri, store };
}
