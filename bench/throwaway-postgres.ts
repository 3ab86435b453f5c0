// A throwaway PostgreSQL server for the request log's tests and bench (test/helpers/postgres.ts, bench/scenarios/
// request-log.ts): a fresh cluster in a temp dir, trust auth, listening on 127.0.0.1 (and a socket in the dir), gone
// with the dir when stopped. PostgreSQL refuses to run as root, so as root (CI) it runs as the `postgres` user.
import { spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import pg from 'pg';

/** `pid`: the server's main process (its connections' processes are its children). */
export interface ThrowawayPostgres { uri: string; port: number; pid: number; stop(): Promise<void> }

const tools = ['initdb', 'pg_ctl', 'postgres'];
const hasTools = (dir: string) => tools.every((t) => existsSync(join(dir, t)));

/**
 * The directory holding initdb, pg_ctl and postgres: where PATH's initdb really is (Debian's /usr/bin wrappers are
 * links elsewhere or missing), else the newest /usr/lib/postgresql/<version>/bin (Debian keeps them off PATH).
 */
export function postgresBinDir(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const initdb = join(dir, 'initdb');
    if (dir && existsSync(initdb) && hasTools(dirname(realpathSync(initdb)))) return dirname(realpathSync(initdb));
  }
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((v) => join(debian, v, 'bin')).find(hasTools);
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL tool, as the `postgres` user when this process is root. */
function run(bin: string, tool: string, args: string[]): { ok: boolean; out: string } {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 60_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}` };
}

/** A temp dir the server's user owns (the cluster's data dir goes inside). */
function ownDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-pg-'));
  if (asRoot) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout);
    chownSync(dir, id('-u'), id('-g'));
  }
  return dir;
}

/** Starts a server on a port `port()` picks (another, up to 5 times, when that one was taken), with a `switchyard` database. */
export async function startThrowawayPostgres(port: () => Promise<number>): Promise<ThrowawayPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)');
  const dir = ownDir();
  const data = join(dir, 'data');
  const stop = () => {
    run(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    rmSync(dir, { recursive: true, force: true });
    process.off('exit', stop);
  };
  process.on('exit', stop); // a test that dies leaves no server behind
  try {
    const init = run(bin, 'initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
    if (!init.ok) throw new Error(`initdb failed: ${init.out}`);
    // Durability off: the data dies with the test anyway, and every commit would wait for a disk flush.
    appendFileSync(join(data, 'postgresql.conf'), `listen_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\n`
      + 'fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n');
    const listening = await startOnSomePort(bin, data, dir, port);
    const admin = new pg.Client({ host: '127.0.0.1', port: listening, user: 'postgres', database: 'postgres' });
    await admin.connect();
    await admin.query('CREATE DATABASE switchyard').finally(() => admin.end());
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return { uri: `postgres://postgres@127.0.0.1:${listening}/switchyard`, port: listening, pid, stop: async () => stop() };
  } catch (err) {
    stop();
    throw err;
  }
}

async function startOnSomePort(bin: string, data: string, dir: string, port: () => Promise<number>): Promise<number> {
  const log = join(dir, 'server.log');
  for (let attempt = 1; ; attempt++) {
    const p = await port();
    const started = run(bin, 'pg_ctl', ['-D', data, '-l', log, '-o', `-p ${p}`, '-w', '-t', '20', 'start']);
    if (started.ok) return p;
    const why = existsSync(log) ? readFileSync(log, 'utf8') : started.out;
    if (attempt === 5 || !/could not (bind|create listen)|already in use/i.test(why)) throw new Error(`PostgreSQL did not start: ${why.slice(-2000)}`);
  }
}
