// A request log the previous release made keeps working after an upgrade: its SQLite file and its PostgreSQL tables
// (made here by that release's own schema and insert, copied below) open with their schema unchanged, their records
// read back as written, new rows go in beside them and an old record sent again is kept once; a spool that release left
// drains into the new store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { LogStore, RequestRecord } from '../src/request-log/log-store.js';
import { SqliteLogStore } from '../src/request-log/sqlite-log.js';
import { PostgresLogStore } from '../src/request-log/postgres-log.js';
import { rowOf } from '../src/request-log/log-columns.js';
import { RequestLog } from '../src/request-log/request-log.js';
import { Spool } from '../src/request-log/spool.js';
import { freshDatabase, postgresSkip, startPostgres, type PostgresServer } from './helpers/postgres.js';

const skip = postgresSkip('the request log upgrade tests');
let server: PostgresServer | undefined;
const dir = mkdtempSync(join(tmpdir(), 'switchyard-log-upgrade-'));
before(async () => { if (!skip) server = await startPostgres(); });
after(async () => { await server?.stop(); rmSync(dir, { recursive: true, force: true }); });

// The previous release's SQLite schema and insert, as it shipped.
const sqliteSchema = `
  CREATE TABLE IF NOT EXISTS request_log (id TEXT NOT NULL, kind TEXT NOT NULL, at INTEGER NOT NULL, token TEXT, user TEXT,
    "group" TEXT, route TEXT, model TEXT, channel TEXT, status INTEGER, error_code TEXT, task TEXT, rest TEXT NOT NULL);
  CREATE UNIQUE INDEX IF NOT EXISTS request_log_id ON request_log(id, kind);
  CREATE INDEX IF NOT EXISTS request_log_at ON request_log(at, id, kind);
  CREATE INDEX IF NOT EXISTS request_log_token ON request_log(token, at, kind, status, error_code);
  CREATE INDEX IF NOT EXISTS request_log_user ON request_log(user, at, kind, status, error_code);
  CREATE INDEX IF NOT EXISTS request_log_model ON request_log(model, at);
  CREATE INDEX IF NOT EXISTS request_log_channel ON request_log(channel, at);
  CREATE INDEX IF NOT EXISTS request_log_route ON request_log(route, at);
  CREATE INDEX IF NOT EXISTS request_log_status ON request_log(status, at);
  CREATE INDEX IF NOT EXISTS request_log_error_code ON request_log(error_code, at) WHERE error_code IS NOT NULL;
  CREATE INDEX IF NOT EXISTS request_log_task ON request_log(task) WHERE task IS NOT NULL;`;
const columns = 'id, kind, at, token, user, "group", route, model, channel, status, error_code, task, rest';

// The previous release's PostgreSQL schema (its day partitions are made by `maintain`, as before).
const pgColumns = `id text COLLATE "C" NOT NULL, kind text COLLATE "C" NOT NULL, at bigint NOT NULL, token text COLLATE "C",
  "user" text COLLATE "C", "group" text COLLATE "C", route text COLLATE "C", model text COLLATE "C", channel text COLLATE "C",
  status integer, error_code text COLLATE "C", task text COLLATE "C", rest text NOT NULL, PRIMARY KEY (at, id, kind)`;
const pgSchema = `
  CREATE TABLE IF NOT EXISTS request_log (${pgColumns}) PARTITION BY RANGE (at);
  CREATE INDEX IF NOT EXISTS request_log_id ON request_log (id);
  CREATE INDEX IF NOT EXISTS request_log_token ON request_log (token, at, kind, status, error_code);
  CREATE INDEX IF NOT EXISTS request_log_user ON request_log ("user", at, kind, status, error_code);
  CREATE INDEX IF NOT EXISTS request_log_model ON request_log (model, at);
  CREATE INDEX IF NOT EXISTS request_log_channel ON request_log (channel, at);
  CREATE INDEX IF NOT EXISTS request_log_route ON request_log (route, at);
  CREATE INDEX IF NOT EXISTS request_log_status ON request_log (status, at);
  CREATE INDEX IF NOT EXISTS request_log_error_code ON request_log (error_code, at) WHERE error_code IS NOT NULL;
  CREATE INDEX IF NOT EXISTS request_log_task ON request_log (task) WHERE task IS NOT NULL;
  CREATE TABLE IF NOT EXISTS request_log_default PARTITION OF request_log DEFAULT;`;

const t0 = Date.UTC(2026, 10, 20, 12);
const old: RequestRecord = {
  id: 'req_old', kind: 'request', at: t0, started_at: t0 - 40, token: 'tok_a', user: 'alice', group: 'default', route: 'chat_completions',
  method: 'POST', path: '/v1/chat/completions', model: 'gpt-4o-mini', served_model: 'gpt-4o-mini', channel: 'sim_openai',
  attempts: [{ channel: 'sim_openai', status: 200, ms: 38 }], status: 200, error_code: null, outcome: null, reason: null,
  usage: { prompt_tokens: 5, completion_tokens: 5 }, usage_estimated: null, units: null, task: null, reserved: 10, charged: 1,
  uncharged: null, vendor_charged: null, charge_lines: [['input', 5, 150, 0.00075]], tier: null, price: null, latency_ms: 40, first_byte_ms: 39,
  client: '127.0.0.1',
};
const fresh: RequestRecord = { ...old, id: 'req_new', at: t0 + 1, model: 'gpt-4o' };
const range = { from: 0, to: t0 + 86_400_000, limit: 10 };

/** What the store keeps of its records after the new release opened it: the old one as written, the new one, once each. */
async function takesNewRows(log: LogStore): Promise<void> {
  assert.deepEqual(await log.get('req_old'), [old], 'the old record reads back as written');
  await log.insertRows([rowOf(fresh), rowOf({ ...old, reason: 'sent again' })]);
  assert.deepEqual(await log.search(range), [fresh, old]);
  assert.deepEqual(await log.search({ ...range, model: 'gpt-4o-mini' }), [old], 'the old record is found by its filters');
}

test('sqlite: a log file of the previous release opens with its schema unchanged and takes new rows', async () => {
  const file = join(dir, 'old.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(sqliteSchema);
  db.prepare(`INSERT INTO request_log (${columns}) VALUES (${rowOf(old).map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`).run(rowOf(old));
  const schemaOf = () => db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
  const before = schemaOf();
  const log = new SqliteLogStore(file);
  try {
    await takesNewRows(log);
    assert.deepEqual(schemaOf(), before, 'no table or index added, changed or dropped');
  } finally {
    await log.close();
    db.close();
  }
});

test('postgres: the previous release\'s tables open with their indexes unchanged and take new rows', { skip, timeout: 20_000 }, async () => {
  const uri = await freshDatabase(server!, 'log_upgrade');
  const sql = async (text: string, values: unknown[] = []) => {
    const c = new pg.Client(uri);
    await c.connect();
    try { return (await c.query(text, values)).rows; } finally { await c.end(); }
  };
  await sql(pgSchema);
  await sql(`INSERT INTO request_log (${columns.replace('user', '"user"')}) VALUES (${rowOf(old).map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT DO NOTHING`, rowOf(old));
  const indexes = () => sql("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'request_log' ORDER BY 1");
  const before = await indexes();
  const log = await PostgresLogStore.open(uri);
  try {
    await takesNewRows(log);
    assert.deepEqual(await indexes(), before);
  } finally {
    await log.close();
  }
});

test('a spool the previous release left (records as JSON lines) drains into the new store', async () => {
  const spoolDir = join(dir, 'spool');
  mkdirSync(spoolDir);
  writeFileSync(join(spoolDir, '00mx1kam84-4242-000000.jsonl'), `${JSON.stringify(old)}\n${JSON.stringify(fresh)}\n`);
  const log = new SqliteLogStore(join(dir, 'spooled.sqlite'));
  const writer = new RequestLog(log, new Spool(spoolDir, 1 << 20), { flushMs: 60_000, insertTimeoutMs: 1000, batchSize: 250, onError: (m) => assert.fail(m) });
  try {
    await writer.flush();
    assert.deepEqual(await log.search(range), [fresh, old]);
    assert.equal(new Spool(spoolDir, 1 << 20).batches, 0, 'the spool is empty');
  } finally {
    await writer.close();
  }
});
