// kill -9 of a gateway with realtime sessions open mid-response: the vendor's sockets close with the process, the
// next start gives back every open hold, the responses already reported stay charged once; nothing is left open and
// the balance is the top-up minus the charges.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { TokenStore } from '../src/store/token-store.js';
import { checkAccount } from './helpers/conservation.js';
import { quickTaskConfig, simulatorAndStore, spawnGateway, type ChildGateway } from './helpers/child-gateway.js';
import { until } from './helpers/stack.js';
import { moneyAccountOf } from './helpers/api.js';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => undefined); });

/** Opens a session, has one response finish (charged), then starts a long one; resolves mid-response. */
async function busySession(url: string, key: string): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/realtime?model=gpt-realtime-2.1`, { headers: { authorization: `Bearer ${key}` } });
  ws.on('error', () => undefined);
  const seen = (type: string) => new Promise<void>((r) => { const on = (d: WebSocket.RawData) => { if (JSON.parse(String(d)).type === type) { ws.off('message', on); r(); } }; ws.on('message', on); });
  const say = (text: string) => {
    ws.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } }));
    ws.send(JSON.stringify({ type: 'response.create' }));
  };
  await new Promise((r, j) => { ws.once('open', r); ws.once('unexpected-response', () => j(new Error('refused'))); });
  say('first');
  await seen('response.done');
  say('a long one [sim chunks=500 interval_ms=100]');
  await seen('response.output_audio.delta');
  return ws;
}

test('kill -9 with 5 realtime sessions mid-response: holds back, charges kept once, nothing open', { timeout: 60_000 }, async () => {
  const { sim, storeUri, store } = await simulatorAndStore('switchyard-rt-crash-', cleanups);
  const env = { SWITCHYARD_STORE: storeUri, SWITCHYARD_SIM_URL: sim.url, SWITCHYARD_CONFIG_DIR: quickTaskConfig() };
  const initial = 1_000_000;
  const { key, record } = await new TokenStore(store, 0).create({ group: 'default', quota: initial });
  let a: ChildGateway | undefined = await spawnGateway(env);
  cleanups.push(() => a?.kill() ?? Promise.resolve());

  const clients = await Promise.all(Array.from({ length: 5 }, () => busySession(a!.url, key)));
  const clientsClosed = Promise.all(clients.map((ws) => new Promise((r) => ws.once('close', r))));
  const money = await moneyAccountOf(store, record.id); // the gateway's start made the token a user's
  const held = initial - (await store.quota.balance(money))!;
  assert.ok(held > 0, 'five sessions hold part of the balance');
  const vendorOpen = sim.control.openRealtimeSessions();
  assert.equal(vendorOpen, 5);

  // The store writes closed requests every 50 ms (SWITCHYARD_QUOTA_FLUSH_MS): a crash forgives at most that window,
  // so the kill waits until the five finished responses are written.
  await until('the finished responses are on the ledger', async () => (await store.quota.entries(record.id)).filter((e) => e.kind === 'settle').length >= 5, 20_000);
  const finished = sim.control.realtimeSessions().reduce((n, s) => n + s.responseUsages.length, 0);
  assert.equal(finished, 5, 'the vendor finished one response per session before the kill');
  await a.kill();
  a = undefined;
  await clientsClosed;
  await until('the vendor sockets close with the process', () => sim.control.openRealtimeSessions() === 0, 5000);
  const b = await spawnGateway(env);
  cleanups.push(() => b.kill());
  await until('no reservation left open', async () => (await store.quota.openOwners()).length === 0, 20_000);

  const entries = await store.quota.entries(record.id);
  const settles = entries.filter((e) => e.kind === 'settle');
  const charged = entries.filter((e) => e.kind !== 'topup').reduce((n, e) => n + e.amount, 0);
  checkAccount(record.id, (await store.quota.balance(record.id))!, entries, []);
  assert.ok(settles.length >= 5, `each finished response was charged (balance ${await store.quota.balance(money)}, held ${held}): ${JSON.stringify(entries.map((e) => [e.kind, e.request, e.amount]))}`);
  assert.equal(await store.quota.balance(money), initial - charged, 'balance = top-up − charges');

  // The dead sessions' slots stay taken until their lease lapses (a minute): the token's other three open at once.
  const again = await Promise.all(Array.from({ length: 3 }, () => busySession(b.url, key)));
  for (const ws of again) ws.terminate();
  console.log(`kill -9 with 5 realtime sessions open (${held} units held): after the restart every hold was back, ${charged} units charged for 5 finished responses`);
  await b.stop();
});
