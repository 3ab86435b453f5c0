// The keyv adapter over better-sqlite3 (src/store/sqlite-kv.ts): records, expiry, namespaces, listing, several
// connections on one file, and files written by @keyv/sqlite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import Keyv from 'keyv';
import { kvStatements, SqliteKv } from '../src/store/sqlite-kv.js';
import { openSqliteDb } from '../src/store/sqlite-state.js';
import { openStore } from '../src/store/open-store.js';
import { deserializeKv, serializeKv } from '../src/store/kv-serialize.js';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'switchyard-kv-')), 'switchyard.sqlite');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The table exactly as @keyv/sqlite 4 created it. */
const keyvSqliteDdl = 'CREATE TABLE keyv(key VARCHAR(255) PRIMARY KEY, value TEXT )';
const ddlOf = (db: Database.Database) => db.prepare("SELECT sql FROM sqlite_master WHERE name = 'keyv'").pluck().get();

/** One "process": its own connection to the file, and a keyv per namespace as open-store.ts builds them. */
function connect(file: string) {
  const db = openSqliteDb(file, 5000);
  const sql = kvStatements(db);
  const kv = (namespace: string) => new Keyv({ store: new SqliteKv(sql), namespace, serialize: serializeKv, deserialize: deserializeKv });
  const keys = () => db.prepare('SELECT key FROM keyv ORDER BY key').pluck().all() as string[];
  return { db, sql, kv, keys };
}

const list = async (kv: Keyv) => {
  const out: [string, unknown][] = [];
  for await (const [k, v] of kv.iterator!(undefined) as AsyncGenerator<[string, unknown]>) out.push([k, v]);
  return out;
};

test('get, set, delete, getMany: JSON records under `namespace:key`', async () => {
  const c = connect(fresh());
  assert.equal(ddlOf(c.db), keyvSqliteDdl, 'a new file gets the table @keyv/sqlite would have made');
  const kv = c.kv('tokens');
  assert.equal(await kv.get('missing'), undefined);
  assert.equal(await kv.set('key:a', { id: 'tok_1', models: ['m'], n: 1.5 }), true);
  assert.deepEqual(await kv.get('key:a'), { id: 'tok_1', models: ['m'], n: 1.5 });
  await kv.set('key:a', { id: 'tok_1', revoked: true });
  assert.deepEqual(await kv.get('key:a'), { id: 'tok_1', revoked: true }, 'a second set replaces the record');
  await kv.set('id:tok_1', 'a');
  assert.deepEqual(c.keys(), ['tokens:id:tok_1', 'tokens:key:a']);
  assert.deepEqual(await kv.get(['id:tok_1', 'nope', 'key:a']), ['a', undefined, { id: 'tok_1', revoked: true }]);
  assert.equal(await kv.delete('key:a'), true);
  assert.equal(await kv.delete('key:a'), false, 'nothing left to delete');
  assert.equal(await kv.get('key:a'), undefined);
  assert.equal(await kv.delete(['id:tok_1', 'nope']), true);
  assert.deepEqual(c.keys(), []);
  c.db.close();
});

test('TTL: a record past its expiry reads as missing and its row is deleted; has() honours expiry', async () => {
  const c = connect(fresh());
  const kv = c.kv('tasks');
  await kv.set('short', { status: 'succeeded' }, 40);
  await kv.set('long', { status: 'succeeded' }, 60_000);
  await kv.set('forever', { status: 'running' });
  assert.deepEqual(await kv.get('short'), { status: 'succeeded' });
  assert.equal(await kv.has('short'), true);
  await sleep(60);
  assert.equal(await kv.has('short'), false);
  assert.equal(await kv.get('short'), undefined);
  assert.deepEqual(c.keys(), ['tasks:forever', 'tasks:long'], 'the expired row went with the read');
  assert.deepEqual(await kv.get('long'), { status: 'succeeded' });
  assert.deepEqual(await kv.get('forever'), { status: 'running' });
  await kv.set('short2', 1, 20);
  await sleep(40);
  assert.deepEqual((await list(kv)).map(([k]) => k), ['forever', 'long'], 'the iterator skips (and deletes) expired rows');
  assert.deepEqual(c.keys(), ['tasks:forever', 'tasks:long']);
  c.db.close();
});

test('namespaces are kept apart: same key, clear(), and names LIKE would confuse (case, `_`)', async () => {
  const c = connect(fresh());
  const [tokens, tasks, upper, wild, abc] = ['tokens', 'tasks', 'TASKS', 'a_c', 'abc'].map((ns) => c.kv(ns));
  for (const [i, kv] of [tokens, tasks, upper, wild, abc].entries()) await kv.set('k', i);
  assert.deepEqual(await Promise.all([tokens, tasks, upper, wild, abc].map((kv) => kv.get('k'))), [0, 1, 2, 3, 4]);
  await tasks.clear();
  await wild.clear();
  assert.equal(await tasks.get('k'), undefined);
  assert.equal(await wild.get('k'), undefined);
  assert.deepEqual(c.keys(), ['TASKS:k', 'abc:k', 'tokens:k'], 'clear() took its own namespace only');
  c.db.close();
});

test('the iterator lists one namespace only, in pages, and misses nothing when rows go while it runs', async () => {
  const c = connect(fresh());
  const tokens = c.kv('tokens');
  // Neighbours on either side of the range [`tokens:`, `tokens;`), and a record in another namespace.
  for (const ns of ['token', 'tokens2', 'tokensx', 'tasks']) await c.kv(ns).set('x', ns);
  c.db.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)').run('tokens;x', JSON.stringify({ value: 'not ours' }));
  const n = 250; // more than a page (100)
  const keys = Array.from({ length: n }, (_, i) => `key:${String(i).padStart(3, '0')}`);
  for (const [i, k] of keys.entries()) await tokens.set(k, { i }, i % 7 === 3 ? 1 : undefined);
  await sleep(10); // every seventh record has expired: keyv deletes each as the iterator meets it
  const live = keys.filter((_, i) => i % 7 !== 3);
  const seen = await list(tokens);
  assert.deepEqual(seen.map(([k]) => k), live);
  assert.deepEqual(seen.map(([, v]) => (v as { i: number }).i), live.map((k) => Number(k.slice(4))));
  assert.equal(c.keys().filter((k) => k.startsWith('tokens:')).length, live.length, 'expired rows deleted on the way');
  // A raw adapter without a namespace sees every row (keyv's default is the namespace "keyv"; ours always names one).
  const raw = new SqliteKv(c.sql);
  const all: string[] = [];
  for await (const [k] of raw.iterator(undefined)) all.push(k);
  assert.deepEqual(all, c.keys());
  await raw.clear();
  assert.deepEqual(c.keys(), []);
  c.db.close();
});

test('setMany: keyv hands the adapter every row at once, written in one transaction, each with its own expiry', async () => {
  const c = connect(fresh());
  const kv = c.kv('responses');
  const statements: string[] = [];
  let transactions = 0;
  const run = c.sql.setMany;
  c.sql.setMany = (rows) => { transactions++; statements.push(...rows.map((r) => r.key)); run(rows); };
  const ok = await kv.setMany([
    { key: 'u:i:msg_1', value: { id: 'msg_1', text: ':colon' } },
    { key: 'u:i:msg_2', value: { id: 'msg_2' }, ttl: 40 },
    { key: 'u:i:msg_3', value: { id: 'msg_3', n: [1, 2] } },
  ]);
  assert.deepEqual(ok, [true, true, true]);
  assert.equal(transactions, 1, 'one call of the adapter, not one set per row');
  assert.deepEqual(statements, ['responses:u:i:msg_1', 'responses:u:i:msg_2', 'responses:u:i:msg_3']);
  assert.deepEqual(await kv.get('u:i:msg_1'), { id: 'msg_1', text: ':colon' });
  await sleep(60);
  assert.deepEqual(await kv.get(['u:i:msg_2', 'u:i:msg_3']), [undefined, { id: 'msg_3', n: [1, 2] }], 'the short one expired alone');
  c.db.close();
});

test('two connections (two processes) on one file see each other\'s writes', async () => {
  const file = fresh();
  const a = connect(file);
  const b = connect(file);
  await a.kv('tokens').set('key:a', { by: 'a' });
  assert.deepEqual(await b.kv('tokens').get('key:a'), { by: 'a' });
  await b.kv('tokens').set('key:a', { by: 'b' });
  assert.deepEqual(await a.kv('tokens').get('key:a'), { by: 'b' });
  await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).kv('tasks').set(`t${i}`, i)));
  assert.equal((await list(a.kv('tasks'))).length, 50);
  await b.kv('tokens').delete('key:a');
  assert.equal(await a.kv('tokens').get('key:a'), undefined);
  b.db.close();
  // And a real second process, writing through the store as the CLI does.
  const child = `
    import { openStore } from ${JSON.stringify(new URL('../src/store/open-store.js', import.meta.url).href)};
    const s = await openStore(${JSON.stringify(`sqlite://${file}`)}, { quotaFlushMs: 0 });
    await s.kv('tokens').set('key:child', { pid: process.pid });
    console.log(JSON.stringify(await s.kv('tasks').get('t7')));
    await s.close();`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', child], { cwd: fileURLToPath(new URL('.', import.meta.url)) });
  assert.equal(r.status, 0, r.stderr.toString());
  assert.equal(r.stdout.toString().trim(), '7', 'the child read what this process wrote');
  assert.equal(((await a.kv('tokens').get('key:child')) as { pid: number }).pid, r.pid);
  a.db.close();
});

test('a file written by @keyv/sqlite (same table, same keys and values) keeps working through the store', async () => {
  const file = fresh();
  const old = new Database(file);
  old.exec(keyvSqliteDdl);
  const put = old.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)');
  const rec = { id: 'tok_old', hash: 'h1', user: 'u', group: 'g', created_at: 1 };
  put.run('tokens:key:h1', JSON.stringify({ value: rec }));
  put.run('tokens:id:tok_old', JSON.stringify({ value: 'h1' }));
  put.run('tasks:task_1', JSON.stringify({ value: { id: 'task_1', status: 'succeeded' }, expires: Date.now() + 60_000 }));
  put.run('tasks:task_0', JSON.stringify({ value: { id: 'task_0', status: 'succeeded' }, expires: Date.now() - 1 }));
  old.close();
  const store = await openStore(`sqlite://${file}`, { quotaFlushMs: 0 });
  try {
    assert.deepEqual(await store.kv('tokens').get('key:h1'), rec);
    assert.equal(await store.kv('tokens').get('id:tok_old'), 'h1');
    assert.deepEqual((await list(store.kv('tokens'))).map(([k]) => k), ['id:tok_old', 'key:h1']);
    assert.deepEqual(await store.kv('tasks').get('task_1'), { id: 'task_1', status: 'succeeded' });
    assert.equal(await store.kv('tasks').get('task_0'), undefined, 'expired before the upgrade: still expired');
    await store.kv('tokens').set('key:h2', { ...rec, hash: 'h2' });
  } finally {
    await store.close();
  }
  const after = new Database(file, { readonly: true });
  assert.equal(ddlOf(after), keyvSqliteDdl, 'the table is untouched');
  assert.deepEqual(JSON.parse(after.prepare('SELECT value FROM keyv WHERE key = ?').pluck().get('tokens:key:h2') as string),
    { value: { ...rec, hash: 'h2' } }, 'what it writes, @keyv/sqlite would read');
  after.close();
});

test('the retention sweep drops records past their expiry that nobody read again, a stretch at a time; the rest stay', async () => {
  const file = fresh();
  const store = await openStore(`sqlite://${file}`, { quotaFlushMs: 0 });
  try {
    const tasks = store.kv('tasks');
    await tasks.set('old', { v: 1 }, 1);
    await tasks.set('kept', { v: 2 });
    await tasks.set('later', { v: 3 }, 60_000);
    await sleep(20);
    let dropped = 0;
    for (let more = true; more;) {
      const r = await store.sweepExpired!(Date.now());
      dropped += r.dropped;
      more = r.more;
    }
    assert.equal(dropped, 1);
    const db = new Database(file, { readonly: true });
    assert.deepEqual(db.prepare('SELECT key FROM keyv ORDER BY key').pluck().all(), ['tasks:kept', 'tasks:later']);
    db.close();
  } finally {
    await store.close();
  }
});
