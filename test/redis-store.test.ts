// The Redis store against the same QuotaLedger, TaskIndex and TaskCatalog contracts as SQLite, on a real redis-server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import { openStore, type StoreOptions } from '../src/store/open-store.js';
import { connectRedis, type RedisClient } from '../src/store/redis-client.js';
import { catalogContract, quotaContract, recoveryContract, redisLedgerContract, taskIndexContract, type StoreMaker } from './helpers/store-contract.js';
import { redisSkip, startRedis, type RedisServer } from './helpers/redis.js';

const skip = redisSkip('the Redis store tests');

let redis: RedisServer | undefined;
before(async () => { if (!skip) redis = await startRedis(); });
after(async () => { await redis?.stop(); });

/** `quotaFlushMs` 0: every quota movement written through, instead of the request holds of the default. */
function sqliteMaker(quotaFlushMs?: number): StoreMaker {
  let uri = '';
  return {
    async fresh(o?: StoreOptions) {
      uri = `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-contract-')), 'store.sqlite')}`;
      return openStore(uri, { ...o, quotaFlushMs });
    },
    again: (o?: StoreOptions) => openStore(uri, { ...o, quotaFlushMs }),
  };
}

/** Each test gets its own emptied database number, so claims and counts see only that test's tasks. */
let db = 0;
const dbUri = () => `${redis!.uri}/${db}`;
function redisMaker(): StoreMaker {
  return {
    async fresh(o?: StoreOptions) {
      db = (db % 15) + 1;
      const c = createClient({ url: dbUri() });
      await c.connect();
      await c.flushDb();
      await c.close();
      return openStore(dbUri(), o);
    },
    again: (o?: StoreOptions) => openStore(dbUri(), o),
  };
}

/** A plain connection to the database the last fresh() emptied. */
async function rawRedis(): Promise<{ client: RedisClient; close(): Promise<void> }> {
  const { client } = await connectRedis(dbUri());
  return { client, close: () => client.close() };
}

quotaContract('sqlite', sqliteMaker());
quotaContract('sqlite write-through', sqliteMaker(0));
quotaContract('redis', redisMaker(), { skip });
taskIndexContract('sqlite', sqliteMaker());
taskIndexContract('redis', redisMaker(), { skip });
recoveryContract('sqlite', sqliteMaker());
recoveryContract('redis', redisMaker(), { skip });
catalogContract('sqlite', sqliteMaker());
catalogContract('redis', redisMaker(), { skip });
catalogContract('sqlite', sqliteMaker(), {}, 'files');
catalogContract('redis', redisMaker(), { skip }, 'files');
redisLedgerContract('redis', redisMaker(), rawRedis, { skip });

test('store options: a marker window, or a retention, that is not a whole number above 0 fails the open, naming it', async () => {
  const uri = `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-retention-')), 'store.sqlite')}`;
  await assert.rejects(openStore(uri, { markerTtlMs: { request: 0 } }), /markerTtlMs\.request must be a whole number above 0/);
  await assert.rejects(openStore(uri, { usageRetentionDays: 1.5 }), /usageRetentionDays must be/);
  process.env.SWITCHYARD_MARKER_TTL_DURABLE_MS = '2 days';
  try {
    await assert.rejects(openStore(uri), /SWITCHYARD_MARKER_TTL_DURABLE_MS must be a whole number above 0 \(got "2 days"\)/);
  } finally { delete process.env.SWITCHYARD_MARKER_TTL_DURABLE_MS; }
});

test('redis store: describe names it (without a password); an unreachable server fails fast at open', { skip, timeout: 20_000 }, async () => {
  const store = await openStore(`${redis!.uri}/3`);
  try {
    assert.match(store.describe, /^redis redis:\/\/127\.0\.0\.1:\d+\/3$/);
    const kv = store.kv('tokens');
    await kv.set('k', { a: 1 });
    assert.deepEqual(await kv.get('k'), { a: 1 });
    assert.equal(await store.kv('tasks').get('k'), undefined, 'namespaces do not collide');
  } finally {
    await store.close();
  }
  const started = Date.now();
  await assert.rejects(openStore('redis://127.0.0.1:1'), /cannot connect|ECONNREFUSED/);
  assert.ok(Date.now() - started < 5000);
});

test('redis store: an invalidation published by one instance reaches every subscribed instance', { skip, timeout: 20_000 }, async () => {
  const a = await openStore(`${redis!.uri}/4`);
  const b = await openStore(`${redis!.uri}/4`);
  try {
    const got = new Promise<string | undefined>((resolve) => b.onInvalidate!(resolve));
    await a.publishInvalidate!('abc123');
    assert.equal(await got, 'abc123');
  } finally {
    await a.close();
    await b.close();
  }
});

test('redis store: a server written in the layout before hash tags is moved to the tagged one at the first open, once', { skip, timeout: 20_000 }, async () => {
  const uri = `${redis!.uri}/5`;
  const c = createClient({ url: uri });
  await c.connect();
  const hour = Math.floor(Date.now() / 3_600_000);
  const cell = (field: string) => `acct1\u001fgpt\u001fchat\u001fch\u001falice\u001f${field}`;
  const reserve = { entry: 'r1:reserve', account: 'acct1', request: 'r1', kind: 'reserve', amount: 30, at: Date.now(), uncharged: 0 };
  const topup = { entry: 'topup:create:acct1', account: 'acct1', request: 'create:acct1', kind: 'topup', amount: -100, at: Date.now() - 1000, uncharged: 0 };
  try {
    await c.flushDb();
    // What 0.1.0's Redis store wrote for: an account topped up with 100, a request r1 holding 30 (owner i_dead),
    // an earlier request's usage, an open task in group g, a catalog entry and a due callback job.
    await c.set('sy:quota:bal:acct1', '70');
    await c.rPush('sy:quota:log:acct1', [JSON.stringify(topup), JSON.stringify(reserve)]);
    await c.set('sy:quota:entry:topup:create:acct1', JSON.stringify(topup));
    await c.set('sy:quota:entry:r1:reserve', JSON.stringify(reserve));
    await c.set('sy:quota:open:req:r1', JSON.stringify({ request: 'r1', account: 'acct1', amount: 30, owner: 'i_dead', scope: 'durable', at: reserve.at }));
    await c.sAdd('sy:quota:open:own:i_dead', 'r1');
    await c.sAdd('sy:quota:open:owners', 'i_dead');
    await c.hSet(`sy:quota:usage:h:${hour}`, { [cell('requests')]: '1', [cell('charged')]: '12' });
    await c.hSet(`sy:quota:usage:d:${Math.floor(hour / 24)}`, { [cell('requests')]: '1', [cell('charged')]: '12' });
    await c.zAdd('sy:quota:usage:hours', { score: hour, value: String(hour) });
    await c.zAdd('sy:quota:usage:days', { score: Math.floor(hour / 24), value: String(Math.floor(hour / 24)) });
    await c.hSet('sy:quota:usage:acct:acct1', { requests: '1', charged: '12' });
    await c.hSet('sy:task:open:t1', { grp: 'g', channel: 'ch', next: '0', lease_until: '0', lease_owner: '', owner: 'i_dead', opened_at: '1' });
    await c.sAdd('sy:task:grp:g', 't1');
    await c.zAdd('sy:task:due', { score: 1, value: 't1' });
    await c.hSet('sy:task:cat:e:t1', { user: 'alice', family: 'video', model: 'm', created_ms: '5' });
    for (const k of ['all', 'u:alice', 'f:video', 'uf:5:alice:video']) await c.zAdd(`sy:task:cat:${k}`, { score: 5, value: 't1' });
    await c.hSet('sy:job:callbacks:j1', { due: '1', attempt: '1', version: '1', lease_until: '0' });
    await c.zAdd('sy:jobs:callbacks', { score: 1, value: 'j1' });

    const store = await openStore(uri);
    try {
      assert.equal(await store.quota.balance('acct1'), 70);
      await store.quota.prune(Date.now()); // the entries' list goes under the index, as on a server of the tagged layout
      assert.deepEqual((await store.quota.entries('acct1')).map((e) => e.entry), ['topup:create:acct1', 'r1:reserve']);
      assert.deepEqual(await store.quota.openOwners(), ['i_dead']);
      assert.deepEqual((await store.quota.openOf('i_dead')).map((r) => [r.request, r.amount]), [['r1', 30]]);
      assert.equal((await store.quota.reservationOf('r1'))?.account, 'acct1');
      assert.equal((await store.quota.totals('acct1')).charged, 12);
      const usage = await store.quota.usage({ from: (hour - 1) * 3_600_000, to: (hour + 1) * 3_600_000, groupBy: 'model' });
      assert.deepEqual(usage.map((u) => [u.requests, u.charged]), [[1, 12]]);
      await store.quota.refund('acct1', 'r1', 30); // a sweep of i_dead's reservation
      assert.equal(await store.quota.balance('acct1'), 100);
      assert.equal(await store.tasks.count(), 1);
      assert.deepEqual(await store.tasks.claimDue('me', Date.now(), Date.now() + 1000, 10), [{ id: 't1', channel: 'ch' }]);
      await store.tasks.close('t1');
      assert.equal(await store.tasks.count(), 0);
      assert.deepEqual((await store.catalog.page({ user: 'alice', family: 'video', limit: 10, order: 'asc' }))?.ids, ['t1']);
      assert.equal(await store.jobs('callbacks').count(), 1);
      assert.deepEqual((await c.keys('sy:quota:bal:*')).length + (await c.keys('sy:task:open:*')).length + (await c.keys('sy:task:cat:*')).length, 0);
    } finally {
      await store.close();
    }
    await c.set('sy:quota:bal:late', '1'); // written after the move: a second open leaves it alone
    const again = await openStore(uri);
    await again.close();
    assert.equal(await c.get('sy:quota:bal:late'), '1');
  } finally {
    await c.close();
  }
});

test('redis store: an instance whose pid is gone on this machine is dead at once; elsewhere, or an old beat, only when it expires', { skip, timeout: 20_000 }, async () => {
  const { RedisInstances } = await import('../src/store/redis-instances.js');
  const c = createClient({ url: `${redis!.uri}/15` });
  await c.connect();
  try {
    await c.flushDb();
    const self = new RedisInstances(c as never, 'i_self', 60_000);
    await self.start();
    const scope = JSON.parse((await c.get('sy:inst:i_self'))!).scope as string;
    assert.match(scope, /\|pid:\[\d+\]$/, 'a beat names its host, boot and pid namespace');
    // A pid that no process has: spawn one that exits, and take its pid once it is gone.
    const { spawnSync } = await import('node:child_process');
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    const beats: Record<string, string> = {
      i_crashed_here: JSON.stringify({ pid: gone, scope }),
      i_running_here: JSON.stringify({ pid: process.pid, scope }),
      i_other_namespace: JSON.stringify({ pid: gone, scope: scope.replace(/pid:\[\d+\]$/, 'pid:[1]') }),
      i_old_format: `somehost:${gone}`,
    };
    for (const [id, v] of Object.entries(beats)) await c.set(`sy:inst:${id}`, v, { expiration: { type: 'PX', value: 60_000 } });
    const alive = await self.alive([...Object.keys(beats), 'i_self', 'i_expired']);
    assert.deepEqual([...alive].sort(), ['i_old_format', 'i_other_namespace', 'i_running_here', 'i_self']);
    await self.stop();
  } finally {
    await c.close();
  }
});
