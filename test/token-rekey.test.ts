// A token's new key (rotation): the same record under a new hash, the old key gone; and a revoke racing it, whose
// write of the old key's record comes back after the rekey, still leaves the token revoked and listed once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store/open-store.js';
import { TokenStore, type TokenRecord } from '../src/store/token-store.js';

test('rekey keeps the token and drops the old key; a revoke that read the old key still revokes the new one', async () => {
  const store = await openStore(`sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-rekey-')), 'store.sqlite')}`, { quotaFlushMs: 0 });
  try {
    const tokens = new TokenStore(store, 0);
    const { key, record } = await tokens.create({ group: 'default', quota: 0, cap: 500, name: 'ci' });
    const done = (await tokens.rekey(record.id))!;
    assert.equal(done.record.id, record.id);
    assert.equal(done.record.cap, 500);
    assert.equal(await tokens.authenticate(key), undefined);
    assert.equal((await tokens.authenticate(done.key))?.id, record.id);
    assert.equal((await store.quota.balance(record.id)), 500, 'the same account');

    // A revoke that read the record before the rekey: it writes the old key's record back, revoked.
    const kv = store.kv('tokens');
    await kv.set(`key:${record.hash}`, { ...record, revoked: true } satisfies TokenRecord);
    await tokens.revoke(record.id);
    assert.equal(await tokens.authenticate(done.key), undefined);
    const listed = (await tokens.list()).filter((t) => t.id === record.id);
    assert.equal(listed.length, 1);
    assert.equal(listed[0].revoked, true);
    assert.equal(await tokens.rekey(record.id), undefined, 'a revoked token gets no new key');
  } finally {
    await store.close();
  }
});
