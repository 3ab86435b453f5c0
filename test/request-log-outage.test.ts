// The request log on PostgreSQL through an outage and a crash: while the database does not answer, requests are served
// as usual and their records wait in the spool on disk; the gateway is killed (kill -9) with them there; the next
// gateway on the same spool writes them once the database is back, each exactly once. A gateway also starts while the
// database is down.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../simulator/server.js';
import { openStore, type Store } from '../src/store/open-store.js';
import { TokenStore } from '../src/store/token-store.js';
import { openLogStore } from '../src/request-log/open-log-store.js';
import type { LogStore } from '../src/request-log/log-store.js';
import { spawnGateway, type ChildGateway } from './helpers/child-gateway.js';
import { postgresSkip, startPostgres, type PostgresServer } from './helpers/postgres.js';

const skip = postgresSkip('the request log outage test');
let sim: Simulator;
let pg: PostgresServer | undefined;
let store: Store;
let log: LogStore;
const gateways: ChildGateway[] = [];

before(async () => {
  if (skip) return;
  sim = await startSimulator({ port: 0, keys: ['sim-key'] });
  pg = await startPostgres();
});
after(async () => {
  for (const g of gateways) await g.kill().catch(() => undefined);
  if (pg) signalServer(pg.pid, 'SIGCONT');
  await log?.close();
  await store?.close();
  await sim?.close();
  await pg?.stop();
});

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const took: number[] = [];
const chat = async (url: string, key: string, i: number) => {
  const t0 = performance.now();
  const r = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `outage ${i}` }] }),
  });
  assert.equal(r.status, 200, 'requests are served while the log database is away');
  took[i] = performance.now() - t0;
  return r.headers.get('x-request-id')!;
};

/**
 * Freezes or thaws the whole server: the postmaster and every backend (a frozen postmaster alone still lets the pool's
 * open connections work). A frozen server's connections hang rather than fail: the hardest case for the writer.
 */
function signalServer(pid: number, signal: 'SIGSTOP' | 'SIGCONT'): void {
  const children = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try { return readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1] === String(pid); } catch { return false; }
  });
  for (const p of [pid, ...children.map(Number)]) process.kill(p, signal);
}

/** The request ids the spool's files hold. */
const spooled = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.jsonl'))
  .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).id as string));

test('records wait in the spool through an outage and a kill -9, and reach PostgreSQL once it is back, each once', { skip, timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-outage-'));
  const storeUri = `sqlite://${join(dir, 'store.sqlite')}`;
  const spool = join(dir, 'spool');
  store = await openStore(storeUri, { quotaFlushMs: 0 });
  log = await openLogStore(pg!.uri);
  const { key } = await new TokenStore(store, 0).create({ group: 'default', quota: 1_000_000 });
  const env = { SWITCHYARD_STORE: storeUri, SWITCHYARD_SIM_URL: sim.url, SWITCHYARD_LOG_STORE: pg!.uri, SWITCHYARD_LOG_SPOOL_DIR: spool, SWITCHYARD_LOG_FLUSH_MS: '50' };
  const a = await spawnGateway(env);
  gateways.push(a);

  // The database answers: records arrive within a flush or two.
  const early: string[] = [];
  for (let i = 0; i < 10; i++) early.push(await chat(a.url, key, i));
  await until('the first records in PostgreSQL', async () => (await log.get(early.at(-1)!)).length === 1);

  // The database stops answering.
  signalServer(pg!.pid, 'SIGSTOP');
  const during: string[] = [];
  for (let i = 10; i < 40; i++) during.push(await chat(a.url, key, i));
  await until('every record of the outage in the spool', () => during.every((id) => spooled(spool).includes(id)));

  // A crash with the records on disk, and a restart while the database is still away.
  await a.kill();
  const b = await spawnGateway(env);
  gateways.push(b);
  const after = [await chat(b.url, key, 40)];
  signalServer(pg!.pid, 'SIGCONT');
  const thawed = Date.now();

  const all = [...early, ...during, ...after];
  await until('every record in PostgreSQL', async () => (await Promise.all(all.map((id) => log.get(id)))).every((r) => r.length >= 1), 60_000);
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1].toFixed(1);
  console.log(`request log outage: a request took ${median(took.slice(1, 10))} ms (median) with the database up, ${median(took.slice(10, 40))} ms while it was ` +
    `frozen; ${during.length} records spooled, a kill -9, a restart; all ${all.length} in PostgreSQL ${Date.now() - thawed} ms after it thawed`);
  const counts = await Promise.all(all.map(async (id) => (await log.get(id)).length));
  assert.deepEqual(counts, all.map(() => 1), 'each record once, though a batch timed out and was written again');
  await until('the spool drained', () => spooled(spool).length === 0);
  await b.stop();
});
