// Closing a reservation across levels on the write-through SQLite ledger (issue 39): settleLevels and refundLevels in
// one transaction, each level charged at most its own reservation, repeats moving nothing, and the seeded model-based
// property of the Redis levels tests (test/redis-quota-levels.test.ts) on SQLite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { openStore, type Store } from '../src/store/open-store.js';
import { SqliteQuotaLedger } from '../src/store/sqlite-quota.js';
import { closesConserve } from './helpers/levels-closes.js';
import { levelsProperty } from './helpers/levels-model.js';

async function withStore(fn: (s: Store) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-levels-'));
  const s = await openStore(`sqlite://${join(dir, 'store.sqlite')}`, { quotaFlushMs: 0 });
  try { await fn(s); } finally { await s.close(); }
}

test('sqlite levels: settleLevels and refundLevels close every level at once, each within its own reservation; repeats move nothing', async () => {
  await withStore(async (s) => {
    assert.ok(s.quota instanceof SqliteQuotaLedger, 'write-through');
    const { accounts } = await closesConserve(s.quota, 'sq');
    assert.deepEqual(await s.quota.openOf(s.instance), [], 'no reservation left open');
    const rows = await s.quota.usage({ from: Date.now() - 3_600_000, to: Date.now() + 3_600_000, groupBy: 'token' });
    assert.deepEqual(rows.map((r) => [r.key, r.requests, r.charged, r.uncharged, r.prompt_tokens]), [['tok_sq', 5, 70 + 50 + 20, 30, 5]], 'once per request, on its token');
    for (const a of accounts.slice(1)) assert.equal((await s.quota.totals(a)).requests, 0, `${a}: no totals`);
  });
});

test('sqlite levels: a seeded property: reserveLevels, closes level by level or all at once, repeats and topups match a model (seed 39, 60 runs)', { timeout: 120_000 }, async () => {
  await withStore(async (s) => {
    const figures = { reserves: 0, refused: 0, closes: 0 };
    await fc.assert(levelsProperty(() => s.quota, figures), { seed: 39, numRuns: 60, endOnFailure: true });
    console.log(`levels property (sqlite): ${figures.reserves} reserveLevels (${figures.refused} refused), ${figures.closes} closes across levels`);
  });
});
