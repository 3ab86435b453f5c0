// Leases (store/leases.ts): the same contract on SQLite, one redis-server and a Redis Cluster, each with two store
// instances sharing one store: the limit holds across them, a race for the last slot has exactly one winner, expired
// leases free their slots, a lost lease cannot be renewed; and what each store leaves behind goes (SQLite's prune,
// Redis's key expiry).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import { openStore, type Store } from '../src/store/open-store.js';
import { connectRedis, type RedisClient } from '../src/store/redis-client.js';
import { leaseKey } from '../src/store/redis-leases.js';
import { openStateDb, stateFileFor } from '../src/store/sqlite-state.js';
import { redisSkip, startRedis, type RedisServer } from './helpers/redis.js';
import { clusterStoreMaker, startRedisCluster, type RedisClusterServer } from './helpers/redis-cluster.js';
import type { StoreMaker } from './helpers/store-contract.js';
import { until } from './helpers/wait.js';

const skip = redisSkip('the Redis lease tests');
let redis: RedisServer | undefined;
let cluster: RedisClusterServer | undefined;
before(async () => {
  if (skip) return;
  [redis, cluster] = await Promise.all([startRedis(), startRedisCluster({ masters: 3 })]);
});
after(async () => { await Promise.all([redis?.stop(), cluster?.stop()]); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const uid = (p: string) => `${p}_${randomBytes(5).toString('hex')}`;

let sqliteFile = '';
const sqliteMaker: StoreMaker = {
  async fresh(o) {
    sqliteFile = join(mkdtempSync(join(tmpdir(), 'switchyard-leases-')), 'store.sqlite');
    return openStore(`sqlite://${sqliteFile}`, o);
  },
  again: (o) => openStore(`sqlite://${sqliteFile}`, o),
};

let db = 0;
const dbUri = () => `${redis!.uri}/${db}`;
const redisMaker: StoreMaker = {
  async fresh(o) {
    db = (db % 15) + 1;
    const c = createClient({ url: dbUri() });
    await c.connect();
    await c.flushDb();
    await c.close();
    return openStore(dbUri(), o);
  },
  again: (o) => openStore(dbUri(), o),
};

type Raw = () => Promise<{ client: RedisClient; close(): Promise<void> }>;

function leasesContract(name: string, make: StoreMaker, opts: { skip?: string | false; raw?: Raw } = {}): void {
  const t = (title: string, fn: (a: Store, b: Store) => Promise<void>) => test(`${name} leases: ${title}`, { skip: opts.skip, timeout: 10_000 }, async () => {
    const a = await make.fresh();
    const b = await make.again();
    try { await fn(a, b); } finally { await b.close(); await a.close(); }
  });

  t('at most `limit` live members, counted across instances; limit 0 admits none', async (a, b) => {
    const k = uid('{tok}:rt');
    for (const m of ['m1', 'm2', 'm3']) assert.equal(await (m === 'm2' ? b : a).leases.acquire(k, m, 3, 10_000), true, m);
    assert.equal(await b.leases.acquire(k, 'm4', 3, 10_000), false);
    assert.equal(await a.leases.acquire(k, 'm4', 3, 10_000), false);
    assert.equal(await a.leases.count(k), 3);
    assert.equal(await b.leases.count(k), 3);
    assert.equal(await a.leases.acquire(uid('k'), 'm', 0, 10_000), false);
    await assert.rejects(a.leases.acquire(k, 'm', 1, 0), RangeError);
    await assert.rejects(a.leases.acquire(k, 'm', 1.5, 100), RangeError);
  });

  t('two instances racing for the last slot: exactly one wins, every time', async (a, b) => {
    for (let round = 0; round < 40; round++) {
      const k = uid('race');
      assert.equal(await a.leases.acquire(k, 'p1', 3, 10_000), true);
      assert.equal(await b.leases.acquire(k, 'p2', 3, 10_000), true);
      const won = await Promise.all([a.leases.acquire(k, 'x', 3, 10_000), b.leases.acquire(k, 'y', 3, 10_000)]);
      assert.equal(won.filter(Boolean).length, 1, `round ${round}: ${won}`);
      assert.equal(await a.leases.count(k), 3);
    }
    for (let round = 0; round < 10; round++) {
      const k = uid('crowd');
      const tries = [a, b].flatMap((s, i) => Array.from({ length: 8 }, (_, j) => s.leases.acquire(k, `s${i}m${j}`, 5, 10_000)));
      const won = await Promise.all(tries);
      assert.equal(won.filter(Boolean).length, 5, `round ${round}: 16 members for 5 slots`);
      assert.equal(await b.leases.count(k), 5);
    }
  });

  t('an expired lease frees its slot and cannot be renewed; a live one is extended by renew', async (a, b) => {
    const k = uid('exp');
    assert.equal(await a.leases.acquire(k, 'gone', 1, 150), true);
    assert.equal(await b.leases.acquire(k, 'next', 1, 10_000), false);
    await sleep(300);
    assert.equal(await a.leases.count(k), 0, 'an expired lease is not live');
    assert.equal(await a.leases.renew(k, 'gone', 10_000), false, 'renewing after expiry: the lease was lost');
    assert.equal(await b.leases.acquire(k, 'next', 1, 10_000), true, 'the slot is free again');
    assert.equal(await a.leases.acquire(k, 'gone', 1, 10_000), false);

    // The sleeps only ever run long: the renewal has 800 ms to spare before the first expiry, the checks 1.8 s before
    // the renewed one, so a loaded machine cannot make the lease lapse between them.
    const k2 = uid('renew');
    assert.equal(await a.leases.acquire(k2, 'm', 1, 1000), true);
    await sleep(200);
    assert.equal(await b.leases.renew(k2, 'm', 3000), true, 'any instance may renew');
    await sleep(1000); // past the first expiry, within the renewed one
    assert.equal(await a.leases.count(k2), 1);
    assert.equal(await a.leases.acquire(k2, 'other', 1, 400), false);
    assert.equal(await a.leases.renew(k2, 'never', 400), false, 'a member never held has nothing to renew');
  });

  t('release frees the slot at once; renewing a released lease answers false', async (a, b) => {
    const k = uid('rel');
    assert.equal(await a.leases.acquire(k, 'm1', 1, 10_000), true);
    await b.leases.release(k, 'm1');
    await b.leases.release(k, 'm1'); // again: nothing
    await a.leases.release(uid('k'), 'x'); // never held: nothing
    assert.equal(await a.leases.count(k), 0);
    assert.equal(await a.leases.renew(k, 'm1', 10_000), false);
    assert.equal(await b.leases.acquire(k, 'm2', 1, 10_000), true);
  });

  t('acquiring a member already held renews it and answers true, even at the limit', async (a, b) => {
    const k = uid('again');
    assert.equal(await a.leases.acquire(k, 'm', 1, 1000), true);
    await sleep(200);
    assert.equal(await b.leases.acquire(k, 'm', 1, 3000), true);
    assert.equal(await a.leases.count(k), 1, 'still one member');
    await sleep(1000); // past the first expiry, within the second
    assert.equal(await a.leases.count(k), 1);
    assert.equal(await a.leases.acquire(k, 'n', 1, 400), false);
  });

  t('keys are independent', async (a, b) => {
    const [k1, k2] = [uid('{tok_a}:rt'), uid('plain')];
    assert.equal(await a.leases.acquire(k1, 'm', 1, 10_000), true);
    assert.equal(await b.leases.acquire(k2, 'm', 1, 10_000), true);
    assert.equal(await b.leases.acquire(k2, 'n', 1, 10_000), false);
    await a.leases.release(k1, 'm');
    assert.deepEqual([await a.leases.count(k1), await a.leases.count(k2)], [0, 1]);
    assert.equal(await a.leases.acquire(k1, 'n', 1, 10_000), true);
  });

  if (opts.raw) {
    const raw = opts.raw;
    t('the Redis key lives as long as its longest lease, and goes once every lease expired', async (a) => {
      const r = await raw();
      try {
        const [tagged, plain] = [`{${uid('tok')}}:rt`, uid('plain')];
        assert.equal(leaseKey(tagged), `sy:lease:${tagged}`, 'a key with its own hash tag keeps it');
        assert.equal(leaseKey(plain), `sy:lease:{${plain}}`);
        // Leases of 1 s and 3 s: a second of calls on a loaded machine cannot blur which lease a TTL belongs to.
        assert.equal(await a.leases.acquire(tagged, 'short', 5, 1000), true);
        assert.equal(await a.leases.acquire(tagged, 'long', 5, 3000), true);
        const ttl = await r.client.pTTL(leaseKey(tagged));
        assert.ok(ttl > 2000 && ttl <= 3000, `ttl ${ttl}: the longest lease's`);
        await a.leases.release(tagged, 'long');
        const shorter = await r.client.pTTL(leaseKey(tagged));
        assert.ok(shorter > 0 && shorter <= 1000, `ttl ${shorter}: back to the remaining lease's`);
        assert.equal(await a.leases.acquire(plain, 'm', 1, 200), true);
        assert.equal(await r.client.exists(leaseKey(plain)), 1);
        await sleep(1050); // past both
        assert.equal(await r.client.exists(leaseKey(tagged)), 0, 'gone with its last lease, nobody sweeping');
        assert.equal(await r.client.exists(leaseKey(plain)), 0);
      } finally {
        await r.close();
      }
    });
  }
}

leasesContract('sqlite', sqliteMaker);
leasesContract('redis', redisMaker, {
  skip,
  raw: async () => {
    const { client } = await connectRedis(dbUri());
    return { client, close: () => client.close() };
  },
});
leasesContract('redis-cluster', clusterStoreMaker(() => cluster), {
  skip,
  raw: async () => {
    const conn = await connectRedis(cluster!.uri);
    return { client: conn.client, async close() { conn.watch?.stop(); await conn.client.close(); } };
  },
});

test('sqlite leases: prune deletes leases expired under keys nobody touches again, a bounded batch a call', async () => {
  const s = await sqliteMaker.fresh();
  try {
    const keys = [uid('a'), uid('b'), uid('c')];
    for (const k of keys) assert.equal(await s.leases.acquire(k, 'm', 1, 50), true);
    assert.equal(await s.leases.acquire(uid('live'), 'm', 1, 60_000), true);
    await sleep(100);
    assert.deepEqual(await s.leases.prune!(Date.now()), { dropped: 3, more: false }, 'the live lease stays');
    // Many abandoned rows: at most 5000 a call, `more` until done.
    const raw = openStateDb(stateFileFor(sqliteFile));
    const put = raw.prepare('INSERT INTO leases (key, member, expires_at) VALUES (?, ?, ?)');
    raw.transaction(() => { for (let i = 0; i < 6000; i++) put.run(`k${i % 100}`, `m${i}`, 1000 + i); })();
    raw.close();
    assert.deepEqual(await s.leases.prune!(Date.now()), { dropped: 5000, more: true });
    assert.deepEqual(await s.leases.prune!(Date.now()), { dropped: 1000, more: false });
    assert.equal(await s.leases.prune!(Date.now()).then((p) => p.dropped), 0);
  } finally {
    await s.close();
  }
});

// In one process better-sqlite3 runs each acquire whole, so the race above cannot interleave on SQLite: here six
// processes go through the same 3000 keys of limit 1 at once (without its immediate transaction, acquire fails this).
test('sqlite leases: processes racing on one file, each for every key of limit 1: one winner a key', { timeout: 60_000 }, async () => {
  const file = stateFileFor(join(mkdtempSync(join(tmpdir(), 'switchyard-leases-')), 'store.sqlite'));
  openStateDb(file).close(); // created once, before the racers
  const modules = { leases: new URL('../src/store/sqlite-leases.js', import.meta.url).href, state: new URL('../src/store/sqlite-state.js', import.meta.url).href };
  // Each racer says when it is loaded, then waits for the word to start: all six start together however slowly they load.
  const racer = `
    const { SqliteLeases } = await import(${JSON.stringify(modules.leases)});
    const { openStateDb } = await import(${JSON.stringify(modules.state)});
    const l = new SqliteLeases(openStateDb(${JSON.stringify(file)}));
    console.log('ready');
    await new Promise((r) => process.stdin.once('data', r));
    const won = [];
    for (let i = 0; i < 3000; i++) if (await l.acquire('k' + i, process.argv[1], 1, 60000)) won.push(i);
    console.log(JSON.stringify(won));
    process.stdin.destroy();`;
  const racers = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'].map((id) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', racer, id], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    return { child, exited, ready: until(`racer ${id} loaded`, () => out.startsWith('ready\n'), 30_000, 10), output: () => out };
  });
  await Promise.all(racers.map((r) => r.ready));
  for (const r of racers) r.child.stdin.write('go\n');
  assert.deepEqual(await Promise.all(racers.map((r) => r.exited)), [0, 0, 0, 0, 0, 0]);
  const winners = new Array<number>(3000).fill(0);
  for (const r of racers) for (const i of JSON.parse(r.output().split('\n')[1]) as number[]) winners[i]++;
  const wrong = winners.flatMap((n, i) => (n === 1 ? [] : [`k${i}: ${n} winners`]));
  assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of 3000 keys not won exactly once`);
});
