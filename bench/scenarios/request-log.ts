// The request log's stores over a month of a busy gateway's records (bench/request-records.ts, a million requests):
// what writing costs a record in batches of 500, as the writer hands them over (rows, made at each request's end by
// finished-request.ts, not timed here), and how long each search the admin API makes takes, on SQLite (a temp file,
// in this process) and on PostgreSQL (a throwaway server, when installed).
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import type { LogQuery, LogStore, RequestRecord } from '../../src/request-log/log-store.js';
import { rowOf } from '../../src/request-log/log-columns.js';
import { SqliteLogStore } from '../../src/request-log/sqlite-log.js';
import { PostgresLogStore } from '../../src/request-log/postgres-log.js';
import { postgresBinDir, startThrowawayPostgres, type ThrowawayPostgres } from '../throwaway-postgres.js';
import { cpuSeconds } from '../proc-stats.js';
import { freePort } from '../processes.js';
import { days, monthEnd, monthOfRecords, tokens, models, channels } from '../request-records.js';
import type { BenchContext, Row, Scenario, Section } from '../scenario.js';
import { fmt, fmtInt, median } from '../stats.js';

const requests = 1_000_000;
const batch = 500;
/** "A few ms": PostgreSQL's planning over 31 day partitions alone takes about 1.5 of them. */
const targetMs = 10;
const day = 86_400_000;

interface Written { records: number; cpuUs: number; serverUs?: number; wallS: number }
interface Timed { ms: number; rows: number }
interface Measured { written: Written; mb: number; searches: Map<string, Timed>; prune: Timed & { blockMs: number } }

/** Writes the month, timing this process's CPU around each insert only (not the making of the records and rows). */
async function fill(log: LogStore, end: number, ctx: BenchContext, serverCpu?: () => number): Promise<Written> {
  let records = 0, cpu = 0;
  const server0 = serverCpu?.();
  const t0 = performance.now();
  for (const chunk of monthOfRecords(requests, end, batch)) {
    if (ctx.signal.aborted) throw new Error('aborted');
    const rows = chunk.map(rowOf);
    const c = process.cpuUsage();
    await log.insertRows(rows);
    const d = process.cpuUsage(c);
    cpu += d.user + d.system;
    records += chunk.length;
  }
  const serverUs = serverCpu ? ((serverCpu() - server0!) * 1e6) / records : undefined;
  return { records, cpuUs: cpu / records, serverUs, wallS: (performance.now() - t0) / 1000 };
}

/** The record `depth` records down the month, newest first: a deep page's cursor, found by paging as a client would. */
async function cursorAt(log: LogStore, q: LogQuery, depth: number): Promise<RequestRecord> {
  let seen = 0;
  let page = await log.search({ ...q, limit: 1000 });
  while (seen + page.length < depth) {
    seen += page.length;
    page = await log.search({ ...q, limit: 1000, before: page.at(-1) });
  }
  return page[depth - seen - 1];
}

/** Each search the admin API makes, by name (the same names in both stores' rows): a query, or a lookup by id. */
async function shapes(log: LogStore, end: number): Promise<[string, LogQuery | string][]> {
  const month = { from: end - days * day, to: end, limit: 50 };
  const hour = { from: end - 10 * day, to: end - 10 * day + 3_600_000, limit: 50 };
  const deep = await cursorAt(log, month, 100_000);
  const task = (await log.search({ ...month, kind: 'task', limit: 1 }))[0];
  return [
    ['30 days, no filter', month], ['one hour, no filter', hour],
    ['token (the busiest: 7 % of records)', { ...month, token: tokens[0] }], ['token (the least busy: 0.25 %)', { ...month, token: tokens[199] }],
    ['user', { ...month, user: 'user_7' }], ['model', { ...month, model: models[3] }], ['channel', { ...month, channel: channels[11] }],
    ['route', { ...month, route: 'messages' }], ['status 502', { ...month, status: 502 }], ['error_code', { ...month, error_code: 'upstream_timeout' }],
    ['kind topup', { ...month, kind: 'topup' }], ['busiest token + a status it never had', { ...month, token: tokens[0], status: 503 }],
    ['busiest token + kind topup', { ...month, token: tokens[0], kind: 'topup' }],
    ['id (a task: its submit and its end)', task.id],
    ['page after a cursor 100,000 records deep', { ...month, before: { at: deep.at, id: deep.id, kind: deep.kind } }],
    ['30 days, limit 1000', { ...month, limit: 1000 }],
    // What an index per filter is for: without one, a value the range lacks is a scan of the whole range.
    ['a model no record has', { ...month, model: 'no-such-model' }], ['a channel no record has, one day', { ...month, from: end - day, channel: 'no-such-channel' }],
  ];
}

async function timeSearch(log: LogStore, q: LogQuery | string): Promise<Timed> {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    rows = (await (typeof q === 'string' ? log.get(q) : log.search(q))).length;
    times.push(performance.now() - t);
  }
  return { ms: median(times), rows };
}

/** Drops the month's first day, with the longest the event loop was held meanwhile. */
async function timePrune(log: LogStore, end: number): Promise<Measured['prune']> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const t = performance.now();
  const rows = await log.prune(end - (days - 1) * day);
  const ms = performance.now() - t;
  loop.disable();
  return { ms, rows, blockMs: loop.max / 1e6 };
}

async function measure(log: LogStore, end: number, written: Written, mb: () => Promise<number>): Promise<Measured> {
  const searches = new Map<string, Timed>();
  for (const [name, q] of await shapes(log, end)) searches.set(name, await timeSearch(log, q));
  const m = await mb();
  return { written, mb: m, searches, prune: await timePrune(log, end) };
}

async function sqlite(ctx: BenchContext, end: number): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-log-'));
  const file = join(dir, 'log.sqlite');
  const log = new SqliteLogStore(file);
  try {
    ctx.log(`request-log: writing ${fmtInt(requests)} requests' records to SQLite`);
    const written = await fill(log, end, ctx);
    const mb = async () => [file, `${file}-wal`].filter((f) => existsSync(f)).reduce((n, f) => n + statSync(f).size, 0) / 1e6;
    return await measure(log, end, written, mb);
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The server's CPU seconds: its main process and every child (connections, WAL writer, autovacuum). */
function serverCpu(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return [pid, ...children].reduce((s, p) => { try { return s + cpuSeconds(p); } catch { return s; } }, 0);
}

async function postgres(ctx: BenchContext, end: number): Promise<Measured> {
  const server: ThrowawayPostgres = await startThrowawayPostgres(freePort);
  const admin = new pg.Client(server.uri);
  try {
    const log = await PostgresLogStore.open(server.uri);
    await admin.connect();
    try {
      // A gateway running for the month made each day's partition ahead of it.
      for (let d = end - days * day; d < end; d += 3 * day) await log.maintain(d);
      ctx.log(`request-log: writing ${fmtInt(requests)} requests' records to PostgreSQL`);
      const written = await fill(log, end, ctx, () => serverCpu(server.pid));
      await admin.query('VACUUM ANALYZE request_log'); // what autovacuum does to a table that has settled
      const size = async () => Number((await admin.query(`SELECT sum(pg_total_relation_size(inhrelid)) AS b FROM pg_inherits
        WHERE inhparent = 'request_log'::regclass`)).rows[0].b) / 1e6;
      return await measure(log, end, written, size);
    } finally {
      ctx.childCpu?.(serverCpu(server.pid));
      await log.close();
    }
  } finally {
    await admin.end();
    await server.stop();
  }
}

function rows(s: Measured, p: Measured | undefined): Row[] {
  const both = (f: (m: Measured) => string) => p ? `SQLite ${f(s)} · PostgreSQL ${f(p)}` : `SQLite ${f(s)}`;
  const write = (m: Measured) => `${fmt(m.written.cpuUs, 1)} µs${m.written.serverUs === undefined ? '' : ` (+ ${fmt(m.written.serverUs, 1)} µs the server's)`}`;
  const out: Row[] = [
    { metric: 'records written (requests, tasks\' two records, topups)', gateway: fmtInt(s.written.records) },
    { metric: `write cost, batches of ${batch}: CPU a record in the gateway's process`, gateway: both(write) },
    { metric: 'write time (all records, one batch at a time)', gateway: both((m) => `${fmt(m.written.wallS, 1)} s`) },
    { metric: 'size on disk (table and indexes)', gateway: both((m) => `${fmt(m.mb, 0)} MB`) },
  ];
  for (const [name, t] of s.searches) {
    const pt = p?.searches.get(name);
    const cell = (x: Timed) => `${fmt(x.ms, 2)} ms (${x.rows})`;
    out.push({
      metric: `search: ${name}`, target: name.includes('limit 1000') ? undefined : `≤ ${targetMs} ms`,
      gateway: pt ? `SQLite ${cell(t)} · PostgreSQL ${cell(pt)}` : `SQLite ${cell(t)}`,
      pass: name.includes('limit 1000') ? undefined : t.ms <= targetMs && (!pt || pt.ms <= targetMs),
    });
  }
  out.push({ metric: 'prune the oldest day', gateway: both((m) => `${fmtInt(m.prune.rows)} records in ${fmt(m.prune.ms, 0)} ms (event loop held ≤ ${fmt(m.prune.blockMs, 0)} ms)`) });
  return out;
}

export const requestLog: Scenario = {
  name: 'request-log',
  quick: false,
  async run(ctx: BenchContext): Promise<Section> {
    const end = monthEnd(Date.now());
    const s = await sqlite(ctx, end);
    const p = postgresBinDir() ? await postgres(ctx, end) : undefined;
    return {
      title: 'Request log: writes and searches over a million records (in process)',
      rows: rows(s, p),
      notes: [
        `${fmtInt(requests)} requests over ${days} days (bench/request-records.ts): 200 tokens of 50 users (a few tokens send most), ${models.length} models, ${channels.length} channels, 3 % tasks, 2 % errors; records of about 670 bytes of JSON.`,
        'Each search is the median of 20, through the store as the admin API calls it (50 records unless said; the figure in brackets is how many came back).',
        p ? 'PostgreSQL: a throwaway server (initdb defaults, fsync off), one partition a day; analyzed after the load as autovacuum would. Its CPU per record is the server\'s processes\' together.'
          : 'PostgreSQL: not installed here (apt-get install postgresql), so only SQLite was measured.',
      ],
    };
  },
};
