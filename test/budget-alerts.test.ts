// Budget alerts (src/accounts/): one event per threshold, period and account across instances sharing a store (two
// on one SQLite file, two on one Redis server), as one log line and one signed webhook; several thresholds crossed at
// once each send, a new period sends again, a failing receiver is retried with back-off, observe() never waits, and
// the webhook's secret reaches no log.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { openStore, type Store } from '../src/store/open-store.js';
import { BudgetAlerts, type AlertSettings, type BudgetReading } from '../src/accounts/budget-alerts.js';
import { alertThresholds } from '../src/accounts/alert-thresholds.js';
import { claimKey, claimTtlMs } from '../src/accounts/alert-claims.js';
import { redisSkip, startRedis, type RedisServer } from './helpers/redis.js';
import { until } from './helpers/wait.js';

const secret = `whsec_${randomBytes(16).toString('hex')}`;
const skip = redisSkip('the Redis budget alert tests');
let redis: RedisServer | undefined;
before(async () => { if (!skip) redis = await startRedis(); });
after(async () => { await redis?.stop(); });

const uid = (p: string) => `${p}_${randomBytes(5).toString('hex')}`;

/** A webhook receiver on loopback: answers each request as the next scripted reply (200 once the script is used up). */
interface Received { body: string; signature: string; at: number }
async function receiver(script: (200 | 500 | 'stall')[] = []) {
  const got: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      got.push({ body, signature: String(req.headers['x-switchyard-signature']), at: Date.now() });
      const reply = script.shift() ?? 200;
      if (reply !== 'stall') res.writeHead(reply).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts?token=receivers-own`,
    got,
    /** The bodies whose signature is right, parsed. */
    events: () => got.filter((g) => g.signature === `sha256=${createHmac('sha256', secret).update(g.body).digest('hex')}`).map((g) => JSON.parse(g.body)),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** Two BudgetAlerts on two store connections to one store, logging into one list of lines. */
async function pair(open: () => Promise<Store>, settings: AlertSettings) {
  const lines: string[] = [];
  const log = pino({ level: 'debug' }, { write: (l: string) => { lines.push(l); } });
  const stores = [await open(), await open()];
  const alerts = stores.map((store) => new BudgetAlerts({ store, log, settings }));
  for (const a of alerts) a.start();
  let stopped = false;
  return {
    alerts, lines, stores,
    alertLines: () => lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'budget alert'),
    /** Once; again (from a test's `finally`) it does nothing. */
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.all(alerts.map((a) => a.stop()));
      for (const s of stores) await s.close();
    },
  };
}

const sqliteOpener = () => {
  const file = join(mkdtempSync(join(tmpdir(), 'switchyard-alerts-')), 'store.sqlite');
  return () => openStore(`sqlite://${file}`, { quotaFlushMs: 0 });
};
const backends: [string, () => () => Promise<Store>, string | false][] = [
  ['sqlite', sqliteOpener, false],
  ['redis', () => () => openStore(redis!.uri), skip],
];

const reading = (account: string, period: string, used: number, budget = 1000): BudgetReading => ({
  level: 'team', subject: account.slice(1).split('@')[0], account, period, resetsAt: '2099-12-01T00:00:00.000Z', budget, used,
});

for (const [name, opener, skipped] of backends) {
  test(`${name}: two instances observing the same crossings at once send one event per threshold and account`, { skip: skipped, timeout: 30_000 }, async () => {
    const hook = await receiver();
    const p = await pair(opener(), { webhook: { url: hook.url, secret, backoffMs: 50 } });
    try {
      const accounts = Array.from({ length: 20 }, () => `~${uid('team')}@m2026-11`);
      // Both instances see every settle of every account, in the same order, interleaved.
      for (const used of [100, 499, 500, 650, 799, 800, 950, 1000, 1200]) {
        for (const acc of accounts) for (const a of p.alerts) a.observe(reading(acc, 'm2026-11', used));
        await new Promise((r) => setImmediate(r));
      }
      await until('60 signed events', () => hook.events().length >= 60, 10_000);
      await new Promise((r) => setTimeout(r, 300)); // room for a duplicate to arrive, were there one
      assert.equal(await p.stores[0].jobs('budget-alerts').count(), 0, 'every delivery done');
      await p.stop();
      const events = hook.events();
      assert.equal(hook.got.length, 60, 'every delivery signed and none twice');
      const seen = events.map((e) => `${e.subject}|${e.period}|${e.threshold}`).sort();
      assert.deepEqual(seen, accounts.flatMap((acc) => [50, 80, 100].map((t) => `${acc.slice(1).split('@')[0]}|m2026-11|${t}`)).sort());
      assert.equal(new Set(events.map((e) => e.id)).size, 60, 'unique event ids');
      const lines = p.alertLines();
      assert.equal(lines.length, 60, 'one log line an event, across both instances');
      assert.deepEqual(new Set(lines.map((l) => l.event_id)), new Set(events.map((e) => e.id)));
      const e = events.find((x) => x.threshold === 80)!;
      assert.deepEqual(Object.keys(e).sort(), ['budget', 'id', 'level', 'period', 'resets_at', 'subject', 'threshold', 'time', 'type', 'used']);
      assert.equal(e.type, 'budget.threshold');
      assert.equal(e.level, 'team');
      assert.equal(e.budget, 1000);
      assert.ok(e.used >= 800 && e.used < 1000);
      assert.equal(e.resets_at, '2099-12-01T00:00:00.000Z');
      const line = lines.find((l) => l.event_id === e.id);
      assert.equal(line.level, 30, "pino's level stays the line's");
      assert.deepEqual([line.event, line.budget_level, line.subject, line.period, line.threshold, line.used], [e.type, e.level, e.subject, e.period, e.threshold, e.used]);
    } finally {
      await p.stop();
      await hook.close();
    }
  });

  test(`${name}: several thresholds crossed at once each send; a new period sends again`, { skip: skipped, timeout: 30_000 }, async () => {
    const hook = await receiver();
    const p = await pair(opener(), { thresholds: [100, 50, 80, 50], webhook: { url: hook.url, secret, backoffMs: 50 } });
    try {
      const team = uid('team');
      await Promise.all(p.alerts.map(async (a) => a.observe(reading(`~${team}@m2026-11`, 'm2026-11', 1000))));
      await until('three events', () => hook.events().length === 3, 10_000);
      assert.deepEqual(hook.events().map((e) => e.threshold).sort((x, y) => x - y), [50, 80, 100]);
      for (const a of p.alerts) a.observe(reading(`~${team}@m2026-12`, 'm2026-12', 820));
      await until('two more', () => hook.events().length === 5, 10_000);
      await new Promise((r) => setTimeout(r, 300));
      await p.stop();
      assert.deepEqual(hook.events().slice(3).map((e) => `${e.period} ${e.threshold}`).sort(), ['m2026-12 50', 'm2026-12 80']);
      assert.equal(p.alertLines().length, 5);
    } finally {
      await p.stop();
      await hook.close();
    }
  });
}

test('a failing receiver (500, then a stall) is retried with back-off until it takes the event', { timeout: 30_000 }, async () => {
  const hook = await receiver([500, 'stall', 200]);
  const p = await pair(sqliteOpener(), { webhook: { url: hook.url, secret, timeoutMs: 300, backoffMs: 100, maxAttempts: 5 } });
  try {
    p.alerts[0].observe(reading(`~${uid('team')}@d2026-11-29`, 'd2026-11-29', 500));
    await until('the third attempt', () => hook.got.length === 3, 10_000);
    await until('the job done', async () => (await p.stores[0].jobs('budget-alerts').count()) === 0, 5000);
    const [a1, a2, a3] = hook.got;
    assert.equal(new Set(hook.got.map((g) => g.body)).size, 1, 'every attempt sends the same body');
    assert.equal(hook.events().length, 3, 'every attempt signed');
    assert.ok(a2.at - a1.at >= 100, `first retry after the first back-off (${a2.at - a1.at} ms)`);
    // The stall is cut at the timeout, then the next retry waits twice as long as the first.
    assert.ok(a3.at - a2.at >= 300 + 200, `second retry after the timeout and a doubled back-off (${a3.at - a2.at} ms)`);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(hook.got.length, 3, 'no attempt after the success');
  } finally {
    await p.stop();
    await hook.close();
  }
});

test('a receiver that never takes the event is abandoned after the cap of attempts, said in a line naming its host only', { timeout: 30_000 }, async () => {
  const hook = await receiver([500, 500, 500, 500, 500]);
  const p = await pair(sqliteOpener(), { webhook: { url: hook.url, secret, backoffMs: 20, maxAttempts: 3 } });
  try {
    p.alerts[1].observe(reading(`~${uid('team')}@w2026-11-23`, 'w2026-11-23', 999));
    await until('an abandoned line', () => p.lines.some((l) => l.includes('budget alert webhook abandoned')), 10_000);
    assert.equal(hook.got.length, 6, 'two events (50 %, 80 %), three attempts each');
    const gone = p.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'budget alert webhook abandoned');
    assert.equal(gone[0].host, new URL(hook.url).host);
    assert.equal(gone[0].outcome, 'HTTP 500');
  } finally {
    await p.stop();
    await hook.close();
  }
  const all = p.lines.join('\n');
  assert.ok(!all.includes(secret), 'the secret is in no log line');
  assert.ok(!all.includes('receivers-own'), "the URL's query is in no log line");
});

test('observe() returns at once, costs next to nothing below the next threshold, and never throws', { timeout: 30_000 }, async () => {
  const lines: string[] = [];
  const store = await sqliteOpener()();
  const alerts = new BudgetAlerts({ store, log: pino({ level: 'debug' }, { write: (l: string) => { lines.push(l); } }), settings: {} });
  try {
    const acc = `~${uid('team')}@m2026-11`;
    assert.equal(alerts.observe(reading(acc, 'm2026-11', 600)), undefined);
    assert.equal(lines.length, 0, 'nothing happened yet on the caller\'s path: the claim runs after it');
    const below = Array.from({ length: 100 }, (_, i) => reading(acc, 'm2026-11', 600 + i));
    const n = 200_000;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) alerts.observe(below[i % 100]);
    const perCall = Number(process.hrtime.bigint() - t0) / n;
    // About 0.1 µs here; the bound only tells a map read from a store call (tens of µs at least), with room for a loaded machine.
    assert.ok(perCall < 5000, `${perCall.toFixed(0)} ns a call below the next threshold`);
    for (const bad of [null, {}, reading(acc, 'm2026-11', NaN), reading(acc, 'm2026-11', 5, 0)]) alerts.observe(bad as never);
    await alerts.stop();
    assert.deepEqual(lines.map((l) => JSON.parse(l)).map((l) => `${l.msg} ${l.threshold ?? ''}`), [
      'budget alert not raised ', // the null reading: a caller's bug is a warning, not an exception on its path
      'budget alert 50',
    ], 'one alert, for 50 %; without a webhook that is all');
  } finally {
    await alerts.stop();
    await store.close();
  }
});

test('thresholds are sorted and checked; claims are kept until the period ends plus a grace', () => {
  assert.deepEqual(alertThresholds(), [50, 80, 100]);
  assert.deepEqual(alertThresholds([90, 25, 90, 120]), [25, 90, 120]);
  assert.throws(() => alertThresholds([0]), RangeError);
  assert.throws(() => new BudgetAlerts({ store: {} as Store, log: pino({ enabled: false }), settings: { webhook: { url: 'http://x/', secret: '' } } }), /secret/);
  const now = Date.parse('2026-11-20T00:00:00Z');
  const day = 86_400_000;
  assert.equal(claimTtlMs({ account: 'a', period: 'm2026-11', resetsAt: '2026-12-01T00:00:00Z' }, now), 11 * day + 7 * day);
  assert.equal(claimTtlMs({ account: 'a', period: 'm2026-10', resetsAt: '2026-11-01T00:00:00Z' }, now), 7 * day, 'a settle after the boundary');
  assert.equal(claimTtlMs({ account: 'a', period: 'm2026-11' }, now), 38 * day);
  assert.equal(claimTtlMs({ account: '~usr_1' }, now), 90 * day);
  assert.equal(claimKey({ account: '~team_x@m2026-11', period: 'm2026-11' }, 80), 'budget-alert:~team_x@m2026-11|m2026-11|80');
});
