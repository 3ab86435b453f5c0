// Budget levels on the write-behind ledger (src/store/held-batch.ts): a flush writes a row per request on its first
// level (the token's) and one `spend` per budget level for all of them; a failed flush written again writes nothing
// twice; a process reclaimed while alive charges its unwritten spends late, capped, as it does its closes; durable
// reservations keep their rows on every level. Each level keeps balance = topups − charges (checkAccount).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HoldBackend } from '../src/store/hold-backend.js';
import { freshFile, levelsOf, openHeld, stored } from './helpers/quota-levels.js';
import { checkAccount } from './helpers/conservation.js';
import { eventually } from './helpers/stack.js';
import type { HeldProcess } from './helpers/quota-levels.js';

const accounts = [{ account: 'tok_a' }, { account: '~usr_a' }, { account: '~team_t@d1/usr_a' }, { account: '~team_t@d1' }];
const rowsOf = (p: HeldProcess, account: string) =>
  p.db.prepare("SELECT kind, amount, requests FROM quota_ledger WHERE account = ? AND kind != 'topup' ORDER BY rowid").all(account) as { kind: string; amount: number; requests: number | null }[];

/** Every account adds up, and its money (row and holds) is what the ledger says. */
async function conserved(p: HeldProcess): Promise<void> {
  for (const { account } of accounts) {
    const balance = (await p.q.balance(account))!;
    checkAccount(account, balance, await p.q.entries(account), []);
  }
}

test('a flush writes a row per request on the token\'s account and one spend per budget level, whatever the requests', async () => {
  const p = openHeld(freshFile(), { flushMs: 60_000 });
  for (const { account } of accounts) await p.q.createAccount(account, 10_000);
  for (let i = 0; i < 50; i++) {
    const levels = levelsOf(`r${i}`, accounts);
    assert.equal(await p.q.reserveLevels(levels, 100, 'request', { model: 'm' }), -1);
    if (i % 5 === 4) await p.q.refundLevels(levels, 100);
    else await p.q.settleLevels(levels, 100, 30 + i, { prompt_tokens: 7 });
  }
  p.q.flush();
  const charged = Array.from({ length: 50 }, (_, i) => (i % 5 === 4 ? 0 : 30 + i)).reduce((s, c) => s + c, 0);
  assert.equal(rowsOf(p, 'tok_a').length, 50, 'the token: a row per request');
  for (const { account } of accounts.slice(1)) assert.deepEqual(rowsOf(p, account), [{ kind: 'spend', amount: charged, requests: 50 }], account);
  for (const { account } of accounts) assert.equal(await p.q.balance(account), 10_000 - charged, account);
  assert.deepEqual([(await p.q.totals('tok_a')).requests, (await p.q.totals('~usr_a')).requests], [50, 0], 'usage on the token alone');
  await conserved(p);
  await p.q.close();
  for (const { account } of accounts) assert.deepEqual(stored(p.db, account), { row: 10_000 - charged, holds: [] }, account);
  p.db.close();
});

test('a flush that failed after its commit is written again as it was: nothing twice, on any level', async () => {
  const p = openHeld(freshFile(), { flushMs: 60_000 });
  for (const { account } of accounts) await p.q.createAccount(account, 1000);
  const holds = Reflect.get(p.q, 'holds') as HoldBackend;
  const commit = holds.commit.bind(holds);
  let failures = 1;
  holds.commit = (owner, batch, now) => {
    const ok = commit(owner, batch, now);
    if (failures-- > 0) throw new Error('disk I/O error (after the commit)');
    return ok;
  };
  assert.equal(await p.q.reserveLevels(levelsOf('r1', accounts), 100, 'request'), -1);
  await p.q.settleLevels(levelsOf('r1', accounts), 100, 40);
  p.q.flush();
  assert.equal(p.errors.length, 1, 'the flush failed');
  assert.equal(await p.q.reserveLevels(levelsOf('r2', accounts), 100, 'request'), -1);
  await p.q.settleLevels(levelsOf('r2', accounts), 100, 25);
  p.q.flush(); // the failed batch first, then r2's
  for (const { account } of accounts.slice(1)) assert.deepEqual(rowsOf(p, account).map((r) => r.amount), [40, 25], `${account}: each spend once`);
  for (const { account } of accounts) assert.equal(await p.q.balance(account), 1000 - 65, account);
  await conserved(p);
  await p.q.close();
  for (const { account } of accounts) assert.deepEqual(stored(p.db, account), { row: 1000 - 65, holds: [] }, account);
  p.db.close();
});

test('a process reclaimed while alive charges its unwritten spends from the accounts, capped, as its closes', async () => {
  const file = freshFile();
  const a = openHeld(file, { flushMs: 60_000 }); // stalled: no timer flush
  const levels = accounts.slice(0, 2);
  for (const { account } of levels) await a.q.createAccount(account, 100);
  for (const r of ['r1', 'r2']) assert.equal(await a.q.reserveLevels(levelsOf(r, levels), 10, 'request'), -1);
  await a.q.settleLevels(levelsOf('r1', levels), 10, 10);
  await new Promise((r) => setTimeout(r, 30));
  const b = openHeld(file, { staleMs: 20 });
  assert.equal(await b.q.reserveLevels(levelsOf('b1', levels), 95, 'request'), -1, 'a\'s holds were reclaimed: all 100 is back');
  await b.q.settleLevels(levelsOf('b1', levels), 95, 95);
  await b.q.close(); // 5 left on each level
  a.q.flush();
  await eventually(() => a.errors.some((m) => /reclaimed while this process was alive/.test(m)));
  await a.q.settleLevels(levelsOf('r2', levels), 10, 10); // closed after the reclaim: charged from the accounts
  a.q.flush();
  await a.q.close();
  for (const { account } of levels) {
    assert.equal(await a.ledger.balance(account), 0, `${account}: never below 0`);
    const entries = await a.ledger.entries(account);
    assert.deepEqual(entries.filter((e) => e.kind === 'late_charge').map((e) => e.amount), [5, 0], `${account}: r1 capped at what was left, r2 at nothing`);
    checkAccount(account, 0, entries, []);
  }
  a.db.close();
  b.db.close();
});

test('durable reservations keep a row per request on every level', async () => {
  const p = openHeld(freshFile(), { flushMs: 60_000 });
  for (const { account } of accounts) await p.q.createAccount(account, 1000);
  assert.equal(await p.q.reserveLevels(levelsOf('task', accounts), 100, 'durable'), -1);
  await p.q.settleLevels(levelsOf('task', accounts), 100, 60);
  for (const { account } of accounts) assert.deepEqual(rowsOf(p, account).map((r) => [r.kind, r.amount]), [['reserve', 100], ['settle', -40]], account);
  await conserved(p);
  await p.q.close();
  p.db.close();
});
