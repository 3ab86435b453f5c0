// The demo the docs are written against, as a reader runs it: `node dist/src/main.js --with-simulator` (what
// `npm start` runs after its build) in a child process, on free ports instead of 3000 and 4010, with a store of its own
// in a temp dir and the admin key set (the admin and request-log pages need it).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/load-config.js';
import { freePort } from './ports.js';

export interface Demo {
  port: number;
  simPort: number;
  /** What every page's session gets: the store the CLI shares with the gateway, the admin key, the simulator's URL. */
  env: Record<string, string>;
  dir: string;
  log: string;
  stop(): Promise<void>;
}

export async function startDemo(): Promise<Demo> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-docs-'));
  const [port, simPort] = [await freePort(), await freePort()];
  const env = {
    SWITCHYARD_STORE: `sqlite://${join(dir, 'data', 'switchyard.sqlite')}`,
    SWITCHYARD_ADMIN_KEY: randomBytes(32).toString('hex'),
    SWITCHYARD_SIM_URL: `http://127.0.0.1:${simPort}`,
  };
  const log = join(dir, 'gateway.log');
  const out = openSync(log, 'a');
  const child = spawn(process.execPath, [join(projectRoot, 'dist/src/main.js'), '--with-simulator'], {
    cwd: projectRoot,
    env: { ...process.env, ...env, PORT: String(port), SIM_PORT: String(simPort), SWITCHYARD_WATCH_CONFIG: '0' },
    stdio: ['ignore', out, 'pipe'],
  });
  await announced(child, /switchyard on http/);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    port, simPort, env, dir, log,
    async stop() { child.kill('SIGTERM'); await exited; rmSync(dir, { recursive: true, force: true }); },
  };
}

/** Resolves once the child's stderr says it listens; rejects when it exits first or stays silent for 20 s. */
function announced(child: ChildProcess, line: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the demo did not start: ${err}`)), 20_000);
    child.stderr!.on('data', (d) => {
      err += d;
      if (line.test(err)) { clearTimeout(timer); resolve(); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the demo exited (${code}): ${err}`)); });
  });
}
