// Several workers (node:cluster, SWITCHYARD_WORKERS) on one port and one SQLite store, as `npm run serve` and the image
// run by default: the ledger stays conserved and a group's rate limit holds across workers, and a SIGTERM to the
// primary stops every worker.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { TokenStore } from '../src/store/token-store.js';
import { checkAccount } from './helpers/conservation.js';
import { quickTaskConfig, simulatorAndStore, spawnGateway } from './helpers/child-gateway.js';
import { until } from './helpers/wait.js';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => undefined); });

const chat = (url: string, key: string, text: string) => fetch(`${url}/v1/chat/completions`, {
  method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] }),
}).then(async (r) => ({ status: r.status, body: await r.text() }));

test('two workers: conserved money, one rate limit, one stop', { timeout: 90_000 }, async () => {
  const { sim, storeUri, store } = await simulatorAndStore('switchyard-workers-', cleanups);
  // The default group is held to 40 requests a minute here, counted across both workers; vip keeps its 3,000.
  const config = quickTaskConfig({}, [[['groups', 'default', 'rate_limit'], { requests: 40, window_s: 60 }]]);
  const env = { SWITCHYARD_STORE: storeUri, SWITCHYARD_SIM_URL: sim.url, SWITCHYARD_CONFIG_DIR: config, SWITCHYARD_WORKERS: '2' };
  const gw = await spawnGateway(env);
  cleanups.push(() => gw.stop());

  const tokens = new TokenStore(store, 0);
  const quota = 500;
  const spender = await tokens.create({ group: 'vip', quota });
  // 300 requests, 30 at a time, on a balance that runs out part way: some are refused with 403, none overdraws.
  const statuses: number[] = [];
  for (let wave = 0; wave < 10; wave++) {
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => chat(gw.url, spender.key, `w${wave} r${i} [sim usage=${Buffer.from(JSON.stringify({ prompt_tokens: 20_000, completion_tokens: 2000 })).toString('base64url')}]`)));
    statuses.push(...answers.map((a) => a.status));
  }
  assert.ok(statuses.includes(200) && statuses.includes(403), `some served, then refused for quota: ${[...new Set(statuses)]}`);
  // Each worker writes its closed requests every 50 ms: once every reservation has its close, the ledger is whole.
  await until('every reservation closed on the ledger', async () => {
    const kinds = (await store.quota.entries(spender.record.id)).map((e) => e.kind);
    return kinds.filter((k) => k === 'reserve').length === kinds.filter((k) => k === 'settle' || k === 'refund').length;
  }, 20_000);
  const balance = (await store.quota.balance(spender.record.id))!;
  assert.ok(balance >= 0, `never overdrawn (${balance})`);
  checkAccount(spender.record.id, balance, await store.quota.entries(spender.record.id), []);

  const limited = await tokens.create({ group: 'default', quota: 1_000_000 });
  const burst = await Promise.all(Array.from({ length: 100 }, (_, i) => chat(gw.url, limited.key, `burst ${i}`)));
  const served = burst.filter((a) => a.status === 200).length;
  assert.ok(served <= 40, `the group's 40 a minute hold across workers: ${served} served`);
  assert.ok(served >= 30, `most of the window is usable: ${served} served`);
  assert.equal(served + burst.filter((a) => a.status === 429).length, 100);

  assert.equal(await gw.stop(), 0, 'SIGTERM to the primary drains and stops both workers');
  console.log(`2 workers on one SQLite store: ${statuses.filter((s) => s === 200).length} of 300 requests served before the balance ran out, ` +
    `balance ${balance} = topup − charges; ${served} of 100 burst requests served under a 40-a-minute limit`);
});

test('a config that stops every worker from starting stops the primary too, instead of restarting them in a loop', { timeout: 30_000 }, async () => {
  const t0 = Date.now();
  const failed = await spawnGateway({ SWITCHYARD_WORKERS: '2', SWITCHYARD_ADMIN_KEY: 'too-short' }).then(() => undefined, (e: Error) => e.message);
  assert.match(String(failed), /gateway exited \(1\)/);
  assert.match(String(failed), /the admin key must be at least 32 characters/);
  assert.ok(Date.now() - t0 < 15_000);
});
