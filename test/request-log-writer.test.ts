// The request log's writer on its own, in front of a store that answers, fails, hangs or comes back: records are
// written in batches, wait in the spool on disk while the store is away (in order, across a restart), and a full
// spool drops what does not fit and says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestLog } from '../src/request-log/request-log.js';
import { Spool } from '../src/request-log/spool.js';
import type { LogQuery, LogStore, RequestRecord, Row } from '../src/request-log/log-store.js';
import { recordOfRow } from '../src/request-log/log-columns.js';

/** A store in memory whose answers the test chooses: ok, fail (rejects) or hang (never answers). */
class FakeStore implements LogStore {
  rows: RequestRecord[] = [];
  mode: 'ok' | 'fail' | 'hang' = 'ok';
  /** Called with each batch as it arrives. */
  onInsert?: (records: RequestRecord[]) => void;
  async insert(records: RequestRecord[]): Promise<void> {
    this.onInsert?.(records);
    if (this.mode === 'fail') throw new Error('database unavailable');
    if (this.mode === 'hang') return new Promise(() => undefined);
    for (const r of records) if (!this.rows.some((x) => x.id === r.id && x.kind === r.kind)) this.rows.push(r);
  }
  insertRows(rows: Row[]): Promise<void> { return this.insert(rows.map(recordOfRow)); }
  async search(_q: LogQuery): Promise<RequestRecord[]> { return []; }
  async get(id: string): Promise<RequestRecord[]> { return this.rows.filter((r) => r.id === id); }
  async prune(): Promise<number> { return 0; }
  async close(): Promise<void> {}
}

const record = (i: number): RequestRecord => ({ id: `req_${String(i).padStart(5, '0')}`, kind: 'request', at: 1_800_000_000_000 + i, status: 200 });
const dir = () => mkdtempSync(join(tmpdir(), 'switchyard-spool-'));
const writer = (store: LogStore, spool: Spool, errors: string[] = []) =>
  new RequestLog(store, spool, { flushMs: 60_000, insertTimeoutMs: 100, batchSize: 50, onError: (m) => errors.push(m) });

test('records are written in batches of at most batchSize, nothing on the request path waits', async () => {
  const store = new FakeStore();
  const log = writer(store, new Spool(dir(), 1 << 20));
  for (let i = 0; i < 120; i++) log.add(record(i));
  assert.equal(store.rows.length, 0, 'add only buffers');
  await log.flush();
  assert.equal(store.rows.length, 120);
  assert.equal(log.written, 120);
});

test('a batch\'s worth is written at the next turn of the event loop, not at the next flush period', { timeout: 5000 }, async () => {
  const store = new FakeStore();
  const first = new Promise<RequestRecord[]>((resolve) => { store.onInsert = resolve; });
  const log = writer(store, new Spool(dir(), 1 << 20)); // flushMs is a minute and never started: only the size flushes
  for (let i = 0; i < 49; i++) log.add(record(i));
  await new Promise(setImmediate);
  assert.equal(store.rows.length, 0, 'less than a batch waits for the period');
  log.add(record(49));
  assert.equal(store.rows.length, 0, 'add only buffers');
  assert.deepEqual((await first).map((r) => r.id), Array.from({ length: 50 }, (_, i) => record(i).id));
});

test('no pass chases the rows that come in meanwhile: full batches, then what a flush finds left, once', { timeout: 5000 }, async () => {
  const store = new FakeStore();
  const log = writer(store, new Spool(dir(), 1 << 20)); // batches of 50
  let next = 0;
  const add = (n: number) => { for (let i = 0; i < n; i++) log.add(record(next++)); };
  store.onInsert = () => { add(10); }; // requests that finish while a batch is written, forever
  add(70);
  await log.flush();
  assert.equal(store.rows.length, 80, 'a batch of 50, then the 30 left (the 20 and 10 come meanwhile), and not the 10 after');
  await log.flush();
  assert.equal(store.rows.length, 90, 'the 10 left at the next flush');
  store.onInsert = undefined;
  add(60);
  await new Promise(setImmediate); // a full batch waits: written at the next turn, the rest left for the period
  await log.flush(); // (joins that pass if it is still writing, else writes the 20 left)
  assert.equal(store.rows.length, 160);
  assert.equal(log.written, 160);
});

test('a batch\'s worth starts a pass that writes full batches only, leaving the rest for the period', { timeout: 5000 }, async () => {
  const store = new FakeStore();
  const written = new Promise<RequestRecord[]>((resolve) => { store.onInsert = resolve; });
  const log = writer(store, new Spool(dir(), 1 << 20));
  for (let i = 0; i < 60; i++) log.add(record(i));
  assert.equal((await written).length, 50);
  await new Promise(setImmediate);
  assert.equal(store.rows.length, 50, 'the 10 left wait for a flush');
});

test('a failing store: records wait in the spool, in order, and reach the store once it is back', async () => {
  const store = new FakeStore();
  const spoolDir = dir();
  const errors: string[] = [];
  const log = writer(store, new Spool(spoolDir, 1 << 20), errors);
  store.mode = 'fail';
  for (let i = 0; i < 30; i++) log.add(record(i));
  await log.flush();
  for (let i = 30; i < 60; i++) log.add(record(i));
  await log.flush(); // within the backoff: spooled behind the first batch, the store not even asked
  assert.equal(store.rows.length, 0);
  assert.equal(readdirSync(spoolDir).length, 2);
  assert.match(errors[0], /request log store failed; records wait in the spool/);
  store.mode = 'ok';
  (log as unknown as { retryAt: number }).retryAt = 0; // the backoff has passed
  await log.flush();
  assert.deepEqual(store.rows.map((r) => r.id), Array.from({ length: 60 }, (_, i) => record(i).id));
  assert.equal(readdirSync(spoolDir).length, 0, 'the spool is empty again');
});

test('a store that does not answer is given up on after insertTimeoutMs; the batch is spooled', async () => {
  const store = new FakeStore();
  const spool = new Spool(dir(), 1 << 20);
  const log = writer(store, spool);
  store.mode = 'hang';
  log.add(record(1));
  const t0 = Date.now();
  await log.flush();
  assert.ok(Date.now() - t0 < 2000);
  assert.equal(spool.batches, 1);
});

test('the spool survives a restart: a new writer on the same directory drains it', async () => {
  const spoolDir = dir();
  const down = new FakeStore();
  down.mode = 'fail';
  const first = writer(down, new Spool(spoolDir, 1 << 20));
  for (let i = 0; i < 10; i++) first.add(record(i));
  await first.flush();
  // The process dies here (nothing else is flushed); the next start finds the batch on disk.
  const store = new FakeStore();
  const second = writer(store, new Spool(spoolDir, 1 << 20));
  await second.flush();
  assert.equal(store.rows.length, 10);
  assert.equal(readdirSync(spoolDir).length, 0);
});

test('a full spool drops what does not fit, counts it and says so; what fits is kept', async () => {
  const store = new FakeStore();
  store.mode = 'fail';
  const errors: string[] = [];
  const spool = new Spool(dir(), 4000);
  const log = writer(store, spool, errors);
  for (let i = 0; i < 200; i++) log.add(record(i));
  await log.flush();
  assert.ok(spool.bytes <= 4000);
  assert.ok(spool.dropped > 0);
  assert.ok(errors.some((e) => /spool is full .* records dropped/.test(e)), errors.join('\n'));
  store.mode = 'ok';
  (log as unknown as { retryAt: number }).retryAt = 0;
  await log.flush();
  assert.equal(store.rows.length + spool.dropped, 200, 'every record written or counted as dropped');
});

test('close writes what it can within its deadline and leaves the rest in the spool', async () => {
  const store = new FakeStore();
  const spool = new Spool(dir(), 1 << 20);
  const log = writer(store, spool);
  store.mode = 'hang';
  log.add(record(1));
  const t0 = Date.now();
  await log.close(300);
  assert.ok(Date.now() - t0 < 1500);
  assert.equal(spool.batches, 1, 'the record waits for the next start');
});
