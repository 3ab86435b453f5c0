// The Redis store against the same QuotaLedger, TaskIndex and TaskCatalog contracts as SQLite, on a real redis-server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import { openStore } from '../src/store/open-store.js';
import { catalogContract, quotaContract, recoveryContract, taskIndexContract, type StoreMaker } from './helpers/store-contract.js';
import { redisSkip, startRedis, type RedisServer } from './helpers/redis.js';

const skip = redisSkip('the Redis store tests');

let redis: RedisServer | undefined;
before(async () => { if (!skip) redis = await startRedis(); });
after(async () => { await redis?.stop(); });

/** `quotaFlushMs` 0: every quota movement written through, instead of the request holds of the default. */
function sqliteMaker(quotaFlushMs?: number): StoreMaker {
  let uri = '';
  return {
    async fresh() {
      uri = `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-contract-')), 'store.sqlite')}`;
      return openStore(uri, { quotaFlushMs });
    },
    again: () => openStore(uri, { quotaFlushMs }),
  };
}

/** Each test gets its own emptied database number, so claims and counts see only that test's tasks. */
function redisMaker(): StoreMaker {
  let db = 0;
  const uri = () => `${redis!.uri}/${db}`;
  return {
    async fresh() {
      db = (db % 15) + 1;
      const c = createClient({ url: uri() });
      await c.connect();
      await c.flushDb();
      await c.close();
      return openStore(uri());
    },
    again: () => openStore(uri()),
  };
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
