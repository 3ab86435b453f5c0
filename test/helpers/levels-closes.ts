// settleLevels and refundLevels on any ledger (issue 39): every level of a reservation closed in one call, each charged
// at most its own open reservation, a level closed before left as it was, repeats moving nothing, and each account's
// entries adding up (balance = topups − charges, each charge within [0, its reservation]). The Redis and SQLite level
// tests run it, then look at what their store keeps.
import assert from 'node:assert/strict';
import { levelRequest, type Level, type QuotaLedger } from '../../src/store/quota-ledger.js';
import { addsUp } from './levels-model.js';

/** A token's chain of levels: token, its day cap, wallet, member cap, team day budget. */
export const chain = (tok: string, usr: string, team: string) => [tok, `~${tok}@d1`, `~${usr}`, `~${team}@d1/${usr}`, `~${team}@d1`];
export const levelsOf = (accounts: string[], id: string): Level[] => accounts.map((account, i) => ({ account, request: levelRequest(id, account, i === 0) }));

/** Runs the scenario on fresh accounts named after `tag`; answers the accounts and the requests closed. */
export async function closesConserve(q: QuotaLedger, tag: string): Promise<{ accounts: string[]; requests: string[] }> {
  const accts = chain(`tok_${tag}`, `usr_${tag}`, `team_${tag}`);
  for (const a of accts) await q.createAccount(a, 1000);
  await q.topup(accts[2], 500, `gift_${tag}`);
  const balances = () => Promise.all(accts.map(async (a) => (await q.balance(a))!));

  // c1: the levels hold different amounts (reserved one by one): each is charged at most its own reservation.
  const c1 = levelsOf(accts, `${tag}c1`);
  const held = [100, 80, 60, 40, 20];
  for (const [i, l] of c1.entries()) assert.equal(await q.reserve(l.account, l.request, held[i], 'request', { user: `usr_${tag}` }), true);
  assert.deepEqual(await q.settleLevels(c1, 100, 70, { channel: 'ch', prompt_tokens: 5 }), { charged: 70, uncharged: 0 }, 'the first level\'s close');
  const charged1 = held.map((h) => Math.min(h, 70));
  // c2: taken at once, refunded at once. c3: charged above the reservation (the rest uncharged), c4: below 0 (nothing).
  const [c2, c3, c4] = [2, 3, 4].map((n) => levelsOf(accts, `${tag}c${n}`));
  for (const c of [c2, c3, c4]) assert.equal(await q.reserveLevels(c, 50, 'request'), -1);
  await q.refundLevels(c2, 50, { channel: 'ch' });
  assert.deepEqual(await q.settleLevels(c3, 50, 80), { charged: 50, uncharged: 30 });
  assert.deepEqual(await q.settleLevels(c4, 50, -5), { charged: 0, uncharged: 0 });
  // c5: one level refunded on its own first, then the whole reservation settled: that level stays refunded.
  const c5 = levelsOf(accts, `${tag}c5`);
  assert.equal(await q.reserveLevels(c5, 30, 'request'), -1);
  await q.refund(c5[2].account, c5[2].request, 30);
  assert.deepEqual(await q.settleLevels(c5, 30, 20), { charged: 20, uncharged: 0 });
  const charged5 = accts.map((_, i) => (i === 2 ? 0 : 20));
  const want = accts.map((_, i) => 1000 + (i === 2 ? 500 : 0) - charged1[i] - 50 - charged5[i]);
  assert.deepEqual(await balances(), want, 'balance = topups − charges on every level');

  // Repeats: each answers the first close (a refund: nothing charged) and moves nothing.
  assert.deepEqual(await q.settleLevels(c1, 100, 99), { charged: 70, uncharged: 0 });
  await q.refundLevels(c1, 100);
  assert.deepEqual(await q.settleLevels(c2, 50, 50), { charged: 0, uncharged: 0 });
  await q.refundLevels(c3, 50);
  assert.deepEqual(await q.settleLevels(c5, 30, 30), { charged: 20, uncharged: 0 });
  assert.deepEqual(await q.settleLevels(levelsOf(accts, `${tag}never`), 10, 10), { charged: 0, uncharged: 0 }, 'never reserved: nothing');
  assert.deepEqual(await q.settleLevels([], 10, 10), { charged: 0, uncharged: 0 }, 'no level: nothing');
  assert.deepEqual(await balances(), want, 'repeats moved nothing');
  for (const a of accts) addsUp(a, (await q.balance(a))!, await q.entries(a));
  return { accounts: accts, requests: [c1, c2, c3, c4, c5].flatMap((c) => c.map((l) => l.request)) };
}
