// The request log's stores against one contract, on SQLite and on a throwaway PostgreSQL: records read back whole,
// every filter, newest first, paging by cursor, idempotent batches, two writers at once; then what each does its own
// way: SQLite's prune by rows and writers in two processes, PostgreSQL's day partitions and its statement timeout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import pg from 'pg';
import { projectRoot, schemaRegistry } from '../src/config/load-config.js';
import type { LogQuery, LogStore, RequestRecord } from '../src/request-log/log-store.js';
import { SqliteLogStore } from '../src/request-log/sqlite-log.js';
import { PostgresLogStore } from '../src/request-log/postgres-log.js';
import { openLogStore } from '../src/request-log/open-log-store.js';
import { freshDatabase, postgresSkip, startPostgres, type PostgresServer } from './helpers/postgres.js';

const skip = postgresSkip('the PostgreSQL request log tests');
let server: PostgresServer | undefined;
before(async () => { if (!skip) server = await startPostgres(); });
after(async () => { await server?.stop(); });

const dirs: string[] = [];
const tempDir = () => { dirs.push(mkdtempSync(join(tmpdir(), 'switchyard-log-'))); return dirs.at(-1)!; };
after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

/** `fresh()` opens an empty log; `again()` another instance on the same database (another process's connection or pool). */
interface LogMaker { fresh(): Promise<LogStore>; again(): Promise<LogStore> }

function sqliteMaker(): LogMaker {
  let file = '';
  return {
    async fresh() {
      file = join(tempDir(), 'log.sqlite');
      return new SqliteLogStore(file);
    },
    again: async () => new SqliteLogStore(file),
  };
}

let databases = 0;

/** A database of its own for each test, on the file's one server; `uri()`: the last one made. */
function postgresMaker(): LogMaker & { uri(): string } {
  let uri = '';
  return {
    async fresh() {
      uri = await freshDatabase(server!, `log_${++databases}`);
      return PostgresLogStore.open(uri);
    },
    again: () => PostgresLogStore.open(uri),
    uri: () => uri,
  };
}

async function sql<T extends pg.QueryResultRow>(uri: string, text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client(uri);
  await c.connect();
  try { return (await c.query<T>(text, values)).rows; } finally { await c.end(); }
}

const day = 86_400_000;
const t0 = Date.UTC(2026, 10, 20, 12); // noon, so a test's hours stay in one day
const validate = schemaRegistry(projectRoot).get('request-record.response.json');
const schemaFields = Object.keys((schemaRegistry(projectRoot).sources.get('request-record.response.json') as { properties: object }).properties);

/** Every field of the schema set, with text that escapes differently in SQL, JSON and PostgreSQL arrays. */
const full: RequestRecord = {
  id: 'req_full', kind: 'request', at: t0, started_at: t0 - 812, token: 'tok_a', user: 'ü"ser\\1', group: 'g1', route: 'chat_completions',
  method: 'POST', path: '/v1/chat/completions', model: 'gpt-4o', served_model: 'gpt-4o-2024-08-06', channel: 'openai',
  attempts: [{ channel: 'azure', status: 502, error: 'upstream "bad" gateway, {x}', ms: 41.5 }, { channel: 'openai', status: 200, ms: 770 }],
  status: 200, error_code: 'none_really', outcome: 'done', reason: 'retried once — 日本語 \n tab\t',
  usage: { prompt_tokens: 1200, completion_tokens: 300, cached_tokens: 1000, cache_write_tokens: 5, reasoning_tokens: 64, audio_tokens: 1, image_tokens: 2, seconds: 2.5 },
  usage_estimated: false, units: 1.5, task: 'task_full', reserved: 4000, charged: 1234, uncharged: 7, vendor_charged: 1230,
  charge_lines: [['prompt', 200, 2.5, 500], ['cached', 1000, 1.25, 1250]], tier: 200_000, price: { quality: 'hd', n: 2, stream: true },
  latency_ms: 812.25, first_byte_ms: 95.5, client: '203.0.113.9',
};
const sparse: RequestRecord = { id: 'req_sparse', kind: 'request', at: t0 + 1, token: null, user: null, status: null, error_code: null, usage: null, price: null };
const bare: RequestRecord = { id: 'topup_1', kind: 'topup', at: t0 + 2 };

/** Newest first, as every search answers: at, then id, then kind, all descending. */
const order = (a: RequestRecord, b: RequestRecord) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) || (a.kind < b.kind ? 1 : a.kind > b.kind ? -1 : 0);
const keys = (rs: RequestRecord[]) => rs.map((r) => `${r.at}/${r.id}/${r.kind}`);

/** 120 records over six hours, a third of them sharing their millisecond with another. */
function mixed(): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let i = 0; i < 120; i++) {
    const failed = i % 9 === 0;
    out.push({
      id: `req_${(i * 37) % 120}`.padEnd(8, 'x'), kind: i % 15 === 0 ? 'task' : 'request', at: t0 + Math.floor(i / 3) * 540_000 + (i % 3 === 2 ? 1 : 0),
      token: `tok_${i % 5}`, user: `user_${i % 3}`, group: 'g', route: i % 4 ? 'chat_completions' : 'embeddings', model: `m${i % 4}`, channel: `ch${i % 6}`,
      status: failed ? 502 : 200, error_code: failed ? 'upstream_error' : null,
    });
  }
  return out;
}

/** How many records a search finds, page after page. */
async function countAll(log: LogStore, q: Omit<LogQuery, 'limit'>, pred: (r: RequestRecord) => boolean = () => true): Promise<number> {
  let n = 0;
  for (let page = await log.search({ ...q, limit: 1000 }); page.length; ) {
    n += page.filter(pred).length;
    page = await log.search({ ...q, limit: 1000, before: page.at(-1) });
  }
  return n;
}

function logContract(name: string, make: LogMaker, opts: { skip?: string | false } = {}): void {
  const t = (title: string, fn: (log: LogStore, again: LogStore) => Promise<void>) => test(`${name} log: ${title}`, { ...opts, timeout: 20_000 }, async () => {
    const log = await make.fresh();
    const again = await make.again();
    try { await fn(log, again); } finally { await again.close(); await log.close(); }
  });
  const all = { from: 0, to: t0 + 365 * day, limit: 1000 };

  t('a record reads back as written: every field of the schema, null and absent fields alike; NUL in a column as U+FFFD', async (log) => {
    assert.deepEqual(Object.keys(full).sort(), schemaFields.sort(), 'the test record sets every field the schema has');
    await log.insert([full, sparse, bare]);
    for (const r of [full, sparse, bare]) {
      const [got] = await log.get(r.id);
      assert.deepEqual(got, r);
      assert.ok(validate(got), JSON.stringify(validate.errors));
    }
    assert.deepEqual(await log.search(all), [bare, sparse, full]);
    assert.deepEqual(await log.get('task_full'), [full], 'a submit is found by its task\'s id');
    // A NUL, which PostgreSQL's text cannot hold, in a client's model name: written, as U+FFFD, never a refused batch.
    await log.insert([{ id: 'req_nul', kind: 'request', at: t0, model: 'gpt\0x', reason: 'a\0b' }]);
    assert.deepEqual(await log.get('req_nul'), [{ id: 'req_nul', kind: 'request', at: t0, model: 'gpt\uFFFDx', reason: 'a\0b' }]);
  });

  t('each filter and the time range find exactly their records, newest first', async (log) => {
    const records = mixed();
    await log.insert(records);
    const expect = (q: Omit<LogQuery, 'limit'>, pred: (r: RequestRecord) => boolean) =>
      records.filter((r) => r.at >= q.from && r.at < q.to && pred(r)).sort(order);
    const cases: [Omit<LogQuery, 'limit' | 'from' | 'to'>, (r: RequestRecord) => boolean][] = [
      [{}, () => true], [{ token: 'tok_3' }, (r) => r.token === 'tok_3'], [{ user: 'user_1' }, (r) => r.user === 'user_1'],
      [{ model: 'm2' }, (r) => r.model === 'm2'], [{ channel: 'ch5' }, (r) => r.channel === 'ch5'], [{ route: 'embeddings' }, (r) => r.route === 'embeddings'],
      [{ status: 502 }, (r) => r.status === 502], [{ error_code: 'upstream_error' }, (r) => r.error_code === 'upstream_error'],
      [{ kind: 'task' }, (r) => r.kind === 'task'], [{ id: 'req_74xx' }, (r) => r.id === 'req_74xx'],
      [{ token: 'tok_1', model: 'm1', status: 200 }, (r) => r.token === 'tok_1' && r.model === 'm1' && r.status === 200],
      [{ user: 'user_0', error_code: 'upstream_error', channel: 'ch0' }, (r) => r.user === 'user_0' && r.error_code === 'upstream_error' && r.channel === 'ch0'],
      [{ token: 'tok_9' }, () => false],
    ];
    // `from` is included and `to` excluded, to the millisecond.
    for (const range of [{ from: 0, to: all.to }, { from: t0 + 540_000, to: t0 + 20 * 540_000 + 1 }]) {
      for (const [filter, pred] of cases) {
        const q = { ...range, ...filter };
        assert.deepEqual(keys(await log.search({ ...q, limit: 1000 })), keys(expect(q, pred)), JSON.stringify(q));
      }
    }
    assert.equal((await log.search({ ...all, limit: 7 })).length, 7);
  });

  t('pages follow the cursor without gaps or repeats, records of the same millisecond and id included', async (log) => {
    const records = mixed();
    // A task its vendor finished at submit: its request and task records share their millisecond and id.
    records.push({ id: 'task_same', kind: 'request', at: t0 + 540_000 }, { id: 'task_same', kind: 'task', at: t0 + 540_000 });
    await log.insert(records);
    for (const [filter, limit] of [[{}, 1], [{}, 7], [{ token: 'tok_2' }, 4], [{ kind: 'request' as const }, 5]] as const) {
      const seen: RequestRecord[] = [];
      for (let page = await log.search({ ...all, ...filter, limit }); page.length; ) {
        assert.ok(page.length <= limit);
        seen.push(...page);
        const last = page.at(-1)!;
        page = await log.search({ ...all, ...filter, limit, before: { at: last.at, id: last.id, kind: last.kind } });
      }
      const want = records.filter((r) => Object.entries(filter).every(([k, v]) => r[k as keyof RequestRecord] === v)).sort(order);
      assert.deepEqual(keys(seen), keys(want), JSON.stringify(filter));
    }
    // A cursor past `to` (none of this range's pages gives one): the range still ends at `to`.
    const early = await log.search({ from: 0, to: t0 + 540_000, limit: 1000, before: { at: t0 + day, id: 'z', kind: 'task' } });
    assert.deepEqual(keys(early), keys(records.filter((r) => r.at < t0 + 540_000).sort(order)));
    // A cursor without its kind: everything strictly older than its millisecond and id.
    const older = await log.search({ ...all, before: { at: t0 + 540_000, id: 'task_same' } });
    assert.deepEqual(keys(older), keys(records.filter((r) => r.at < t0 + 540_000 || (r.at === t0 + 540_000 && r.id < 'task_same')).sort(order)));
  });

  t('get answers both records of a task id, newest first, and nothing for an unknown id', async (log) => {
    const submit: RequestRecord = { id: 'task_x', kind: 'request', at: t0, status: 200, route: 'video_create' };
    const done: RequestRecord = { id: 'task_x', kind: 'task', at: t0 + 90_000, status: 200, outcome: 'completed', units: 8 };
    await log.insert([submit, { id: 'task_y', kind: 'request', at: t0 }]);
    await log.insert([done]);
    assert.deepEqual(await log.get('task_x'), [done, submit]);
    assert.deepEqual(await log.get('task_nope'), []);
  });

  t('a batch written twice leaves one copy, the first', async (log) => {
    const batch = mixed().slice(0, 50);
    await log.insert(batch);
    await log.insert([...batch, { ...batch[3], reason: 'changed' }, { id: 'req_new', kind: 'request', at: t0 }]);
    const got = await log.search(all);
    assert.equal(got.length, 51);
    assert.equal((await log.get(batch[3].id)).find((r) => r.kind === batch[3].kind)?.reason, undefined);
    await log.insert([]);
  });

  t('two instances writing at once lose nothing', async (log, again) => {
    const batches = (who: string) => Array.from({ length: 20 }, (_, b) => Array.from({ length: 50 }, (_, i) =>
      ({ id: `${who}_${b}_${i}`, kind: 'request' as const, at: t0 + b * 1000 + i })));
    await Promise.all([log, again].map(async (s, k) => { for (const batch of batches(`w${k}`)) await s.insert(batch); }));
    for (const s of [log, again]) assert.equal(await countAll(s, all), 2000);
  });
}

logContract('sqlite', sqliteMaker());
logContract('postgres', postgresMaker(), { skip });

test('sqlite log: prune drops the records before the cutoff, in chunks, and keeps the rest', { timeout: 20_000 }, async () => {
  const log = await sqliteMaker().fresh();
  try {
    const old = Array.from({ length: 12_000 }, (_, i): RequestRecord => ({ id: `req_${i}`, kind: 'request', at: t0 - day + i }));
    await log.insert(old);
    await log.insert([{ id: 'req_cut', kind: 'request', at: t0 }, { id: 'req_new', kind: 'task', at: t0 + 1 }]);
    assert.equal(await log.prune(t0), 12_000);
    assert.deepEqual((await log.search({ from: 0, to: t0 + day, limit: 10 })).map((r) => r.id), ['req_new', 'req_cut']);
    assert.equal(await log.prune(t0), 0);
  } finally {
    await log.close();
  }
});

/** Inserts `batches` batches of 100 records in another process on the same file; `ready` once it has the file open. */
function childWriter(file: string, who: string, batches: number): { ready: Promise<void>; done: Promise<void> } {
  const storeUrl = new URL('../src/request-log/sqlite-log.js', import.meta.url).href;
  const code = `const { SqliteLogStore } = await import(${JSON.stringify(storeUrl)});
    const log = new SqliteLogStore(${JSON.stringify(file)});
    process.stdout.write('ready\\n');
    for (let b = 0; b < ${batches}; b++) {
      await log.insert(Array.from({ length: 100 }, (_, i) => ({ id: '${who}_' + b + '_' + i, kind: 'request', at: ${t0} + b * 100 + i })));
      await new Promise((r) => setImmediate(r));
    }
    await log.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return {
    ready: new Promise((resolve) => child.stdout.once('data', () => resolve())),
    done: new Promise((resolve, reject) => child.once('exit', (c) => (c === 0 ? resolve() : reject(new Error(`writer exited ${c}`))))),
  };
}

test('sqlite log: two processes writing to one file at once lose nothing', { timeout: 20_000 }, async () => {
  const file = join(tempDir(), 'log.sqlite');
  const log = new SqliteLogStore(file);
  try {
    const child = childWriter(file, 'child', 300);
    await child.ready;
    for (let b = 0; b < 300; b++) {
      await log.insert(Array.from({ length: 100 }, (_, i): RequestRecord => ({ id: `parent_${b}_${i}`, kind: 'request', at: t0 + b * 100 + i })));
      await new Promise((r) => setImmediate(r));
    }
    await child.done;
    for (const who of ['parent', 'child']) assert.equal(await countAll(log, { from: 0, to: t0 + day }, (r) => r.id.startsWith(`${who}_`)), 30_000, who);
  } finally {
    await log.close();
  }
});

test('postgres log: a day partition a day, three days ahead; prune drops whole days; DEFAULT takes the rest', { skip, timeout: 20_000 }, async () => {
  const maker = postgresMaker();
  const log = await maker.fresh() as PostgresLogStore;
  const today = Math.floor(Date.now() / day) * day;
  const name = (ms: number) => `request_log_p${new Date(ms).toISOString().slice(0, 10).replaceAll('-', '')}`;
  const inDefault = async () => (await sql<{ id: string }>(maker.uri(), 'SELECT id FROM request_log_default ORDER BY id')).map((r) => r.id);
  try {
    assert.deepEqual(await log.partitions(), [today, today + day, today + 2 * day].map(name), 'open made today and the two days after');
    const d0 = today - 10 * day;
    await log.maintain(d0);
    await log.maintain(d0 + day); // again over a day that exists: nothing changes
    const at = (d: number, h: number) => d0 + d * day + h * 3_600_000;
    await log.insert([
      { id: 'r_old', kind: 'request', at: at(-10, 1) }, { id: 'r_d0', kind: 'request', at: at(0, 1) }, { id: 'r_d1', kind: 'request', at: at(1, 23) },
      { id: 'r_d2', kind: 'request', at: at(2, 1) }, { id: 'r_d2b', kind: 'task', at: at(2, 20) }, { id: 'r_now', kind: 'request', at: Date.now() },
      { id: 'r_future', kind: 'request', at: today + 40 * day + 5 },
    ]);
    assert.deepEqual(await inDefault(), ['r_future', 'r_old'], 'a record outside every partition lands in DEFAULT');
    // The cutoff in the middle of day 2: days 0 and 1 have ended and go whole, day 2 stays whole; DEFAULT's day -10 goes.
    assert.equal(await log.prune(at(2, 12)), 3);
    assert.deepEqual(await log.partitions(), [d0 + 2 * day, d0 + 3 * day, today, today + day, today + 2 * day].map(name));
    assert.deepEqual((await log.search({ from: 0, to: today + 100 * day, limit: 10 })).map((r) => r.id), ['r_future', 'r_now', 'r_d2b', 'r_d2']);
    // The far day's partition, once made, takes its records out of DEFAULT.
    await log.maintain(today + 40 * day);
    assert.deepEqual(await inDefault(), []);
    assert.ok((await log.partitions()).includes(name(today + 40 * day)));
    assert.deepEqual((await log.get('r_future')).map((r) => r.at), [today + 40 * day + 5]);
    assert.equal(await log.prune(at(2, 12)), 0, 'prune again: nothing left to drop');
  } finally {
    await log.close();
  }
});

test('postgres log: a statement held past its timeout (a lock another connection holds) rejects, and the store goes on', { skip, timeout: 20_000 }, async () => {
  const maker = postgresMaker();
  await (await maker.fresh()).close();
  const uri = maker.uri();
  const log = await PostgresLogStore.open(uri, { statementTimeoutMs: 300 });
  const holder = new pg.Client(uri);
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE request_log IN ACCESS EXCLUSIVE MODE');
    const started = Date.now();
    await assert.rejects(log.insert([{ id: 'r1', kind: 'request', at: t0 }]), /statement timeout/);
    await assert.rejects(log.search({ from: 0, to: t0 + day, limit: 10 }), /statement timeout/);
    assert.ok(Date.now() - started < 3000, `gave up after ${Date.now() - started} ms`);
    await holder.query('ROLLBACK');
    await log.insert([{ id: 'r1', kind: 'request', at: t0 }]);
    assert.deepEqual((await log.search({ from: 0, to: t0 + day, limit: 10 })).map((r) => r.id), ['r1']);
  } finally {
    await holder.end();
    await log.close();
  }
});

test('openLogStore: sqlite:// relative to the working directory (directories made), postgres:// and postgresql://, others refused', { timeout: 20_000 }, async () => {
  const file = join(tempDir(), 'a', 'b', 'log.sqlite');
  const log = await openLogStore(`sqlite://${relative(process.cwd(), file)}`);
  assert.ok(log instanceof SqliteLogStore);
  assert.ok(existsSync(file));
  await log.close();
  if (!skip) {
    for (const scheme of ['postgres', 'postgresql']) {
      const pgLog = await openLogStore(server!.uri.replace(/^postgres/, scheme));
      assert.ok(pgLog instanceof PostgresLogStore);
      await pgLog.close();
    }
  }
  await assert.rejects(openLogStore('mysql://u:secret@h/db'), (err: Error) => /unsupported "mysql"/.test(err.message) && !err.message.includes('secret'));
  await assert.rejects(openLogStore('sqlite://'), /needs a file path/);
});
