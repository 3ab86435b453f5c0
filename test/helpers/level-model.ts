// A model of money across levels, run against a Rig (quota-levels.ts) through random sequences of reservations,
// settles, refunds, repeats, topups, flushes and crashes on 1-4 accounts, each checked or unchecked for the whole run.
// After every step each account's money neither charged nor reserved is what the model says; at the end of a run,
// every written charge is the settle's, in [0, reservation], and row + holds = topups − charges (− reservations
// written through and still open) for every account. Written behind, a budget level (`~lvl…`) keeps no row per request
// but one `spend` per flush (src/store/held-batch.ts): its closes are counted there, in the order they were made.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { clampCharge, type Level } from '../../src/store/quota-ledger.js';
import { levelsOf, stored, type Rig } from './quota-levels.js';

interface Account { name: string; checked: boolean; topups: number }
interface Reservation { p: number; levels: Level[]; accounts: number[]; amount: number }
/** A close's charge on one level (0 for a refund); `written` once the ledger has it, dropped when its process died before writing it. */
interface Charge { p: number; request: string; account: number; charged: number; written: boolean }

const pick = fc.nat({ max: 1000 });
const action = fc.oneof(
  // Half of the reservations are on every level there is.
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('reserve' as const), p: fc.nat(1), mask: fc.oneof(fc.constant(15), fc.integer({ min: 1, max: 14 })), amount: fc.integer({ min: 0, max: 60 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('settle' as const), pick, actual: fc.integer({ min: -10, max: 80 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('repeat' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('topup' as const), account: fc.nat(3), amount: fc.integer({ min: 1, max: 100 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('flush' as const), p: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), p: fc.nat(1) }) },
);
type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;

export const levelRun = fc.record({
  accounts: fc.array(fc.record({ checked: fc.boolean(), initial: fc.integer({ min: 0, max: 120 }) }), { minLength: 1, maxLength: 4, size: 'max' }),
  actions: fc.array(action, { maxLength: 40, size: 'max' }),
});
export type LevelRun = typeof levelRun extends fc.Arbitrary<infer R> ? R : never;

export async function runLevels(rig: Rig, run: LevelRun): Promise<void> {
  const accounts: Account[] = run.accounts.map((a, i) => ({ name: i ? `~lvl${i}` : 'tok_model', checked: a.checked, topups: a.initial }));
  for (const a of accounts) await rig.procs[0].createAccount(a.name, a.topups);
  const open: Reservation[] = [];
  const charges: Charge[] = [];
  const reservedOn = (i: number) => open.reduce((s, r) => s + (r.accounts.includes(i) ? r.amount : 0), 0);
  const chargedOn = (i: number) => charges.reduce((s, c) => s + (c.account === i ? c.charged : 0), 0);
  const modelAvailable = (i: number) => accounts[i].topups - chargedOn(i) - reservedOn(i);
  const written = (request: string) => rig.db.prepare('SELECT 1 FROM quota_ledger WHERE entry = ?').get(`${request}:close`) !== undefined;
  /**
   * How many closes of process p on account i the ledger has: those with a row of their own, and those a spend of its
   * owner sums (a flush writes a prefix of its closes, so they are its first ones on the account).
   */
  const spendCount = (owner: string, i: number) => rig.db.prepare("SELECT COALESCE(SUM(requests), 0) FROM quota_ledger WHERE kind = 'spend' AND held_by = ? AND account = ?")
    .pluck().get(owner, accounts[i].name) as number;
  const closesOf = (p: number, i: number) => charges.filter((c) => c.p === p && c.account === i);
  const markWritten = (p: number, owner: string) => {
    for (let i = 0; i < accounts.length; i++) {
      const summed = spendCount(owner, i);
      for (const [n, c] of closesOf(p, i).entries()) if (n < summed || written(c.request)) c.written = true;
    }
  };

  for (const [k, a] of run.actions.entries()) {
    await step(a, k);
    for (const [i, acct] of accounts.entries()) {
      assert.equal(await rig.available(acct.name), modelAvailable(i), `after step ${k} (${a.kind}): ${acct.name}`);
      if (!acct.checked) continue;
      assert.ok(modelAvailable(i) >= 0, `${acct.name} (checked) below 0 after step ${k}`);
      const s = stored(rig.db, acct.name);
      assert.ok(s.row >= 0 && s.holds.every((h) => h >= 0), `${acct.name} (checked) stored below 0: ${JSON.stringify(s)}`);
    }
  }
  for (let p = 0; p < rig.procs.length; p++) {
    rig.flush(p);
    markWritten(p, rig.owner(p));
  }
  for (const c of charges) assert.ok(c.written, `a live process's close of ${c.request} was written`);
  for (const [i, acct] of accounts.entries()) await checkLedger(rig, acct, charges.filter((c) => c.account === i));

  async function step(a: Action, k: number): Promise<void> {
    if (a.kind === 'reserve') {
      const chosen = accounts.map((_, i) => i).filter((i) => a.mask & (1 << i));
      const idx = chosen.length ? chosen : [a.mask % accounts.length];
      const levels = levelsOf(`r${k}`, idx.map((i) => ({ account: accounts[i].name, unchecked: !accounts[i].checked })));
      const expected = idx.findIndex((i) => accounts[i].checked && modelAvailable(i) < a.amount);
      assert.equal(await rig.procs[a.p].reserveLevels(levels, a.amount, 'request', { model: 'm' }), expected, `reserve r${k}`);
      if (expected < 0) open.push({ p: a.p, levels, accounts: idx, amount: a.amount });
    } else if (a.kind === 'settle' || a.kind === 'refund') {
      if (!open.length) return;
      const [r] = open.splice(a.pick % open.length, 1);
      for (const [j, l] of r.levels.entries()) {
        if (a.kind === 'refund') {
          await rig.procs[r.p].refund(l.account, l.request, r.amount);
          charges.push({ p: r.p, request: l.request, account: r.accounts[j], charged: 0, written: false });
          continue;
        }
        const settled = await rig.procs[r.p].settle(l.account, l.request, r.amount, a.actual);
        assert.deepEqual(settled, clampCharge(r.amount, a.actual), `settle of ${l.request}`);
        charges.push({ p: r.p, request: l.request, account: r.accounts[j], charged: settled.charged, written: false });
      }
    } else if (a.kind === 'repeat') {
      if (!open.length) return;
      const r = open[a.pick % open.length];
      assert.equal(await rig.procs[r.p].reserveLevels(r.levels, r.amount, 'request'), -1, 'a repeat is a no-op');
    } else if (a.kind === 'topup') {
      const i = a.account % accounts.length;
      assert.equal(await rig.procs[0].topup(accounts[i].name, a.amount, `t${k}`), true);
      accounts[i].topups += a.amount;
    } else if (a.kind === 'flush') {
      rig.flush(a.p);
    } else {
      const owner = rig.owner(a.p);
      await rig.crash(a.p);
      // Its reservations die with it (refunded); of its closes, those it had not written are forgiven.
      for (let j = open.length - 1; j >= 0; j--) if (open[j].p === a.p) open.splice(j, 1);
      markWritten(a.p, owner);
      for (let j = charges.length - 1; j >= 0; j--) if (charges[j].p === a.p && !charges[j].written) charges.splice(j, 1);
      for (const c of charges) if (c.p === a.p) c.p = -1; // the dead process's: no longer its to write
    }
  }
}

/**
 * The ledger explains the account: its topups, each closed request's charge (the settle's), the spends of a budget
 * level (the charges of its closes, summed per flush), and what is still reserved in it.
 */
async function checkLedger(rig: Rig, acct: Account, charges: Charge[]): Promise<void> {
  const entries = await rig.ledger.entries(acct.name);
  const byRequest = new Map<string, { reserved?: number; close?: number }>();
  let topups = 0;
  const spent = { charged: 0, requests: 0 };
  for (const e of entries) {
    if (e.kind === 'topup') { topups -= e.amount; continue; }
    if (e.kind === 'spend') {
      assert.ok(acct.name.startsWith('~') && e.amount >= 0 && e.requests! > 0, `${e.entry}: a budget level's spend, of one close or more: ${e.amount}, ${e.requests}`);
      spent.charged += e.amount;
      spent.requests += e.requests!;
      continue;
    }
    const r = byRequest.get(e.request) ?? {};
    if (e.kind === 'reserve') r.reserved = e.amount;
    else r.close = e.amount;
    byRequest.set(e.request, r);
  }
  assert.equal(topups, acct.topups, `${acct.name}: topups`);
  const want = new Map(charges.map((c) => [c.request, c.charged]));
  let charged = spent.charged;
  let closes = spent.requests;
  let stillReserved = 0;
  for (const [request, r] of byRequest) {
    assert.ok(r.reserved !== undefined, `${request}: a close without its reservation`);
    if (r.close === undefined) { stillReserved += r.reserved; continue; } // written through, still open
    const c = r.reserved + r.close;
    assert.ok(c >= 0 && c <= r.reserved, `${request}: charged ${c} of ${r.reserved}`);
    assert.equal(c, want.get(request) ?? 0, `${request}: the settle's charge (0 for a refund)`);
    charged += c;
    if (want.has(request)) closes++; // not a refund by recovery (written through: a dead process's reservations)
  }
  assert.equal(charged, charges.reduce((s, c) => s + c.charged, 0), `${acct.name}: every charge written`);
  assert.equal(closes, charges.length, `${acct.name}: every close written, once`);
  const s = stored(rig.db, acct.name);
  assert.equal(s.row + s.holds.reduce((x, y) => x + y, 0), topups - charged - stillReserved, `${acct.name}: row + holds = topups − charges`);
}
