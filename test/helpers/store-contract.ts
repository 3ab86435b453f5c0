// The QuotaLedger and TaskIndex contracts, run unchanged against every store so SQLite and Redis behave alike, and
// what the Redis ledger leaves in Redis (redisLedgerContract), on one server and on a cluster.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Store, StoreOptions } from '../../src/store/open-store.js';
import { usageClasses, type LedgerEntry } from '../../src/store/quota-ledger.js';
import type { RedisClient } from '../../src/store/redis-client.js';
import { hourMs, hourOf, noUsage } from '../../src/store/usage.js';

/** `fresh(o)` opens an empty store; `again(o)` opens a second connection to the same one (another instance). */
export interface StoreMaker { fresh(o?: StoreOptions): Promise<Store>; again(o?: StoreOptions): Promise<Store> }
type Opts = { skip?: string | boolean };

const dayMs = 24 * hourMs;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Prunes as a retention job would at `now`: again while the store says there is more. */
async function pruneAll(s: Store, now: number): Promise<void> {
  for (let more = true; more;) more = (await s.quota.prune(now)).more;
}

const uid = (p: string) => `${p}_${randomBytes(5).toString('hex')}`;
const fieldsOf = (e: object) => Object.keys(e).sort();
const pick = (e: LedgerEntry) => ({ user: e.user, model: e.model, route: e.route, channel: e.channel, prompt_tokens: e.prompt_tokens, completion_tokens: e.completion_tokens, units: e.units });
const classesOf = (e: LedgerEntry) => Object.fromEntries(usageClasses.map((k) => [k, e[k]]));

export function quotaContract(name: string, make: StoreMaker, opts: Opts = {}): void {
  const t = (title: string, fn: (a: Store, b: Store) => Promise<void>, o?: StoreOptions) => test(`${name} quota: ${title}`, { ...opts, timeout: 20_000 }, async () => {
    const a = await make.fresh(o);
    const b = await make.again(o);
    try { await fn(a, b); } finally { await b.close(); await a.close(); }
  });

  t('entries are idempotent; one close per request; entries in order with the LedgerEntry fields', async (q) => {
    const acct = uid('acct');
    await q.quota.createAccount(acct, 100);
    await q.quota.createAccount(acct, 100); // again: no second initial topup
    assert.equal(await q.quota.reserve(acct, 'r1', 30), true);
    assert.equal(await q.quota.reserve(acct, 'r1', 30), true, 'a repeated reserve answers true');
    assert.equal(await q.quota.balance(acct), 70);
    await q.quota.settle(acct, 'r1', 30, 20);
    await q.quota.settle(acct, 'r1', 30, 20);
    await q.quota.refund(acct, 'r1', 30); // never after a settle
    assert.equal(await q.quota.balance(acct), 80);
    assert.equal(await q.quota.topup(acct, 50, 'ref1'), true, 'applied');
    assert.equal(await q.quota.topup(acct, 50, 'ref1'), false, 'a repeat of its ref moves nothing, and says so');
    assert.equal(await q.quota.balance(acct), 130);
    const entries = await q.quota.entries(acct);
    assert.deepEqual(entries.map((e) => [e.entry, e.request, e.kind, e.amount]), [
      [`topup:create:${acct}`, `create:${acct}`, 'topup', -100],
      ['r1:reserve', 'r1', 'reserve', 30],
      ['r1:close', 'r1', 'settle', -10],
      ['topup:ref1', 'ref1', 'topup', -50],
    ]);
    for (const e of entries) {
      assert.deepEqual(fieldsOf(e), ['account', 'amount', 'at', 'audio_tokens', 'cache_write_tokens', 'cached_tokens', 'channel', 'completion_tokens', 'entry',
        'image_tokens', 'kind', 'model', 'prompt_tokens', 'reasoning_tokens', 'request', 'route', 'uncharged', 'units', 'user', 'vendor_charged']);
      assert.equal(e.account, acct);
      assert.ok(Number.isInteger(e.at) && Math.abs(e.at - Date.now()) < 60_000);
    }
  });

  t('entries carry what they were for; closes are summed per hour into usage, grouped as asked', async (q, b) => {
    const [a1, a2] = [uid('acct'), uid('acct')];
    await q.quota.createAccount(a1, 10_000);
    await q.quota.createAccount(a2, 10_000);
    await q.quota.topup(a1, 5, uid('ref'), { route: 'admin' });
    const user = uid('user');
    const tags = (model: string, route: string, units?: number) => ({ user, model, route, units });
    assert.equal(await q.quota.reserve(a1, 'u1', 300, 'request', tags('gpt-x', 'chat')), true);
    await q.quota.settle(a1, 'u1', 300, 120, { channel: 'c1', prompt_tokens: 40, completion_tokens: 80 });
    assert.equal(await q.quota.reserve(a1, 'u2', 300, 'request', tags('gpt-x', 'chat')), true);
    await q.quota.settle(a1, 'u2', 300, 900, { channel: 'c2', prompt_tokens: 500, completion_tokens: 400 }); // capped: 600 uncharged
    assert.equal(await q.quota.reserve(a1, 'u3', 50, 'durable', tags('vid', 'video', 8)), true);
    await b.quota.settle(a1, 'u3', 50, 50, { channel: 'c1' }); // another instance closes it, e.g. a poller
    assert.equal(await q.quota.reserve(a2, 'u4', 70, 'request', { user: 'other', model: 'gpt-x', route: 'chat' }), true);
    await q.quota.refund(a2, 'u4', 70, { channel: 'c1' });
    const es = await q.quota.entries(a1);
    const close = (r: string) => es.find((e) => e.entry === `${r}:close`)!;
    assert.deepEqual(pick(es.find((e) => e.entry === 'u1:reserve')!), { user, model: 'gpt-x', route: 'chat', channel: null, prompt_tokens: null, completion_tokens: null, units: null });
    assert.deepEqual(pick(close('u1')), { user, model: 'gpt-x', route: 'chat', channel: 'c1', prompt_tokens: 40, completion_tokens: 80, units: null });
    assert.deepEqual(pick(close('u3')), { user, model: 'vid', route: 'video', channel: 'c1', prompt_tokens: null, completion_tokens: null, units: 8 });
    assert.equal(es.find((e) => e.kind === 'topup' && e.route === 'admin')?.amount, -5);
    const span = { from: Date.now() - 3_600_000, to: Date.now() + 60_000 };
    const row = (key: string, requests: number, p: number, c: number, units: number, charged: number, uncharged: number) =>
      ({ ...noUsage(), key, requests, prompt_tokens: p, completion_tokens: c, units, charged, uncharged });
    assert.deepEqual(await q.quota.usage({ ...span, accounts: [a1], groupBy: 'model' }),
      [row('gpt-x', 2, 540, 480, 0, 420, 600), row('vid', 1, 0, 0, 8, 50, 0)]);
    assert.deepEqual(await q.quota.usage({ ...span, accounts: [a1], groupBy: 'channel' }),
      [row('c1', 2, 40, 80, 8, 170, 0), row('c2', 1, 500, 400, 0, 300, 600)]);
    assert.deepEqual(await b.quota.usage({ ...span, accounts: [a1, a2], groupBy: 'token' }),
      [row(a1, 3, 540, 480, 8, 470, 600), row(a2, 1, 0, 0, 0, 0, 0)].sort((x, y) => (x.key < y.key ? -1 : 1)));
    assert.deepEqual(await q.quota.usage({ ...span, user, groupBy: 'route' }), [row('chat', 2, 540, 480, 0, 420, 600), row('video', 1, 0, 0, 8, 50, 0)]);
    const day = new Date().toISOString().slice(0, 10);
    const days = await q.quota.usage({ ...span, accounts: [a1], groupBy: 'day' });
    assert.equal(days.reduce((n, d) => n + d.requests, 0), 3);
    assert.ok(days.every((d) => /^\d{4}-\d{2}-\d{2}$/.test(d.key)) && days.some((d) => d.key === day));
    assert.deepEqual(await q.quota.usage({ from: span.from - 86_400_000 * 10, to: span.from - 86_400_000 * 9, accounts: [a1], groupBy: 'model' }), [], 'another day: nothing');
    assert.deepEqual(await q.quota.usage({ ...span, accounts: [], groupBy: 'model' }), [], 'no accounts: nothing');
    // A range holding today whole reads today from the daily cells: the same figures.
    const wide = { from: Date.now() - 3 * 86_400_000, to: Date.now() + 2 * 86_400_000 };
    assert.deepEqual(await b.quota.usage({ ...wide, accounts: [a1], groupBy: 'model' }), await q.quota.usage({ ...span, accounts: [a1], groupBy: 'model' }));
    assert.deepEqual(await b.quota.usage({ ...wide, user, groupBy: 'day' }), [row(day, 3, 540, 480, 8, 470, 600)]);
    // Two ways at once (what a chart of each model by day reads): a row per model and day.
    assert.deepEqual(await b.quota.usage({ ...wide, accounts: [a1], groupBy: 'model', thenBy: 'day' }),
      [{ ...row('gpt-x', 2, 540, 480, 0, 420, 600), sub: day }, { ...row('vid', 1, 0, 0, 8, 50, 0), sub: day }]);
    assert.deepEqual(await b.quota.totals(a1), { ...noUsage(), requests: 3, prompt_tokens: 540, completion_tokens: 480, units: 8, charged: 470, uncharged: 600 });
    assert.deepEqual(await q.quota.totals(uid('nobody')), noUsage());
  });

  t('a close explains its usage by token class: its entry lists the classes, usage and totals sum them, a refund has none', async (q, b) => {
    const acct = uid('acct');
    await q.quota.createAccount(acct, 10_000);
    const who = { user: uid('user'), model: 'gpt-x', route: 'chat' };
    const classes = (n: number) => ({ cached_tokens: 30 * n, cache_write_tokens: 20 * n, reasoning_tokens: 15 * n, audio_tokens: 4 * n, image_tokens: 6 * n, vendor_charged: 90 * n });
    for (const [r, n] of [['k1', 1], ['k2', 2]] as const) {
      assert.equal(await q.quota.reserve(acct, r, 300, 'request', who), true);
      await q.quota.settle(acct, r, 300, 100 * n, { channel: 'c1', prompt_tokens: 100 * n, completion_tokens: 50 * n, ...classes(n) });
    }
    assert.equal(await q.quota.reserve(acct, 'k3', 300, 'request', who), true);
    await q.quota.refund(acct, 'k3', 300, { channel: 'c1' });
    const es = await q.quota.entries(acct);
    const entry = (id: string) => es.find((e) => e.entry === id)!;
    assert.deepEqual(classesOf(entry('k1:close')), classes(1));
    assert.deepEqual(classesOf(entry('k2:close')), classes(2));
    const none = Object.fromEntries(usageClasses.map((k) => [k, null]));
    assert.deepEqual(classesOf(entry('k2:reserve')), none, 'a reservation has none');
    const refund = entry('k3:close');
    assert.deepEqual([classesOf(refund), refund.prompt_tokens, refund.completion_tokens], [none, null, null], 'a refund has none');
    // Two requests of one model in one hour, and the refund: one row summing them, from the hourly and the daily cells.
    const sum = { ...noUsage(), requests: 3, prompt_tokens: 300, completion_tokens: 150, charged: 300, ...classes(3) };
    assert.deepEqual(await b.quota.usage({ from: Date.now() - 3_600_000, to: Date.now() + 60_000, accounts: [acct], groupBy: 'model' }), [{ key: 'gpt-x', ...sum }]);
    assert.deepEqual(await b.quota.usage({ from: Date.now() - 3 * 86_400_000, to: Date.now() + 2 * 86_400_000, user: who.user, groupBy: 'channel' }), [{ key: 'c1', ...sum }]);
    assert.deepEqual(await b.quota.totals(acct), sum);
  });

  t('a reservation the balance cannot cover, or on a missing account, is refused and leaves no entry', async (q) => {
    const acct = uid('acct');
    assert.equal(await q.quota.balance(acct), undefined);
    assert.equal(await q.quota.reserve(acct, 'x', 1), false);
    await assert.rejects(q.quota.topup(acct, 5, 'nobody'), /quota_no_account/);
    assert.deepEqual(await q.quota.entries(acct), []);
    await q.quota.createAccount(acct, 10);
    assert.equal(await q.quota.reserve(acct, 'big', 11), false);
    assert.equal(await q.quota.balance(acct), 10);
    assert.equal(await q.quota.reserve(acct, 'exact', 10), true);
    assert.equal(await q.quota.balance(acct), 0);
    await q.quota.topup(acct, 11, 'more');
    assert.equal(await q.quota.reserve(acct, 'big', 11), true, 'a refused id may reserve later');
    assert.deepEqual((await q.quota.entries(acct)).map((e) => e.kind), ['topup', 'reserve', 'topup', 'reserve']);
  });

  t('concurrent reserves from two instances on a balance covering one: exactly one true, never negative', async (a, b) => {
    const acct = uid('acct');
    await a.quota.createAccount(acct, 100);
    const seen: number[] = [];
    let sampling = true;
    const sampler = (async () => { while (sampling) { seen.push((await b.quota.balance(acct))!); await new Promise((r) => setImmediate(r)); } })();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).quota.reserve(acct, `c${i}`, 100)));
    sampling = false;
    await sampler;
    assert.equal(results.filter(Boolean).length, 1, `results: ${results}`);
    assert.equal(await a.quota.balance(acct), 0);
    assert.ok(Math.min(...seen) >= 0, `balances seen: ${seen}`);
  });

  t('racing settle and refund of one request: one close; entries sum equals the balance change', async (a, b) => {
    const acct = uid('acct');
    await a.quota.createAccount(acct, 1000);
    const start = (await a.quota.balance(acct))!;
    let seed = 7;
    const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
    const jobs: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      const q = (i % 2 ? a : b).quota;
      const amount = 1 + rand(60);
      jobs.push(q.reserve(acct, `s${i}`, amount).then(async (ok) => {
        if (!ok) return;
        // Both instances try to close the same request at once, with different outcomes: only one may land.
        await Promise.all([a.quota.settle(acct, `s${i}`, amount, rand(amount * 2)), b.quota.refund(acct, `s${i}`, amount)]);
      }));
      if (i % 10 === 0) jobs.push(q.topup(acct, 25, `t${i}`));
    }
    await Promise.all(jobs);
    const entries = await a.quota.entries(acct);
    const closes = entries.filter((e) => e.kind === 'settle' || e.kind === 'refund');
    assert.equal(closes.length, entries.filter((e) => e.kind === 'reserve').length);
    assert.equal(new Set(closes.map((e) => e.request)).size, closes.length, 'one close per request');
    const sum = entries.filter((e) => e.entry !== `topup:create:${acct}`).reduce((s, e) => s + e.amount, 0);
    assert.equal(start - (await a.quota.balance(acct))!, sum);
  });

  // Retention passes: Redis's markers expire (their windows are short here), SQLite's rows go when a prune runs with a
  // clock past ledgerDays (30).
  t('after retention a closed request leaves the ledger and a late close moves nothing; open reservations, balance and totals stay', async (q, b) => {
    const acct = uid('acct');
    await q.quota.createAccount(acct, 1000);
    assert.equal(await q.quota.reserve(acct, 'c1', 100, 'request', { model: 'm' }), true);
    await q.quota.settle(acct, 'c1', 100, 40, { channel: 'c', prompt_tokens: 5 });
    assert.equal(await q.quota.reserve(acct, 'c2', 50, 'durable'), true);
    await b.quota.refund(acct, 'c2', 50);
    assert.equal(await q.quota.reserve(acct, 'o1', 70, 'durable'), true);
    const totals = await q.quota.totals(acct);
    await sleep(900);
    await pruneAll(b, Date.now() + 31 * dayMs);
    assert.deepEqual((await q.quota.entries(acct)).filter((e) => e.kind !== 'topup').map((e) => e.entry), ['o1:reserve']);
    assert.deepEqual(await b.quota.settle(acct, 'c1', 100, 90), { charged: 0, uncharged: 0 }, 'a settle again charges nothing');
    await b.quota.refund(acct, 'c1', 100);
    await b.quota.refund(acct, 'c2', 50);
    assert.equal(await q.quota.balance(acct), 890, 'nothing moved twice');
    assert.deepEqual(await q.quota.totals(acct), totals, 'the all-time totals stay');
    assert.deepEqual(await b.quota.settle(acct, 'o1', 70, 30), { charged: 30, uncharged: 0 }, 'an open reservation outlives every window');
    assert.equal(await q.quota.balance(acct), 930);
  }, { markerTtlMs: { request: 300, durable: 600, topup: 600 } });
}

/**
 * Redis only: what the ledger leaves in Redis goes by itself (markers by their reservation's scope, usage cells after
 * retention) or by prune (indexes), and nothing is kept in a list. `raw()` connects to the store the maker opens.
 */
export function redisLedgerContract(name: string, make: StoreMaker, raw: () => Promise<{ client: RedisClient; close(): Promise<void> }>, opts: Opts = {}): void {
  const t = (title: string, fn: (s: Store, r: RedisClient) => Promise<void>, o?: StoreOptions) => test(`${name} ledger keys: ${title}`, { ...opts, timeout: 30_000 }, async () => {
    const s = await make.fresh(o);
    const r = await raw();
    try { await fn(s, r.client); } finally { await r.close(); await s.close(); }
  });
  const until = async (what: string, ok: () => Promise<boolean>) => {
    for (const end = Date.now() + 10_000; !(await ok());) {
      if (Date.now() > end) assert.fail(`${what} within 10 s`);
      await sleep(50);
    }
  };

  const ttl = { request: 1000, durable: 3000, topup: 2000 };
  t('a reservation\'s marker stays while it is open; at its close both markers expire together after the scope\'s window, then the index drops them; a topup\'s after its own; cells expire after retention; no list', async (s, r) => {
    const acct = uid('acct');
    const A = `sy:quota:{a:${acct}}:`;
    const pttl = (entry: string) => r.pTTL(`${A}entry:${entry}`);
    // A TTL is read before the expected value is computed, so it may be a millisecond or two above it.
    const near = (v: number, want: number, what: string) => assert.ok(v > want - 5000 && v <= want + 5, `${what}: ${v} ms, expected about ${want}`);
    await s.quota.createAccount(acct, 1000);
    assert.equal(await s.quota.reserve(acct, 'r1', 100, 'request', { model: 'm', route: 'chat' }), true);
    assert.equal(await s.quota.reserve(acct, 'd1', 100, 'durable', { model: 'v', route: 'video' }), true);
    assert.deepEqual([await pttl(`topup:create:${acct}`), await pttl('r1:reserve'), await pttl('d1:reserve')], [-1, -1, -1], 'kept while open, the creation for good');
    assert.equal(await r.zScore(`${A}entries`, 'r1:reserve'), Infinity);
    await s.quota.settle(acct, 'r1', 100, 40, { channel: 'c', prompt_tokens: 10, completion_tokens: 20 });
    await s.quota.refund(acct, 'd1', 100, { channel: 'c' });
    await s.quota.topup(acct, 5, 'tp');
    near(await pttl('r1:reserve'), ttl.request, 'r1:reserve');
    near(await pttl('r1:close'), ttl.request, 'r1:close');
    assert.equal(await r.zScore(`${A}entries`, 'r1:reserve'), await r.zScore(`${A}entries`, 'r1:close'), 'one expiry for both');
    near(await pttl('d1:close'), ttl.durable, 'd1:close');
    near(await pttl('topup:tp'), ttl.topup, 'topup:tp');
    assert.equal(await r.exists(`${A}log`), 0, 'no list of entries');
    const hour = hourOf(Date.now());
    near(await r.pTTL(`${A}usage:h:${hour}`), (hour + 1) * hourMs + 400 * dayMs - Date.now(), 'the hour\'s cells');
    near(await r.pTTL(`${A}usage:d:${Math.floor(hour / 24)}`), (Math.floor(hour / 24) + 1) * dayMs + 400 * dayMs - Date.now(), 'the day\'s cells');
    assert.equal(await r.pTTL(`${A}usage`), -1, 'the totals stay');
    assert.equal(await s.quota.reserve(acct, 'r1', 100, 'request'), true, 'a repeated reserve within the window answers true');
    assert.equal(await s.quota.balance(acct), 965, '…and moves nothing');
    const listed = ['topup:create', 'r1:reserve', 'd1:reserve', 'r1:close', 'd1:close', 'topup:tp'];
    assert.deepEqual((await s.quota.entries(acct)).map((e) => e.entry.replace(`:${acct}`, '')), listed, 'within the window: every entry, in order');

    await until('r1\'s markers expire', async () => (await r.exists([`${A}entry:r1:reserve`, `${A}entry:r1:close`])) === 0);
    assert.deepEqual(await s.quota.settle(acct, 'r1', 100, 100), { charged: 0, uncharged: 0 }, 'a close after the window charges nothing');
    await s.quota.refund(acct, 'r1', 100);
    assert.equal(await s.quota.balance(acct), 965, 'nor refunds anything');
    await s.quota.topup(acct, 1, 'tq'); // a write drops expired members from the index
    assert.equal(await r.zScore(`${A}entries`, 'r1:close'), null);
    assert.deepEqual((await s.quota.entries(acct)).map((e) => e.entry.replace(`:${acct}`, '')), ['topup:create', 'd1:reserve', 'd1:close', 'topup:tp', 'topup:tq']);
    await until('the rest expire', async () => (await r.exists([`${A}entry:d1:close`, `${A}entry:topup:tq`])) === 0);
    assert.ok((await s.quota.prune(Date.now())).entries >= 3);
    assert.deepEqual(await r.zRange(`${A}entries`, 0, -1), [`topup:create:${acct}`], 'the index holds what is still there');
  }, { markerTtlMs: ttl });

  t('prune drops usage periods past retention, and moves a list written before markers expired under the index', async (s, r) => {
    const acct = uid('acct');
    const A = `sy:quota:{a:${acct}}:`;
    const now = Date.now();
    const at = (i: number) => now - 10_000 + i;
    // An account as the ledger left it before: every entry in `:log` and its marker, none expiring.
    const old = [
      { entry: `topup:create:${acct}`, request: `create:${acct}`, kind: 'topup', amount: -1000 },
      { entry: 'L1:reserve', request: 'L1', kind: 'reserve', amount: 100 },
      { entry: 'L1:close', request: 'L1', kind: 'settle', amount: -60 },
      { entry: 'L2:reserve', request: 'L2', kind: 'reserve', amount: 50 },
      { entry: 'topup:T', request: 'T', kind: 'topup', amount: -5 },
    ].map((e, i) => ({ ...e, account: acct, at: at(i), uncharged: 0 }));
    await r.sAdd('sy:quota:accounts', acct);
    await r.set(`${A}bal`, '915');
    for (const e of old) await r.set(`${A}entry:${e.entry}`, JSON.stringify(e));
    await r.rPush(`${A}log`, old.map((e) => JSON.stringify(e)));
    await r.set(`${A}open:L2`, JSON.stringify({ request: 'L2', account: acct, amount: 50, owner: 'i_gone', scope: 'durable', at: at(3) }));
    const past = hourOf(now - 401 * dayMs);
    const hour = hourOf(now);
    await r.zAdd(`${A}usage:hours`, [{ score: past, value: String(past) }, { score: hour, value: String(hour) }]);
    await r.zAdd(`${A}usage:days`, [{ score: Math.floor(past / 24), value: String(Math.floor(past / 24)) }, { score: Math.floor(hour / 24), value: String(Math.floor(hour / 24)) }]);

    const pruned = await s.quota.prune(now);
    assert.deepEqual([pruned.cells, pruned.more], [2, false]);
    assert.deepEqual(await r.zRange(`${A}usage:hours`, 0, -1), [String(hour)]);
    assert.deepEqual(await r.zRange(`${A}usage:days`, 0, -1), [String(Math.floor(hour / 24))]);
    assert.equal(await r.exists(`${A}log`), 0, 'the list is gone');
    const pttl = (entry: string) => r.pTTL(`${A}entry:${entry}`);
    assert.deepEqual([await pttl(`topup:create:${acct}`), await pttl('L2:reserve')], [-1, -1], 'the creation and an open reservation are kept');
    for (const [entry, ms] of [['L1:reserve', 2 * dayMs], ['L1:close', 2 * dayMs], ['topup:T', 7 * dayMs]] as const) {
      const left = await pttl(entry);
      assert.ok(left > ms - 60_000 && left <= ms, `${entry}: ${left} ms, expected the default window (${ms})`);
    }
    assert.deepEqual((await s.quota.entries(acct)).map((e) => e.entry), old.map((e) => e.entry), 'listed as before');
    await s.quota.settle(acct, 'L2', 50, 20);
    assert.equal(await s.quota.balance(acct), 945);
    assert.ok((await pttl('L2:reserve')) > 0, 'its close starts its window');
  });
}

export function recoveryContract(name: string, make: StoreMaker, opts: Opts = {}): void {
  const t = (title: string, fn: (a: Store, b: Store) => Promise<void>) => test(`${name} recovery: ${title}`, { ...opts, timeout: 20_000 }, async () => {
    const a = await make.fresh();
    const b = await make.again();
    try { await fn(a, b); } finally { await b.close(); await a.close(); }
  });

  t('open reservations are listed by owner until closed; a settle reads the amount from the store and caps the charge', async (a, b) => {
    const acct = uid('acct');
    await a.quota.createAccount(acct, 100);
    // Durable: written through on every store (SQLite keeps request-scoped ones in its process's hold).
    assert.equal(await a.quota.reserve(acct, 'o1', 30, 'durable'), true);
    assert.equal(await a.quota.reserve(acct, 'o2', 20, 'durable'), true);
    const open = await b.quota.openOf(a.instance);
    assert.deepEqual(open.map((o) => [o.request, o.amount, o.scope, o.owner]).sort(), [['o1', 30, 'durable', a.instance], ['o2', 20, 'durable', a.instance]]);
    assert.ok((await b.quota.openOwners()).includes(a.instance));
    assert.deepEqual(await b.quota.settle(acct, 'o1', 999, 45), { charged: 30, uncharged: 15 }, 'the store\'s 30, not the caller\'s 999');
    assert.deepEqual(await b.quota.settle(acct, 'o1', 30, 10), { charged: 30, uncharged: 15 }, 'a repeated settle answers the first');
    await b.quota.refund(acct, 'o2', 20);
    assert.deepEqual(await a.quota.openOf(a.instance), []);
    assert.equal(await a.quota.reservationOf('o1'), undefined);
    assert.equal(await a.quota.balance(acct), 70);
    const settle = (await a.quota.entries(acct)).find((e) => e.entry === 'o1:close')!;
    assert.deepEqual([settle.kind, settle.amount, settle.uncharged], ['settle', 0, 15]);
  });

  t('an instance is alive while open and dead once closed; another sees it', async (a, b) => {
    assert.deepEqual([...await b.alive([a.instance, 'i_nobody'])], [a.instance]);
    const gone = a.instance;
    await a.close();
    assert.deepEqual([...await b.alive([gone])], []);
  });

  t('jobs: one claim at a time across instances; a newer schedule survives the older run\'s done; retry counts attempts', async (a, b) => {
    const qa = a.jobs('cb');
    const qb = b.jobs('cb');
    const now = Date.now();
    await qa.schedule('j1', now - 1);
    await qa.schedule('j2', now + 60_000);
    const [x, y] = await Promise.all([qa.claim('A', now, now + 1000, 10), qb.claim('B', now, now + 1000, 10)]);
    assert.deepEqual([...x, ...y].map((j) => [j.id, j.attempt]), [['j1', 1]], 'due jobs only, claimed once');
    const job = [...x, ...y][0];
    await qb.schedule('j1', now); // the state changed while j1 was being delivered
    await qa.done(job);
    assert.equal(await qa.count(), 2, 'the newer schedule is kept');
    const [again] = await qb.claim('B', now + 1, now + 1000, 10);
    assert.equal(again.version, job.version + 1);
    await qb.retry(again, now + 5);
    assert.deepEqual(await qa.claim('A', now + 2, now + 1000, 10), [], 'not due yet');
    const [third] = await qa.claim('A', now + 10, now + 1000, 10);
    assert.equal(third.attempt, 2);
    await qa.done(third);
    assert.equal(await qb.count(), 1);
  });

  t('pending submits and leases are listed with their owners', async (a, b) => {
    const now = Date.now();
    await a.tasks.open('p1', 'g', undefined, now);
    await b.tasks.open('p2', 'g', undefined, now);
    await b.tasks.setChannel('p2', 'ch');
    const pending = await b.tasks.pending();
    assert.deepEqual(pending.map((p) => [p.id, p.owner]), [['p1', a.instance]]);
    assert.ok(Math.abs(pending[0].opened_at - now) < 5000);
    assert.equal(await a.tasks.setChannel('gone', 'ch'), false);
    assert.deepEqual(await a.tasks.claimDue('A', now + 1, now + 10_000, 10), [{ id: 'p2', channel: 'ch' }]);
    assert.deepEqual(await b.tasks.leased(now + 2), [{ id: 'p2', owner: 'A' }]);
    await b.tasks.reschedule('p2', now);
    assert.deepEqual(await b.tasks.leased(now + 2), []);
  });
}

export function taskIndexContract(name: string, make: StoreMaker, opts: Opts = {}): void {
  const t = (title: string, fn: (a: Store, b: Store) => Promise<void>) => test(`${name} task index: ${title}`, { ...opts, timeout: 20_000 }, async () => {
    const a = await make.fresh();
    const b = await make.again();
    try { await fn(a, b); } finally { await b.close(); await a.close(); }
  });

  t('the in-flight limit holds under concurrent opens from two instances; close frees a slot', async (a, b) => {
    const now = Date.now();
    const opened = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).tasks.open(`g${i}`, 'grp', 3, now)));
    assert.equal(opened.filter(Boolean).length, 3, `opened: ${opened}`);
    assert.equal(await a.tasks.open('other', 'grp2', 1, now), true, 'limits are per group');
    assert.equal(await a.tasks.open('other', 'grp2', undefined, now), false, 'an open id is not opened twice');
    assert.equal(await b.tasks.count(), 4);
    const first = opened.findIndex(Boolean);
    await b.tasks.close(`g${first}`);
    assert.equal(await a.tasks.open('late', 'grp', 3, now), true);
    assert.equal(await a.tasks.open('late2', 'grp', 3, now), false);
    assert.equal(await a.tasks.count(), 4);
  });

  t('two owners claiming at once never get the same task; channel-less and future tasks wait', async (a, b) => {
    const now = Date.now();
    for (let i = 0; i < 30; i++) {
      await a.tasks.open(`t${i}`, 'g', undefined, now - 10);
      await a.tasks.setChannel(`t${i}`, `ch${i % 3}`);
    }
    await a.tasks.open('nochannel', 'g', undefined, now - 10);
    await a.tasks.open('future', 'g', undefined, now + 60_000);
    await a.tasks.setChannel('future', 'ch0');
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).tasks.claimDue(`owner${i % 2}`, now, now + 5000, 5)));
    const ids = claims.flat().map((c) => c.id);
    assert.equal(ids.length, 30);
    assert.equal(new Set(ids).size, 30, 'no task claimed twice');
    assert.deepEqual(claims.flat().find((c) => c.id === 't4'), { id: 't4', channel: 'ch1' });
    assert.deepEqual(await a.tasks.claimDue('owner0', now, now + 5000, 100), []);
  });

  t('a lease blocks others until it expires; its owner may renew; reschedule releases it', async (a, b) => {
    const now = Date.now();
    await a.tasks.open('L', 'g', undefined, now - 1);
    await a.tasks.setChannel('L', 'ch');
    assert.deepEqual(await a.tasks.claimDue('A', now, now + 100, 10), [{ id: 'L', channel: 'ch' }]);
    assert.deepEqual(await b.tasks.claimDue('B', now + 50, now + 150, 10), []);
    assert.equal(await b.tasks.lease('L', 'B', now + 50, now + 150), false, 'held by A');
    assert.equal(await a.tasks.lease('L', 'A', now + 50, now + 200), true, 'A renews its own lease');
    assert.deepEqual(await b.tasks.claimDue('B', now + 150, now + 300, 10), [], 'renewed until now+200');
    assert.deepEqual(await b.tasks.claimDue('B', now + 201, now + 300, 10), [{ id: 'L', channel: 'ch' }], 'expired: B takes over');
    assert.equal(await a.tasks.lease('L', 'A', now + 250, now + 400), false);
    await b.tasks.reschedule('L', now + 1000);
    assert.deepEqual(await a.tasks.claimDue('A', now + 999, now + 2000, 10), [], 'not due yet');
    assert.equal(await a.tasks.lease('L', 'A', now + 999, now + 2000), true, 'rescheduled: the lease is free');
    await a.tasks.close('L');
    assert.equal(await a.tasks.lease('L', 'A', now + 3000, now + 4000), false, 'closed: nothing to lease');
    assert.deepEqual(await b.tasks.claimDue('B', now + 5000, now + 6000, 10), []);
    assert.equal(await a.tasks.count(), 0);
  });
}

/** `which`: the tasks' catalog, or the files' (the same contract, on its own table or keys). */
export function catalogContract(name: string, make: StoreMaker, opts: Opts = {}, which: 'catalog' | 'files' = 'catalog'): void {
  const t = (title: string, fn: (a: Store, b: Store) => Promise<void>) => test(`${name} ${which === 'catalog' ? 'task' : 'file'} catalog: ${title}`, { ...opts, timeout: 20_000 }, async () => {
    const a = await make.fresh();
    const b = await make.again();
    try { await fn(a, b); } finally { await b.close(); await a.close(); }
  });
  const entry = (id: string, user: string, family: string, created_ms: number) => ({ id, user, family, model: 'm', created_ms });
  /** Every page of a query, following `after` as a client does. */
  async function walk(s: Store, q: { user?: string; family?: string; order: 'asc' | 'desc' }, limit: number): Promise<string[][]> {
    const pages: string[][] = [];
    let after: string | undefined;
    for (;;) {
      const p = await s[which].page({ ...q, after, limit });
      assert.ok(p, `page after ${after}`);
      pages.push(p.ids);
      if (!p.more) return pages;
      after = p.ids.at(-1);
    }
  }

  t('an owner\'s family in creation order, ties by id; pages follow `after` both ways; another instance sees the same', async (a, b) => {
    const t0 = 1_700_000_000_000;
    // Added out of order, two pairs created in the same millisecond, other owners and families around them.
    for (const e of [entry('v3', 'u1', 'video', t0 + 2), entry('v1', 'u1', 'video', t0), entry('v2b', 'u1', 'video', t0 + 1),
      entry('v2a', 'u1', 'video', t0 + 1), entry('v5', 'u1', 'video', t0 + 9), entry('v4', 'u1', 'video', t0 + 9),
      entry('x1', 'u2', 'video', t0 + 3), entry('art1', 'u1', 'art', t0 + 4)]) await (e.id.length % 2 ? a : b)[which].add(e);
    const asc = ['v1', 'v2a', 'v2b', 'v3', 'v4', 'v5'];
    assert.deepEqual(await b[which].page({ user: 'u1', family: 'video', limit: 10, order: 'asc' }), { ids: asc, more: false });
    assert.deepEqual(await walk(a, { user: 'u1', family: 'video', order: 'desc' }, 4), [['v5', 'v4', 'v3', 'v2b'], ['v2a', 'v1']]);
    assert.deepEqual(await walk(b, { user: 'u1', family: 'video', order: 'asc' }, 2), [['v1', 'v2a'], ['v2b', 'v3'], ['v4', 'v5']]);
    assert.deepEqual(await a[which].page({ user: 'u1', family: 'video', limit: 3, order: 'asc', after: 'v5' }), { ids: [], more: false }, 'after the last: empty');
    assert.deepEqual(await a[which].page({ user: 'u1', family: 'video', limit: 6, order: 'asc' }), { ids: asc, more: false }, 'exactly full: no more');
    assert.deepEqual((await a[which].page({ user: 'u1', limit: 10, order: 'asc' }))!.ids, ['v1', 'v2a', 'v2b', 'v3', 'art1', 'v4', 'v5'], 'an owner, every family');
    assert.deepEqual((await b[which].page({ family: 'video', limit: 10, order: 'desc' }))!.ids, ['v5', 'v4', 'x1', 'v3', 'v2b', 'v2a', 'v1'], 'a family, every owner');
    assert.equal((await b[which].page({ limit: 100, order: 'asc' }))!.ids.length, 8, 'everything (an operator\'s listing)');
  });

  t('a cursor the filters do not list is refused: unknown, removed, another owner\'s, another family\'s', async (a, b) => {
    await a[which].add(entry('mine', 'u1', 'video', 10));
    await a[which].add(entry('mine2', 'u1', 'video', 11));
    await a[which].add(entry('theirs', 'u2', 'video', 12));
    await a[which].add(entry('art', 'u1', 'art', 13));
    const q = { user: 'u1', family: 'video', limit: 5, order: 'desc' as const };
    for (const after of ['nope', 'theirs', 'art', '']) assert.equal(await b[which].page({ ...q, after }), undefined, after);
    assert.deepEqual(await b[which].page({ ...q, after: 'mine2' }), { ids: ['mine'], more: false });
    await b[which].remove('mine2');
    await b[which].remove('mine2'); // again: nothing to do
    assert.equal(await a[which].page({ ...q, after: 'mine2' }), undefined, 'removed');
    assert.deepEqual(await a[which].page(q), { ids: ['mine'], more: false });
    assert.deepEqual(await a[which].page({ user: 'u2', limit: 5, order: 'asc', after: 'theirs' }), { ids: [], more: false });
  });

  t('add is idempotent: a second add of an id keeps the first entry; remove takes it out of every listing', async (a, b) => {
    await a[which].add(entry('t1', 'u1', 'video', 100));
    await a[which].add(entry('t2', 'u1', 'video', 200));
    await b[which].add(entry('t1', 'u9', 'art', 300)); // a retried submit re-adds it
    assert.deepEqual((await a[which].page({ user: 'u1', family: 'video', limit: 5, order: 'asc' }))!.ids, ['t1', 't2']);
    assert.deepEqual((await a[which].page({ user: 'u9', limit: 5, order: 'asc' }))!.ids, []);
    await b[which].remove('t1');
    for (const q of [{ user: 'u1', family: 'video' }, { user: 'u1' }, { family: 'video' }, {}]) {
      assert.deepEqual((await a[which].page({ ...q, limit: 5, order: 'asc' }))!.ids, ['t2'], JSON.stringify(q));
    }
  });

  t('prune drops the oldest entries created before a time, in bounded batches', async (a, b) => {
    for (let i = 0; i < 7; i++) await a[which].add(entry(`old${i}`, `u${i % 2}`, 'video', 1000 + i));
    await a[which].add(entry('new', 'u0', 'video', 5000));
    assert.equal(await b[which].prune(2000, 5), 5);
    assert.equal(await b[which].prune(2000, 5), 2);
    assert.equal(await b[which].prune(2000, 5), 0);
    for (const q of [{ user: 'u0', family: 'video' }, { user: 'u0' }, { family: 'video' }, {}]) {
      assert.deepEqual((await a[which].page({ ...q, limit: 20, order: 'asc' }))!.ids, ['new'], JSON.stringify(q));
    }
    assert.deepEqual((await a[which].page({ user: 'u1', limit: 20, order: 'asc' }))!.ids, []);
  });

  t('owners whose names share a prefix or contain separators never see each other\'s tasks', async (a) => {
    await a[which].add(entry('p1', 'a:b', 'c', 1));
    await a[which].add(entry('p2', 'a', 'b:c', 2));
    await a[which].add(entry('p3', 'é', 'x', 3));
    assert.deepEqual((await a[which].page({ user: 'a:b', family: 'c', limit: 5, order: 'asc' }))!.ids, ['p1']);
    assert.deepEqual((await a[which].page({ user: 'a', family: 'b:c', limit: 5, order: 'asc' }))!.ids, ['p2']);
    assert.deepEqual((await a[which].page({ user: 'é', family: 'x', limit: 5, order: 'asc' }))!.ids, ['p3']);
    await a[which].remove('p3');
    assert.deepEqual((await a[which].page({ user: 'é', limit: 5, order: 'asc' }))!.ids, []);
  });

  t('the tasks\' and the files\' catalogs are apart: an entry in one is in no listing of the other', async (a, b) => {
    const other = which === 'catalog' ? 'files' : 'catalog';
    await a[which].add(entry('here', 'u1', 'video', 10));
    await a[other].add(entry('there', 'u1', 'video', 11));
    assert.deepEqual((await b[which].page({ user: 'u1', limit: 5, order: 'asc' }))!.ids, ['here']);
    assert.equal(await b[which].page({ user: 'u1', limit: 5, order: 'asc', after: 'there' }), undefined);
    assert.equal(await b[which].prune(100, 10), 1);
    assert.deepEqual((await b[other].page({ user: 'u1', limit: 5, order: 'asc' }))!.ids, ['there']);
  });
}
