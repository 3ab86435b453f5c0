// kill -9 with streams and submits in flight: after a restart every reservation comes back and every in-flight slot
// is freed (SQLite and Redis), and a submit the vendor did accept is found again and finished, charged once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../simulator/server.js';
import { openStore, type Store } from '../src/store/open-store.js';
import { TokenStore } from '../src/store/token-store.js';
import { moneyAccountOf } from './helpers/api.js';
import { quickTaskConfig, spawnGateway, type ChildGateway } from './helpers/child-gateway.js';
import { redisSkip, startRedis, type RedisServer } from './helpers/redis.js';

const redisSkipped = redisSkip('the Redis crash test');
const cleanups: (() => Promise<unknown>)[] = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => undefined); });

/** Opens a stream and resolves once its first event arrived; the request stays open until the gateway dies. */
function openStream(url: string, key: string, i: number): Promise<void> {
  const body = JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: `s${i} [sim chunks=5000 interval_ms=200]` }] });
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => {
      res.once('data', () => resolve());
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.setTimeout(10_000, () => reject(new Error('stream did not start')));
    req.end(body);
  });
}

/** Sends a submit the vendor accepts at once but answers only after a minute: it is in flight when the gateway dies. */
function submitInFlight(url: string, key: string, path: string, body: Record<string, unknown>): void {
  const req = request(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => res.resume());
  req.on('error', () => undefined);
  req.end(JSON.stringify(body));
}

async function until(what: string, check: () => Promise<boolean>, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - t0;
}

async function scenario(name: string, storeUri: string): Promise<void> {
  const sim: Simulator = await startSimulator({ port: 0, keys: ['sim-key'] });
  cleanups.push(() => sim.close());
  // The test's own connection writes through (no quota hold of its own) and reads what the store says.
  const store: Store = await openStore(storeUri, { quotaFlushMs: 0 });
  cleanups.push(() => store.close());
  const env = { SWITCHYARD_STORE: storeUri, SWITCHYARD_SIM_URL: sim.url, SWITCHYARD_CONFIG_DIR: quickTaskConfig() };
  const initial = 1_000_000;
  const { key, record } = await new TokenStore(store, 0).create({ group: 'default', quota: initial });
  let a: ChildGateway | undefined = await spawnGateway(env);
  cleanups.push(() => a?.kill() ?? Promise.resolve());

  await Promise.all(Array.from({ length: 50 }, (_, i) => openStream(a!.url, key, i)));
  for (let i = 0; i < 5; i++) submitInFlight(a.url, key, '/v1/video/generations', { model: 'sora-2', prompt: `held ${i} [sim submit_delay_ms=60000 polls=1]` });
  for (let i = 0; i < 2; i++) {
    submitInFlight(a.url, key, '/vendork/v1/videos/text2video', { model_name: 'kling-v2-master', prompt: `kept ${i} [sim submit_delay_ms=60000 polls=1]`, duration: '5' });
  }
  await until('the vendor holds 7 submits', async () => sim.control.videoTasks().length === 7, 10_000);
  const money = await moneyAccountOf(store, record.id); // the gateway's start made the token a user's
  const held = initial - (await store.quota.balance(money))!;
  // sora-2 4 s at 100 a second (vendors/openai.yaml), kling-v2-master 5 s at 280 a second (vendors/kling.yaml).
  const sora = 4 * 100;
  const kling = 5 * 280;
  assert.ok(held >= 5 * sora + 2 * kling, `reservations and holds are out of the account (${held})`);
  assert.equal(await store.tasks.count(), 7, 'seven in-flight slots');

  await a.kill();
  a = undefined;
  const t0 = Date.now();
  const b = await spawnGateway(env);
  cleanups.push(() => b.kill());
  // The two submits the vendor accepted are found by their task id and finish; nothing else is charged.
  const expected = initial - 2 * kling;
  const left = () => 30_000 - (Date.now() - t0);
  await until('every reservation is back', async () => (await store.quota.balance(money)) === expected, left());
  const refunded = Date.now() - t0;
  await until('every slot is free', async () => (await store.tasks.count()) === 0, left());
  const freed = Date.now() - t0;
  const closes = (await store.quota.entries(record.id)).filter((e) => e.kind === 'settle').map((e) => e.request);
  assert.equal(closes.length, 2, 'the two accepted tasks were charged, once each');
  assert.equal(new Set(closes).size, 2);
  assert.deepEqual(await store.quota.openOwners(), [], 'no reservation is left open');
  console.log(`${name}: kill -9 with 50 streams and 7 submits in flight (${held} units out); after the restart the balance was ` +
    `back in ${(refunded / 1000).toFixed(1)} s and every slot free in ${(freed / 1000).toFixed(1)} s`);
  await b.stop();
}

test('sqlite: kill -9 mid-flight, restart: balances and slots come back within 30 s', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-crash-'));
  await scenario('sqlite', `sqlite://${join(dir, 'store.sqlite')}`);
});

test('redis: kill -9 mid-flight, restart: balances and slots come back within 30 s', { timeout: 60_000, skip: redisSkipped }, async () => {
  const redis: RedisServer = await startRedis();
  cleanups.push(() => redis.stop());
  await scenario('redis', `${redis.uri}/0`);
});
