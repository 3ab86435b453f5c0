// Write-behind request quota (src/store/held-quota.ts): no overdraft across processes, and crashes cost clients nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openStateDb, type StateDb } from '../src/store/sqlite-state.js';
import { SqliteQuotaLedger } from '../src/store/sqlite-quota.js';
import { SqliteHolds } from '../src/store/sqlite-holds.js';
import { HeldQuota, type HeldQuotaOptions } from '../src/store/held-quota.js';
import { usageClasses } from '../src/store/quota-ledger.js';
import type { Closed } from '../src/store/held-rows.js';
import { eventually } from './helpers/stack.js';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'switchyard-holds-')), 'state.sqlite');

/** One "process": its own connection and owner on the shared file. */
function open(file: string, o: Partial<HeldQuotaOptions> = {}): { q: HeldQuota; ledger: SqliteQuotaLedger; db: StateDb; errors: string[] } {
  const db = openStateDb(file);
  const ledger = new SqliteQuotaLedger(db);
  const errors: string[] = [];
  const q = new HeldQuota(ledger, new SqliteHolds(db, ledger.rollup), { flushMs: 20, staleMs: 15_000, idleMs: 10_000, onError: (m) => errors.push(m), ...o });
  return { q, ledger, db, errors };
}

test('request reservations spend from a hold: nothing is written per request, the flush writes reserve and close', async () => {
  const file = fresh();
  const a = open(file, { flushMs: 60_000 }); // no timer flush during the test: flushes are explicit
  await a.q.createAccount('acct', 1000);
  assert.equal(await a.q.reserve('acct', 'r1', 10, 'request'), true);
  assert.ok((await a.ledger.balance('acct'))! < 1000, 'a slice moved out of the account');
  assert.equal(await a.q.balance('acct'), 990, 'the reservation counts against the balance');
  await a.q.settle('acct', 'r1', 10, 3);
  assert.equal(await a.q.balance('acct'), 997);
  assert.deepEqual((await a.ledger.entries('acct')).map((e) => e.kind), ['topup'], 'not written yet');
  const entries = await a.q.entries('acct'); // flushes first
  assert.deepEqual(entries.map((e) => `${e.kind}:${e.amount}`), ['topup:-1000', 'reserve:10', 'settle:-7']);
  assert.equal(await a.q.balance('acct'), 997);
  await a.q.close();
  assert.equal(await a.ledger.balance('acct'), 997, 'a clean stop returns the hold to the account');
  a.db.close();
});

test('a flush stores one row per request, its close carrying the reservation; the ledger lists reserve and close as before', async () => {
  const file = fresh();
  const a = open(file, { flushMs: 60_000 });
  await a.q.createAccount('acct', 1000);
  const who = { user: 'u1', model: 'gpt-4o-mini', route: 'chat_completions' };
  assert.equal(await a.q.reserve('acct', 'r1', 40, 'request', { ...who, units: 2 }), true);
  assert.equal(await a.q.reserve('acct', 'r2', 30, 'request', who), true);
  await a.q.settle('acct', 'r1', 40, 25, { channel: 'c1', prompt_tokens: 10, completion_tokens: 5, units: 2 });
  await a.q.refund('acct', 'r2', 30, { channel: 'c1' });
  a.q.flush();
  const rows = a.db.prepare("SELECT entry, kind, amount, reserved, reserved_units FROM quota_ledger WHERE account = 'acct' AND kind != 'topup' ORDER BY entry").all();
  assert.deepEqual(rows, [
    { entry: 'r1:close', kind: 'settle', amount: -15, reserved: 40, reserved_units: 2 },
    { entry: 'r2:close', kind: 'refund', amount: -30, reserved: 30, reserved_units: null },
  ], 'no reserve row is written');
  // Listed by time; two requests' entries may share a millisecond: compare request by request, reservation first.
  const listed = (await a.ledger.entries('acct')).filter((e) => e.kind !== 'topup').sort((x, y) => x.request.localeCompare(y.request) || (x.kind === 'reserve' ? -1 : 1));
  assert.deepEqual(listed.map((e) => [e.entry, e.kind, e.amount, e.units, e.channel, e.prompt_tokens]), [
    ['r1:reserve', 'reserve', 40, 2, null, null], ['r1:close', 'settle', -15, 2, 'c1', 10],
    ['r2:reserve', 'reserve', 30, null, null, null], ['r2:close', 'refund', -30, null, 'c1', null],
  ]);
  for (const e of listed) assert.deepEqual([e.user, e.model, e.route], ['u1', 'gpt-4o-mini', 'chat_completions'], e.entry);
  assert.equal(listed.reduce((s, e) => s + e.amount, 0), 25, 'reserve and close still sum to the charge');
  assert.deepEqual(await a.q.settle('acct', 'r1', 40, 25), { charged: 25, uncharged: 0 }, 'a repeated settle answers what was charged');
  // A ledger written before (reserve and close rows of their own) reads as it did.
  a.db.prepare("INSERT INTO quota_ledger (entry, account, request, kind, amount, at, held_by) VALUES ('old:reserve', 'acct', 'old', 'reserve', 5, 1, 'x'), ('old:close', 'acct', 'old', 'settle', -2, 2, 'x')").run();
  assert.deepEqual((await a.ledger.entries('acct')).filter((e) => e.request === 'old').map((e) => `${e.kind}:${e.amount}`), ['reserve:5', 'settle:-2']);
  await a.q.close();
  a.db.close();
});

test('two processes on one file never overdraw; money one holds is released when the other needs it', async () => {
  const file = fresh();
  const a = open(file);
  const b = open(file);
  await a.q.createAccount('acct', 100);
  assert.equal(await a.q.reserve('acct', 'a1', 10, 'request'), true); // a takes a slice larger than 10
  await a.q.settle('acct', 'a1', 10, 10);
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).q.reserve('acct', `c${i}`, 10, 'request')));
  assert.equal(results.filter(Boolean).length, 9, `90 left, 10 each: ${results}`);
  assert.equal(await b.q.reserve('acct', 'late', 1, 'request'), false, 'nothing left anywhere');
  for (const [i, ok] of results.entries()) if (ok) await (i % 2 ? a : b).q.refund('acct', `c${i}`, 10);
  assert.equal(await b.q.reserve('acct', 'big', 90, 'request'), true, 'b gets all that is left, part of it from a');
  await b.q.settle('acct', 'big', 90, 90);
  await a.q.close();
  await b.q.close();
  assert.equal(await a.ledger.balance('acct'), 0);
  const sum = (await a.ledger.entries('acct')).reduce((s, e) => s + e.amount, 0);
  assert.equal(sum, 0, 'the ledger explains the balance exactly');
  a.db.close();
  b.db.close();
});

test('a task (durable) reservation can use money sitting in this process\'s hold', async () => {
  const file = fresh();
  const a = open(file);
  await a.q.createAccount('acct', 100);
  assert.equal(await a.q.reserve('acct', 'r', 10, 'request'), true);
  await a.q.settle('acct', 'r', 10, 0);
  assert.equal(await a.q.reserve('acct', 'task_1', 100, 'durable'), true);
  assert.equal(await a.q.balance('acct'), 0);
  await a.q.close();
  a.db.close();
});

test('a topup written by another process (the CLI) is spendable at once', async () => {
  const file = fresh();
  const a = open(file);
  const cli = open(file);
  await a.q.createAccount('acct', 10);
  assert.equal(await a.q.reserve('acct', 'r1', 10, 'request'), true);
  assert.equal(await a.q.reserve('acct', 'r2', 10, 'request'), false);
  await cli.q.topup('acct', 50, 'cli:1');
  assert.equal(await a.q.reserve('acct', 'r2', 10, 'request'), true);
  assert.equal(await cli.q.balance('acct'), 60, 'another process counts holds as balance; in-flight work is not its to know');
  await a.q.close();
  a.db.close();
  cli.db.close();
});

test('a process that dies holding quota: its in-flight reservation is refunded, nothing is charged twice', async () => {
  const file = fresh();
  const setup = open(file);
  await setup.q.createAccount('acct', 1000);
  setup.db.close();
  // A real process: reserves three, settles two (flushed), settles one more (not flushed), then dies mid-request.
  const child = `
    import { openStateDb } from ${JSON.stringify(new URL('../src/store/sqlite-state.js', import.meta.url).href)};
    import { SqliteQuotaLedger } from ${JSON.stringify(new URL('../src/store/sqlite-quota.js', import.meta.url).href)};
    import { SqliteHolds } from ${JSON.stringify(new URL('../src/store/sqlite-holds.js', import.meta.url).href)};
    import { HeldQuota } from ${JSON.stringify(new URL('../src/store/held-quota.js', import.meta.url).href)};
    const db = openStateDb(${JSON.stringify(file)});
    const q = (() => { const l = new SqliteQuotaLedger(db); return new HeldQuota(l, new SqliteHolds(db, l.rollup), { flushMs: 60000, staleMs: 15000, idleMs: 10000, onError() {} }); })();
    for (const r of ['x1', 'x2', 'x3', 'x4']) await q.reserve('acct', r, 100, 'request');
    await q.settle('acct', 'x1', 100, 30);
    await q.settle('acct', 'x2', 100, 20);
    q.flush();
    await q.settle('acct', 'x3', 100, 40);
    process.kill(process.pid, 'SIGKILL');`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', child], { cwd: fileURLToPath(new URL('.', import.meta.url)) });
  assert.equal(r.signal, 'SIGKILL', r.stderr.toString());
  const after = open(file);
  assert.ok((await after.ledger.balance('acct'))! < 950, 'the dead process still holds its slice');
  assert.equal(await after.q.reserve('acct', 'y', 1, 'request'), true); // first use reclaims dead owners on this host
  await after.q.refund('acct', 'y', 1);
  assert.equal(await after.q.balance('acct'), 1000 - 30 - 20, 'flushed charges stay; x3 (unflushed) is forgiven; x4 (in flight) refunded');
  await after.q.close();
  assert.equal(await after.ledger.balance('acct'), 950);
  assert.deepEqual((await after.ledger.entries('acct')).filter((e) => e.request.startsWith('x')).map((e) => e.entry).sort(),
    ['x1:close', 'x1:reserve', 'x2:close', 'x2:reserve']);
  after.db.close();
});

test('an owner that stops beating is reclaimed by time; if it comes back, its pending charges are taken from the account, capped', async () => {
  const file = fresh();
  const a = open(file, { flushMs: 60_000 }); // a "stalled" process: its timer never runs
  await a.q.createAccount('acct', 100);
  assert.equal(await a.q.reserve('acct', 'r1', 10, 'request'), true);
  assert.equal(await a.q.reserve('acct', 'r2', 10, 'request'), true);
  await a.q.settle('acct', 'r1', 10, 10, { prompt_tokens: 8, cached_tokens: 5 });
  await new Promise((r) => setTimeout(r, 30));
  const b = open(file, { staleMs: 20 });
  assert.equal(await b.q.reserve('acct', 'b1', 95, 'request'), true, 'a\'s hold was reclaimed: all 100 is back');
  await b.q.settle('acct', 'b1', 95, 95);
  await b.q.close(); // 5 left in the account
  a.q.flush(); // a wakes up: finds itself reclaimed
  await eventually(() => a.errors.some((m) => /reclaimed while this process was alive/.test(m)));
  await a.q.settle('acct', 'r2', 10, 10); // closes after the reclaim: charged from the account, capped at what is there
  a.q.flush();
  await a.q.close();
  assert.equal(await a.ledger.balance('acct'), 0, 'never negative');
  const late = (await a.ledger.entries('acct')).filter((e) => e.kind === 'late_charge');
  assert.deepEqual(late.map((e) => `${e.request}:${e.amount}`), ['r1:5', 'r2:0']);
  assert.deepEqual([late[0].cached_tokens, (await a.ledger.totals('acct')).cached_tokens], [5, 5], 'a late charge keeps its usage');
  a.db.close();
  b.db.close();
});

test('a state file from before the token classes gains their columns: its rows read none, later closes sum them', async () => {
  const file = fresh();
  const old = open(file, { flushMs: 60_000 });
  await old.q.createAccount('acct', 1000);
  assert.equal(await old.q.reserve('acct', 'r1', 40, 'request', { model: 'm' }), true);
  await old.q.settle('acct', 'r1', 40, 25, { channel: 'c1', prompt_tokens: 10, completion_tokens: 5 });
  await old.q.close();
  // The file as an older version left it: no token-class columns anywhere.
  for (const table of ['quota_ledger', 'usage_hourly', 'usage_daily', 'usage_accounts']) {
    for (const c of usageClasses) old.db.exec(`ALTER TABLE ${table} DROP COLUMN ${c}`);
  }
  old.db.close();
  const a = open(file, { flushMs: 60_000 });
  assert.equal(await a.q.reserve('acct', 'r2', 40, 'request', { model: 'm' }), true);
  await a.q.settle('acct', 'r2', 40, 30, { channel: 'c1', prompt_tokens: 20, completion_tokens: 5, cached_tokens: 12, reasoning_tokens: 3, vendor_charged: 28 });
  const closes = (await a.q.entries('acct')).filter((e) => e.kind === 'settle');
  assert.deepEqual(closes.map((e) => [e.request, e.cached_tokens, e.reasoning_tokens, e.vendor_charged]), [['r1', null, null, null], ['r2', 12, 3, 28]]);
  const [row] = await a.q.usage({ from: Date.now() - 3_600_000, to: Date.now() + 60_000, accounts: ['acct'], groupBy: 'model' });
  assert.deepEqual([row.requests, row.prompt_tokens, row.cached_tokens, row.cache_write_tokens, row.reasoning_tokens, row.vendor_charged, row.charged], [2, 30, 12, 0, 3, 28, 55]);
  assert.equal((await a.q.totals('acct')).vendor_charged, 28);
  await a.q.close();
  a.db.close();
});

test('prune: rows of requests closed past ledger retention, budget levels\' spends of then and cells past usage retention go, in chunks; open reservations, topups, holds and totals stay', async () => {
  const file = fresh();
  const a = open(file, { flushMs: 60_000 });
  const day = 86_400_000;
  const now = Date.now();
  // 5,000 requests closed 40 days ago, as a flush wrote them then (more rows than one prune chunk)…
  const holds = new SqliteHolds(a.db, a.ledger.rollup);
  holds.register('then', now);
  const old = Array.from({ length: 5000 }, (_, i): Closed => ({
    request: `old${i}`, account: 'acct', reserved: 10, charged: 4, uncharged: 0, kind: 'settle', reservedAt: now - 40 * day + i, at: now - 40 * day + i,
    reserveTags: { model: 'm' }, closeTags: { model: 'm' },
  }));
  // …with their wallet's spend (budget levels keep one row per flush)…
  const spends = new Map([['~usr_p', { charged: 20_000, uncharged: 0, requests: 5000, at: now - 40 * day + 5000 }]]);
  holds.commit('then', { key: 'then', closed: old, spends }, now);
  a.db.prepare("DELETE FROM quota_holds WHERE owner = 'then'").run(); // that process stopped long since: its holds went back then
  // …and today: a request closed from the hold, a task reservation still open, one written through and refunded, a topup.
  await a.q.createAccount('acct', 1000);
  await a.q.createAccount('~usr_p', 100);
  const now1 = [{ account: 'acct', request: 'now1' }, { account: '~usr_p', request: 'now1>~usr_p' }];
  assert.equal(await a.q.reserveLevels(now1, 10, 'request', { model: 'm' }), -1);
  await a.q.settleLevels(now1, 10, 5);
  assert.equal(await a.q.reserve('acct', 'task', 100, 'durable'), true);
  assert.equal(await a.q.reserve('acct', 'wt', 20, 'durable'), true);
  await a.q.refund('acct', 'wt', 20);
  await a.q.topup('acct', 7, 'cli');
  const count = (table: string) => a.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
  const [totals, holdRows] = [await a.q.totals('acct'), a.db.prepare('SELECT * FROM quota_holds').all()];
  const month = { from: now - 41 * day, to: now - 39 * day, accounts: ['acct'], groupBy: 'model' as const };

  assert.deepEqual(await a.q.prune(now), { entries: 5001, cells: 0, more: false }, 'closed 40 days ago: past the 30 days kept');
  assert.deepEqual((await a.q.entries('~usr_p')).map((e) => [e.kind, e.amount, e.requests]), [['topup', -100, undefined], ['spend', 5, 1]], 'the spend of then went, today\'s stays');
  const today = ['topup:create:acct', 'now1:reserve', 'task:reserve', 'wt:reserve', 'wt:close', 'now1:close', 'topup:cli'];
  assert.deepEqual((await a.q.entries('acct')).map((e) => e.entry).sort(), today.sort());
  assert.equal((await a.q.usage(month))[0].requests, 5000, 'their usage is still reported');
  assert.deepEqual(await a.q.settle('acct', 'old1', 10, 10), { charged: 0, uncharged: 0 }, 'a close of a pruned request moves nothing');

  // 401 days on: every closed request goes, and every cell; the open task, the topups, the hold and the totals stay.
  const cells = count('usage_hourly') + count('usage_daily');
  assert.deepEqual(await a.q.prune(now + 401 * day), { entries: 4, cells, more: false });
  assert.deepEqual((await a.q.entries('~usr_p')).map((e) => e.entry), ['topup:create:~usr_p']);
  assert.deepEqual((await a.q.entries('acct')).map((e) => e.entry), ['topup:create:acct', 'task:reserve', 'topup:cli']);
  assert.deepEqual(await a.q.usage({ ...month, from: now - 500 * day, to: now + day }), []);
  assert.deepEqual(await a.q.totals('acct'), totals);
  assert.deepEqual(a.db.prepare('SELECT * FROM quota_holds').all(), holdRows);
  assert.deepEqual(await a.q.settle('acct', 'task', 100, 60), { charged: 60, uncharged: 0 });
  assert.equal(await a.q.balance('acct'), 1000 - 5 - 60 + 7);
  assert.equal(await a.q.balance('~usr_p'), 95);
  await a.q.close();
  a.db.close();
});
