// Reservations across levels (issue 39) against a model, step by step: random reserveLevels, repeats, settles, refunds
// (level by level, all at once with settleLevels/refundLevels, or one level alone and then all), closes repeated, and
// topups on a chain of five accounts (a token, its cap for the day, a wallet, a member's cap, a team's budget), a
// request taking 1 to 4 of them in that order. The model says what each call answers and every balance after it;
// at the end each account's own entries must add up.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { clampCharge, levelRequest, type Level, type LedgerEntry, type QuotaLedger } from '../../src/store/quota-ledger.js';

/** How a close goes: each level on its own, all at once, or the last level alone and then all (a repeat for it). */
type Way = 'each' | 'all' | 'split';
type Step =
  | { op: 'reserve'; picks: number[]; amount: number }
  | { op: 'repeat'; which: number }
  | { op: 'refund'; which: number; way: Way }
  | { op: 'settle'; which: number; actual: number; way: Way }
  | { op: 'reclose'; which: number; actual: number }
  | { op: 'topup'; account: number; amount: number };

const which = fc.nat(50);
const way = fc.constantFrom<Way>('each', 'all', 'split');
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('reserve' as const), picks: fc.subarray([0, 1, 2, 3, 4], { minLength: 1, maxLength: 4 }), amount: fc.nat(120) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('repeat' as const), which }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('settle' as const), which, actual: fc.integer({ min: -10, max: 160 }), way }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('refund' as const), which, way }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reclose' as const), which, actual: fc.integer({ min: -10, max: 160 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('topup' as const), account: fc.nat(4), amount: fc.nat(100) }) },
);
const run = fc.record({
  initial: fc.array(fc.nat(300), { minLength: 5, maxLength: 5 }),
  unchecked: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
  steps: fc.array(step, { minLength: 5, maxLength: 40 }),
});

const chain = (id: string) => [`tok_p${id}`, `~tok_p${id}@d1`, `~usr_q${id}`, `~team_r${id}@d1/usr_q${id}`, `~team_r${id}@d1`];
/** `charged`: what the close charged each level (all the same: they reserved the same amount). */
type Taken = { levels: Level[]; amount: number; open: boolean; charged?: number };

/** `figures` counts what the runs did, for the test's line. */
export function levelsProperty(q: () => QuotaLedger, figures = { reserves: 0, refused: 0, closes: 0 }) {
  let runs = 0;
  return fc.asyncProperty(run, async ({ initial, unchecked, steps }) => {
    const ledger = q();
    const run = `${process.pid}x${runs++}`;
    const accounts = chain(run);
    const bal = new Map<string, number>();
    for (const [i, a] of accounts.entries()) {
      await ledger.createAccount(a, initial[i]);
      bal.set(a, initial[i]);
    }
    const taken: Taken[] = [];
    /** `actual` undefined: a refund. */
    const close = async (r: Taken, way: Way, actual?: number) => {
      const charged = actual === undefined ? 0 : clampCharge(r.amount, actual).charged;
      await closeAs(ledger, r, way, actual, charged);
      for (const l of r.levels) bal.set(l.account, bal.get(l.account)! + r.amount - charged);
      r.open = false;
      r.charged = charged;
      figures.closes++;
    };
    for (const [n, s] of steps.entries()) {
      const open = taken.filter((r) => r.open);
      if (s.op === 'reserve') {
        const id = `rq${run}_${n}`; // unique in the store: SQLite keys entries by request id alone
        const levels = s.picks.map((p, i) => ({ account: accounts[p], request: levelRequest(id, accounts[p], i === 0), unchecked: unchecked[p] || undefined }));
        const want = levels.findIndex((l) => !l.unchecked && bal.get(l.account)! < s.amount);
        assert.equal(await ledger.reserveLevels(levels, s.amount, 'request', { user: 'u', model: 'm', route: 'chat' }), want, `step ${n}: ${JSON.stringify(s)}`);
        figures.reserves++;
        if (want >= 0) figures.refused++;
        else {
          for (const l of levels) bal.set(l.account, bal.get(l.account)! - s.amount);
          taken.push({ levels, amount: s.amount, open: true });
        }
      } else if (s.op === 'repeat' && taken.length) {
        const r = taken[s.which % taken.length];
        assert.equal(await ledger.reserveLevels(r.levels, r.amount, 'request'), -1, `step ${n}: a repeat answers taken`);
      } else if (s.op === 'settle' && open.length) await close(open[s.which % open.length], s.way, s.actual);
      else if (s.op === 'refund' && open.length) await close(open[s.which % open.length], s.way);
      else if (s.op === 'reclose' && taken.some((r) => !r.open)) {
        const r = taken.filter((t) => !t.open)[s.which % taken.filter((t) => !t.open).length];
        assert.equal((await ledger.settleLevels(r.levels, r.amount, s.actual)).charged, r.charged, `step ${n}: a repeated close answers the first`);
        await ledger.refundLevels(r.levels, r.amount);
      }
      else if (s.op === 'topup') {
        await ledger.topup(accounts[s.account], s.amount, `t${run}_${n}`);
        bal.set(accounts[s.account], bal.get(accounts[s.account])! + s.amount);
      }
      for (const [i, a] of accounts.entries()) {
        const b = (await ledger.balance(a))!;
        assert.equal(b, bal.get(a), `step ${n} (${s.op}): ${a}`);
        if (!unchecked[i]) assert.ok(b >= 0, `step ${n}: checked level ${a} below 0`);
      }
    }
    for (const r of taken.filter((t) => t.open)) await close(r, 'all');
    for (const a of accounts) addsUp(a, (await ledger.balance(a))!, await ledger.entries(a));
  });
}

/** Closes `r` the given way; each answer must say `charged`. */
async function closeAs(ledger: QuotaLedger, r: Taken, way: Way, actual: number | undefined, charged: number): Promise<void> {
  const one = async (l: Level) => {
    if (actual === undefined) return ledger.refund(l.account, l.request, r.amount);
    assert.equal((await ledger.settle(l.account, l.request, r.amount, actual)).charged, charged);
  };
  if (way === 'each') for (const l of r.levels) await one(l);
  else {
    if (way === 'split') await one(r.levels.at(-1)!);
    if (actual === undefined) await ledger.refundLevels(r.levels, r.amount);
    else assert.equal((await ledger.settleLevels(r.levels, r.amount, actual)).charged, charged);
  }
}

/** balance = topups − charges, from the account's own entries, each request's charge within [0, its reservation]. */
export function addsUp(account: string, balance: number, entries: LedgerEntry[]): void {
  const topups = entries.filter((e) => e.kind === 'topup').reduce((s, e) => s - e.amount, 0);
  const byRequest = new Map<string, LedgerEntry[]>();
  for (const e of entries) if (e.kind !== 'topup') byRequest.set(e.request, [...(byRequest.get(e.request) ?? []), e]);
  let charges = 0;
  for (const [request, es] of byRequest) {
    const reserve = es.find((e) => e.kind === 'reserve');
    assert.ok(reserve && es.length === 2, `${account} ${request}: one reserve and one close (${es.map((e) => e.kind)})`);
    const charge = es.reduce((s, e) => s + e.amount, 0);
    assert.ok(charge >= 0 && charge <= reserve.amount, `${account} ${request}: charge ${charge} within [0, ${reserve.amount}]`);
    charges += charge;
  }
  assert.equal(balance, topups - charges, `${account}: balance = topups − charges`);
}
