// Reservations across levels (issue 39, docs/contributors/money-levels.md) in the write-behind quota (HeldQuota) and
// written through (SqliteQuotaLedger): all or nothing, the refusing level's index, repeats, unchecked levels, two
// processes racing, crashes, and a seeded property over random sequences on both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { openStateDb } from '../src/store/sqlite-state.js';
import { SqliteQuotaLedger } from '../src/store/sqlite-quota.js';
import type { QuotaLedger } from '../src/store/quota-ledger.js';
import { freshFile, heldRig, levelsOf, openHeld, stored, total, writeThroughRig } from './helpers/quota-levels.js';
import { levelRun, runLevels } from './helpers/level-model.js';

const seed = Number(process.env.QUOTA_LEVELS_SEED ?? 39);
const runs = Number(process.env.QUOTA_LEVELS_RUNS ?? 60);

const tok = { account: 'tok_a' };
const wallet = { account: '~usr_a' };
const team = { account: '~team_t@d2026-11-29' };

/** Each ledger a request can reserve on, with a way to end it: write-behind (one process) and written through. */
const ledgers: [string, (file: string) => { q: QuotaLedger; close(): Promise<void> }][] = [
  ['write-behind', (file) => { const p = openHeld(file, { flushMs: 60_000 }); return { q: p.q, close: async () => { await p.q.close(); p.db.close(); } }; }],
  ['written through', (file) => { const db = openStateDb(file); return { q: new SqliteQuotaLedger(db), close: async () => { db.close(); } }; }],
];

const balances = (q: QuotaLedger, accounts: { account: string }[]) => Promise.all(accounts.map((a) => q.balance(a.account)));

for (const [kind, make] of ledgers) {
  test(`${kind}: a level that cannot cover it refuses with its index, and nothing moves on any level`, async () => {
    const { q, close } = make(freshFile());
    await q.createAccount(tok.account, 100);
    await q.createAccount(wallet.account, 50);
    await q.createAccount(team.account, 30);
    assert.equal(await q.reserveLevels(levelsOf('r1', [tok, wallet, team]), 40, 'request'), 2, 'the last level refuses');
    assert.equal(await q.reserveLevels(levelsOf('r2', [tok, team, wallet]), 40, 'request'), 1);
    assert.equal(await q.reserveLevels(levelsOf('r3', [tok, wallet, team]), 120, 'request'), 0);
    assert.equal(await q.reserveLevels(levelsOf('r4', [tok, { account: '~usr_nobody' }]), 1, 'request'), 1, 'no such account');
    assert.equal(await q.reserveLevels(levelsOf('r5', [tok, { account: '~usr_nobody', unchecked: true }]), 1, 'request'), 1, 'not even unchecked');
    assert.deepEqual(await balances(q, [tok, wallet, team]), [100, 50, 30]);
    assert.equal(await q.reserveLevels(levelsOf('r6', [tok, wallet, team]), 30, 'request'), -1);
    assert.deepEqual(await balances(q, [tok, wallet, team]), [70, 20, 0]);
    assert.equal(await q.reserveLevels(levelsOf('r6', [tok, wallet, team]), 30, 'request'), -1, 'a repeat');
    assert.equal(await q.reserve(tok.account, 'r6', 30, 'request'), true, 'a repeat of the first level alone');
    assert.deepEqual(await balances(q, [tok, wallet, team]), [70, 20, 0], 'a repeat moves nothing');
    assert.equal(await q.reserveLevels(levelsOf('r7', [tok, wallet, team]), 1, 'request'), 2);
    for (const l of levelsOf('r6', [tok, wallet, team])) await q.settle(l.account, l.request, 30, 12);
    assert.deepEqual(await balances(q, [tok, wallet, team]), [88, 38, 18]);
    const moves = async () => Promise.all([tok, wallet, team].map(async (a) => (await q.entries(a.account)).filter((e) => e.kind !== 'topup')));
    const moved = await moves(); // written (a write-behind ledger flushes first)
    for (const [i, l] of levelsOf('r6', [tok, wallet, team]).entries()) {
      // Written behind, a budget level keeps the charges of a flush's closes summed: one spend, of one request here.
      const want = kind === 'write-behind' && i > 0 ? ['spend:12:1'] : [`${l.request}:reserve:30`, `${l.request}:settle:-18`];
      const got = moved[i].map((e) => (e.kind === 'spend' ? `spend:${e.amount}:${e.requests}` : `${e.request}:${e.kind}:${e.amount}`));
      assert.deepEqual(got, want, 'only the reservation taken, under its level\'s request');
    }
    for (const l of levelsOf('r6', [tok, wallet, team])) await q.settle(l.account, l.request, 30, 30);
    await q.refundLevels(levelsOf('r6', [tok, wallet, team]), 30);
    assert.deepEqual(await balances(q, [tok, wallet, team]), [88, 38, 18], 'a close repeated once written moves nothing, on any level');
    assert.deepEqual(await moves(), moved, 'nor writes anything');
    await close();
  });

  test(`${kind}: unchecked levels never refuse; they go below 0, settle and refund level by level, and conserve`, async () => {
    const { q, close } = make(freshFile());
    await q.createAccount(tok.account, 100);
    await q.createAccount(wallet.account, 0);
    const levels = (id: string) => levelsOf(id, [tok, { ...wallet, unchecked: true }]);
    assert.equal(await q.reserveLevels(levels('a'), 30, 'request'), -1);
    assert.equal(await q.reserveLevels(levels('b'), 30, 'request'), -1);
    assert.deepEqual(await balances(q, [tok, wallet]), [40, -60]);
    const [a0, a1] = levels('a');
    const [b0, b1] = levels('b');
    assert.deepEqual(await q.settle(a0.account, a0.request, 30, 25), { charged: 25, uncharged: 0 });
    assert.deepEqual(await q.settle(a1.account, a1.request, 30, 99), { charged: 30, uncharged: 69 }, 'never above its reservation');
    await q.refund(b0.account, b0.request, 30);
    assert.deepEqual(await q.settle(b1.account, b1.request, 30, 7), { charged: 7, uncharged: 0 }, 'each level closes on its own');
    assert.deepEqual(await balances(q, [tok, wallet]), [75, -37]);
    assert.equal(await q.reserveLevels(levels('c'), 80, 'request'), 0, 'the checked level still bounds it');
    for (const a of [tok, wallet]) {
      const entries = await q.entries(a.account);
      assert.equal(-entries.reduce((s, e) => s + e.amount, 0), await q.balance(a.account), `${a.account}: the ledger explains the balance`);
    }
    await close();
  });
}

test('write-behind: an unchecked level\'s hold goes below 0 once written, and the account takes the debt back with it', async () => {
  const file = freshFile();
  const a = openHeld(file, { flushMs: 60_000 });
  await a.q.createAccount(wallet.account, 10);
  const levels = levelsOf('r', [{ ...wallet, unchecked: true }]);
  assert.equal(await a.q.reserveLevels(levels, 40, 'request'), -1);
  await a.q.settle(wallet.account, 'r', 40, 40);
  a.q.flush();
  assert.deepEqual(stored(a.db, wallet.account), { row: 10, holds: [-40] }, 'no slice was taken: the hold holds the debt');
  assert.equal(await a.q.balance(wallet.account), -30);
  await a.q.close();
  assert.deepEqual(stored(a.db, wallet.account), { row: -30, holds: [] });
  a.db.close();
});

test('two processes racing N reservations against a wallet that covers k: exactly k served, no level overdrawn', async () => {
  const file = freshFile();
  const a = openHeld(file);
  const b = openHeld(file);
  await a.q.createAccount(tok.account, 0);
  await a.q.createAccount(team.account, 1000);
  await a.q.createAccount(wallet.account, 100);
  // The token unchecked, the wallet (checked) last: the level that runs out is the last one.
  const levels = (id: string) => levelsOf(id, [{ ...tok, unchecked: true }, team, wallet]);
  assert.equal(await a.q.reserveLevels(levels('first'), 10, 'request'), -1); // a holds slices now
  for (const l of levels('first')) await a.q.settle(l.account, l.request, 10, 10);
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).q.reserveLevels(levels(`c${i}`), 10, 'request')));
  assert.equal(results.filter((r) => r === -1).length, 9, `90 left in the wallet, 10 each: ${results}`);
  assert.ok(results.every((r) => r === -1 || r === 2), `only the wallet refuses: ${results}`);
  for (const [i, r] of results.entries()) if (r === -1) for (const l of levels(`c${i}`)) await (i % 2 ? a : b).q.settle(l.account, l.request, 10, 10);
  await a.q.close();
  await b.q.close();
  assert.deepEqual([tok, team, wallet].map((x) => stored(a.db, x.account)), [{ row: -100, holds: [] }, { row: 900, holds: [] }, { row: 0, holds: [] }]);
  for (const x of [tok, team, wallet]) assert.equal((await a.ledger.entries(x.account)).reduce((s, e) => s + e.amount, 0) + total(a.db, x.account), 0, `${x.account}: the ledger explains it`);
  a.db.close();
  b.db.close();
});

test('a process that dies holding levels: its holds are reclaimed and every level keeps topups − written charges', async () => {
  const file = freshFile();
  const setup = openHeld(file);
  await setup.q.createAccount(tok.account, 1000);
  await setup.q.createAccount(wallet.account, 0);
  await setup.q.createAccount(team.account, 500);
  setup.db.close();
  // A real process: reserves four on three levels (the wallet unchecked), settles two (written), one more (not), dies.
  const mod = (f: string) => JSON.stringify(new URL(`../src/store/${f}`, import.meta.url).href);
  const child = `
    import { openStateDb } from ${mod('sqlite-state.js')};
    import { SqliteQuotaLedger } from ${mod('sqlite-quota.js')};
    import { SqliteHolds } from ${mod('sqlite-holds.js')};
    import { HeldQuota } from ${mod('held-quota.js')};
    import { levelRequest } from ${mod('quota-ledger.js')};
    const db = openStateDb(${JSON.stringify(file)});
    const l = new SqliteQuotaLedger(db);
    const q = new HeldQuota(l, new SqliteHolds(db, l.rollup), { flushMs: 60000, staleMs: 15000, idleMs: 10000, onError() {} });
    const levels = (id) => ${JSON.stringify([tok, { ...wallet, unchecked: true }, team])}.map((a, i) => ({ ...a, request: levelRequest(id, a.account, i === 0) }));
    for (const r of ['x1', 'x2', 'x3', 'x4']) if (await q.reserveLevels(levels(r), 100, 'request') !== -1) throw new Error('refused');
    const settle = async (r, c) => { for (const v of levels(r)) await q.settle(v.account, v.request, 100, c); };
    await settle('x1', 30);
    await settle('x2', 20);
    q.flush();
    await settle('x3', 40);
    process.kill(process.pid, 'SIGKILL');`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', child], { cwd: fileURLToPath(new URL('.', import.meta.url)) });
  assert.equal(r.signal, 'SIGKILL', r.stderr.toString());
  const after = openHeld(file);
  assert.ok(stored(after.db, tok.account).holds.length > 0, 'the dead process still holds its slices');
  after.q.begin(); // a process's start reclaims what dead owners on this host held
  for (const x of [tok, wallet, team]) assert.deepEqual(stored(after.db, x.account).holds, [], `${x.account}: reclaimed`);
  assert.deepEqual([tok, wallet, team].map((x) => stored(after.db, x.account).row), [950, -50, 450], 'x1 and x2 charged on every level; x3 forgiven; x4 refunded');
  for (const x of [tok, wallet, team]) {
    const entries = await after.ledger.entries(x.account);
    assert.equal(entries.reduce((s, e) => s + e.amount, 0), -stored(after.db, x.account).row, `${x.account}: the ledger explains it`);
    if (x === tok) assert.deepEqual(entries.filter((e) => e.kind === 'settle').map((e) => e.request), ['x1', 'x2'], 'a row per request on the first level');
    else assert.deepEqual(entries.filter((e) => e.kind !== 'topup').map((e) => [e.kind, e.amount, e.requests]), [['spend', 50, 2]], `${x.account}: x1 and x2 in the flush's one spend`);
  }
  await after.q.close();
  after.db.close();
});

test('durable levels are written through in one transaction, after this process\'s own free slice of the refusing level goes back', async () => {
  const file = freshFile();
  const a = openHeld(file);
  await a.q.createAccount(tok.account, 100);
  await a.q.createAccount(wallet.account, 60);
  assert.equal(await a.q.reserveLevels(levelsOf('r', [tok, wallet]), 10, 'request'), -1);
  for (const l of levelsOf('r', [tok, wallet])) await a.q.refund(l.account, l.request, 10);
  assert.ok(stored(a.db, wallet.account).row < 60, 'a holds a slice of the wallet');
  assert.equal(await a.q.reserveLevels(levelsOf('task', [tok, wallet]), 61, 'durable'), 1, 'more than the wallet has');
  assert.deepEqual(await balances(a.q, [tok, wallet]), [100, 60], 'nothing moved');
  assert.equal(await a.q.reserveLevels(levelsOf('task', [tok, wallet]), 60, 'durable'), -1, 'all the wallet has, its slice included');
  for (const l of levelsOf('task', [tok, wallet])) assert.equal((await a.q.reservationOf(l.request))?.scope, 'durable', 'written at once');
  assert.deepEqual(await balances(a.q, [tok, wallet]), [40, 0]);
  for (const l of levelsOf('task', [tok, wallet])) await a.q.settle(l.account, l.request, 60, 45);
  await a.q.close();
  assert.deepEqual([tok, wallet].map((x) => stored(a.db, x.account)), [{ row: 55, holds: [] }, { row: 15, holds: [] }]);
  a.db.close();
});

test(`property, write-behind (two processes, crashes): every level conserved, never below 0 when checked (${runs} runs, seed ${seed})`, { timeout: 300_000 }, async () => {
  await fc.assert(fc.asyncProperty(levelRun, async (run) => {
    const rig = heldRig(freshFile(), 5);
    try { await runLevels(rig, run); } finally { await rig.close(); }
  }), { numRuns: runs, seed, endOnFailure: true, includeErrorInReport: true });
});

test(`property, written through (two processes, crashes): every level conserved, never below 0 when checked (${runs} runs, seed ${seed})`, { timeout: 300_000 }, async () => {
  await fc.assert(fc.asyncProperty(levelRun, async (run) => {
    const rig = writeThroughRig(freshFile());
    try { await runLevels(rig, run); } finally { await rig.close(); }
  }), { numRuns: runs, seed, endOnFailure: true, includeErrorInReport: true });
});
