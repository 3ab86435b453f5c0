// Sliding rate windows: the rule itself (no span of a window's length ever holds more than the limit, and a client
// told to retry after N ms is admitted then), the SQLite and Redis stores agreeing with it op for op, and the
// leases (rate-limiter.ts) that let several processes share one window without a store call per request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import { slideWindow, windowSpec, type Ring, type WindowOp, type RateWindows } from '../src/store/rate-window.js';
import { SqliteRateWindows } from '../src/store/sqlite-rate.js';
import { RedisRateWindows } from '../src/store/redis-rate.js';
import { openStateDb } from '../src/store/sqlite-state.js';
import { connectRedis } from '../src/store/redis-client.js';
import { RateLimiter } from '../src/pipeline/rate-limiter.js';
import { GatewayError } from '../src/http/errors.js';
import { redisSkip, startRedis, type RedisServer } from './helpers/redis.js';
import { agrees, random } from './helpers/rate-agreement.js';

const skip = redisSkip('the Redis rate window tests');
let redis: RedisServer | undefined;
before(async () => { if (!skip) redis = await startRedis(); });
after(async () => { await redis?.stop(); });

const op = (o: Partial<WindowOp> & Pick<WindowOp, 'spec' | 'limit'>): WindowOp => ({ key: 'k', give: 0, giveBucket: 0, add: 0, take: 0, ...o });

/** The most admissions within any span of `spanMs`. */
function mostInAnySpan(times: number[], spanMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while (times[j] - times[i] >= spanMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

test('whatever a client does, no span of the window holds more than the limit; a refused client is admitted when told', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const rnd = random(seed);
    const windowMs = [1000, 2000, 60_000][seed % 3];
    const limit = 1 + Math.floor(rnd() * 30);
    const spec = windowSpec(windowMs);
    let ring: Ring | undefined;
    let now = 1_700_000_000_000 + Math.floor(rnd() * windowMs);
    const admitted: number[] = [];
    for (let i = 0; i < 400; i++) {
      // Bursts, pauses and the moments just before and after sub-window edges.
      now += rnd() < 0.5 ? 0 : rnd() < 0.7 ? Math.floor(rnd() * spec.bucketMs) : Math.floor(rnd() * windowMs * 1.5);
      const { ring: r, result } = slideWindow(ring, op({ spec, limit, take: 1 }), now);
      ring = r;
      if (result.granted) { admitted.push(now); continue; }
      assert.ok(result.retryMs > 0 && result.retryMs <= windowMs + spec.bucketMs, `seed ${seed}: retry ${result.retryMs}`);
      const later = slideWindow(structuredClone(ring), op({ spec, limit, take: 1 }), now + result.retryMs);
      assert.equal(later.result.granted, 1, `seed ${seed}: refused again at the time it was told`);
      const early = slideWindow(structuredClone(ring), op({ spec, limit, take: 1 }), now + result.retryMs - 1);
      assert.equal(early.result.granted, 0, `seed ${seed}: admitted before the time it was told`);
    }
    assert.ok(mostInAnySpan(admitted, windowMs) <= limit, `seed ${seed}: ${mostInAnySpan(admitted, windowMs)} in one window, limit ${limit}`);
  }
});

test('a fixed window would pass twice the limit at its edge; the sliding window passes the limit', () => {
  const spec = windowSpec(60_000);
  const edge = 1_700_000_040_000; // a whole minute: where a fixed window of a minute starts afresh
  let ring: Ring | undefined;
  let passed = 0;
  for (const at of [edge - 100, edge + 100]) {
    for (let i = 0; i < 600; i++) {
      const s = slideWindow(ring, op({ spec, limit: 600, take: 1 }), at);
      ring = s.ring;
      passed += s.result.granted;
    }
  }
  assert.equal(passed, 600);
});

test('what a lease gives back frees its window; given back late (its sub-window gone), it changes nothing', () => {
  const spec = windowSpec(10_000);
  const t = 1_700_000_000_000;
  const taken = slideWindow(undefined, op({ spec, limit: 10, take: 8 }), t);
  assert.equal(taken.result.granted, 8);
  const back = slideWindow(taken.ring, op({ spec, limit: 10, give: 5, giveBucket: taken.result.bucket, take: 4 }), t + 10);
  assert.deepEqual([back.result.granted, back.result.total], [4, 7]);
  const late = slideWindow(back.ring, op({ spec, limit: 10, give: 3, giveBucket: taken.result.bucket - spec.buckets - 1 }), t + 20);
  assert.equal(late.result.total, 7);
  const tokens = slideWindow(late.ring, op({ spec, limit: 10, add: 50 }), t + 30);
  assert.equal(tokens.result.total, 57, 'usage reported after the fact counts whatever the limit');
  assert.ok(tokens.result.retryMs > 0);
});

function sqliteWindows(): RateWindows {
  return new SqliteRateWindows(openStateDb(join(mkdtempSync(join(tmpdir(), 'switchyard-rate-')), 'state.sqlite')));
}

async function redisWindows(): Promise<{ w: RedisRateWindows; close(): Promise<void> }> {
  const c = createClient({ url: `${redis!.uri}/9` });
  await c.connect();
  await c.flushDb();
  await c.close();
  const { client } = await connectRedis(`${redis!.uri}/9`);
  return { w: new RedisRateWindows(client), close: () => client.close() };
}

test('SQLite windows agree with the rule op for op', async () => {
  for (const seed of [1, 2, 3]) await agrees(sqliteWindows(), seed);
});

test('Redis windows agree with the rule op for op, each call touching one key', { skip }, async () => {
  const r = await redisWindows();
  try {
    for (const seed of [1, 2, 3]) await agrees(r.w, seed);
  } finally {
    await r.close();
  }
});

test('a Redis window expires once everything in it has left', { skip }, async () => {
  const r = await redisWindows();
  const c = createClient({ url: `${redis!.uri}/9` });
  await c.connect();
  try {
    const t0 = performance.now();
    await r.w.slide([op({ key: '{tok_x}:r', spec: windowSpec(2000), limit: 5, take: 1 })]);
    const ttl = await c.pTTL('sy:rate:{tok_x}:r');
    // Set to just over the window (up to one 100 ms sub-window more); the read comes a moment later, and TTLs are whole ms.
    const elapsed = Math.ceil(performance.now() - t0);
    assert.ok(ttl > 2000 - elapsed - 1 && ttl <= 2100, `ttl ${ttl} (read ${elapsed} ms after the slide began)`);
  } finally {
    await c.close();
    await r.close();
  }
});

test('two processes sharing one SQLite file admit no more than the limit in any window, without a store call per request', { timeout: 20_000 }, async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'switchyard-rate-')), 'state.sqlite');
  let calls = 0;
  const counted = (w: RateWindows): RateWindows => ({ slide: (ops, at) => { calls++; return w.slide(ops, at); } });
  const limiters = [0, 1].map(() => new RateLimiter(counted(new SqliteRateWindows(openStateDb(file)))));
  const admitted: number[] = [];
  let requests = 0;
  const until = Date.now() + 3000;
  await Promise.all(limiters.map(async (l) => {
    while (Date.now() < until) {
      requests++;
      try {
        await l.take('{tok_a}:r:200/1', 200, 1000);
        admitted.push(Date.now());
      } catch (err) {
        assert.ok(err instanceof GatewayError && err.status === 429);
        await new Promise((r) => setTimeout(r, 1));
      }
    }
  }));
  admitted.sort((a, b) => a - b);
  assert.ok(mostInAnySpan(admitted, 1000) <= 200, `${mostInAnySpan(admitted, 1000)} in one second`);
  assert.ok(admitted.length >= 400, `only ${admitted.length} admitted in 3 s at 200 a second`);
  assert.ok(calls < requests / 5, `${calls} store calls for ${requests} requests`);
  await Promise.all(limiters.map((l) => l.close()));
});

test('what a process leased and did not use goes back when its sub-window ends', { timeout: 10_000 }, async () => {
  const w = sqliteWindows();
  const a = new RateLimiter(w);
  const spec = windowSpec(20_000);
  await new Promise((r) => setTimeout(r, spec.bucketMs - (Date.now() % spec.bucketMs) + 5)); // all within one sub-window
  for (let i = 0; i < 7; i++) await a.take('{tok_b}:r:1000/20', 1000, 20_000); // leases of 1, 1, 2, 4: one left over
  const [held] = await w.slide([op({ key: '{tok_b}:r:1000/20', spec, limit: 1000 })]);
  assert.equal(held.total, 8, 'the unused one counts while its lease lasts');
  await new Promise((r) => setTimeout(r, spec.bucketMs + 600)); // the sub-window ends, the sync runs
  const [after] = await w.slide([op({ key: '{tok_b}:r:1000/20', spec, limit: 1000 })]);
  assert.equal(after.total, 7);
  await a.close();
});

test('tokens count when spent and refuse once the minute is used; another process sees them within a second', { timeout: 10_000 }, async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'switchyard-rate-')), 'state.sqlite');
  const [a, b] = [0, 1].map(() => new RateLimiter(new SqliteRateWindows(openStateDb(file))));
  assert.equal((await a.checkTokens('{tok_c}:t', 100)).remaining, 100);
  a.spendTokens('{tok_c}:t', 100, 60);
  assert.equal((await a.checkTokens('{tok_c}:t', 100)).remaining, 40, 'its own usage counts at once');
  a.spendTokens('{tok_c}:t', 100, 45);
  await assert.rejects(async () => a.checkTokens('{tok_c}:t', 100), (e: GatewayError) => {
    assert.equal(e.status, 429);
    assert.match(e.message, /100 tokens per minute/);
    const retry = Number(e.headers!['retry-after']);
    assert.ok(retry >= 59 && retry <= 63, `retry-after ${retry}`);
    assert.equal(e.headers!['x-ratelimit-remaining-tokens'], '0');
    return true;
  });
  await assert.rejects(async () => b.checkTokens('{tok_c}:t', 100), /Token rate limit reached/);
  await Promise.all([a.close(), b.close()]);
});
