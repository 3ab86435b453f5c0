// The admin API (/admin/*, enabled by SWITCHYARD_ADMIN_KEY) end to end: tokens created, listed, changed, topped up
// and revoked over HTTP and seen by the CLI's code path; usage grouped by model, route and day after real requests;
// tasks of every owner; channel health; reload; client tokens refused; and no admin route without the key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startStack, eventually, type Stack } from './helpers/stack.js';
import { assertShapeA, chatUrl, client, post } from './helpers/api.js';
import { projectRoot } from '../src/config/load-config.js';
import { usageClasses } from '../src/store/quota-ledger.js';
import { walletOf } from '../src/accounts/user-store.js';

const adminKey = 'adm-' + 'k'.repeat(40);
let stack: Stack;
let bare: Stack;

before(async () => {
  stack = await startStack({ env: { SWITCHYARD_ADMIN_KEY: adminKey } });
  bare = await startStack();
});
after(async () => { await stack.close(); await bare.close(); });

async function call(method: string, path: string, body?: unknown, key = adminKey, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.url}${path}`, {
    method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body), signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

test('tokens: create answers the key once; list, read, change, top up and revoke; the key works until revoked', async () => {
  const made = await call('POST', '/admin/tokens', { group: 'default', quota: 5000, user: 'alice', name: 'laptop', models: ['gpt-4o-mini'] });
  assert.equal(made.status, 201, made.text);
  assert.match(made.json.key, /^sk-sy-/);
  assert.deepEqual({ ...made.json, key: undefined, id: undefined, created_at: undefined }, {
    object: 'token', name: 'laptop', user: made.json.user, group: 'default', models: ['gpt-4o-mini'], expires_at: null, tokens_per_minute: null, revoked: false, balance: 5000,
    key: undefined, id: undefined, created_at: undefined, cap: null, cap_left: null, period_cap: null, cap_period: null,
  });
  const id = made.json.id as string;
  const alice = made.json.user as string;
  assert.equal((await call('GET', '/admin/users/alice')).json.id, alice, 'a user name no user had made a user of it');
  const got = await call('GET', `/admin/tokens/${id}`);
  assert.equal(got.status, 200);
  assert.equal(got.json.key, undefined, 'the key is never shown again');
  assert.equal(got.json.balance, 5000);
  assert.ok(!JSON.stringify((await call('GET', '/admin/tokens')).json).includes(made.json.key), 'no listing carries a key');

  const ok = await client(stack, made.json.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(ok.object, 'chat.completion');

  const changed = await call('PATCH', `/admin/tokens/${id}`, { group: 'vip', models: null, name: null });
  assert.equal(changed.status, 200, changed.text);
  assert.deepEqual([changed.json.group, changed.json.models, changed.json.name, changed.json.user], ['vip', null, null, alice]);

  const before = (await call('GET', `/admin/tokens/${id}`)).json.balance;
  const topped = await call('POST', `/admin/tokens/${id}/topup`, { amount: 700 }, adminKey, { 'idempotency-key': 'topup-1' });
  assert.equal(topped.status, 200, topped.text);
  assert.equal(topped.json.balance, before + 700);
  const again = await call('POST', `/admin/tokens/${id}/topup`, { amount: 700 }, adminKey, { 'idempotency-key': 'topup-1' });
  assert.equal(again.json.balance, before + 700, 'a retried topup with the same Idempotency-Key counts once');
  const topup = (await stack.gw.store.quota.entries(walletOf(alice))).filter((e) => e.kind === 'topup' && e.route === 'admin');
  assert.deepEqual(topup.map((e) => [e.amount, e.user]), [[-5000, alice], [-700, alice]], 'the token\'s quota and the topup, once, into the user\'s wallet');

  const revoked = await call('DELETE', `/admin/tokens/${id}`);
  assert.equal(revoked.status, 200);
  assert.equal(revoked.json.revoked, true);
  assert.equal(revoked.json.balance, before + 700, 'revoking keeps the money on the books');
  const refused = await post(chatUrl(stack), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, made.json.key);
  assertShapeA(refused, 401, 'invalid_api_key', 'invalid_request_error');
  const listed = await call('GET', `/admin/tokens?user=${alice}&revoked=true`);
  assert.deepEqual(listed.json.data.map((t: { id: string }) => t.id), [id]);
  assert.equal((await call('PATCH', `/admin/tokens/${id}`, { name: 'back' })).json.revoked, true, 'a change never un-revokes');
});

test('tokens: bad input is 400 naming the field, unknown ids 404, all in Shape A', async () => {
  const cases: [string, string, unknown, number, string, string][] = [
    ['POST', '/admin/tokens', { group: 'nope', quota: 1 }, 400, 'invalid_request', '`group`'],
    ['POST', '/admin/tokens', { group: 'default', quota: -1 }, 400, 'invalid_request', 'quota'],
    ['POST', '/admin/tokens', { group: 'default', quota: 1e20 }, 400, 'invalid_request', 'quota'],
    ['POST', '/admin/tokens', { group: 'default', quota: 1, models: ['sora-2', 'no-such'] }, 400, 'invalid_request', 'models[1]'],
    ['POST', '/admin/tokens', { group: 'default', quota: 1, extra: true }, 400, 'invalid_request', 'extra'],
    ['POST', '/admin/tokens', { group: 'default', quota: 1, tokens_per_minute: 0 }, 400, 'invalid_request', 'tokens_per_minute'],
    ['POST', '/admin/tokens', { group: 'default', quota: 1, tokens_per_minute: 2.5 }, 400, 'invalid_request', 'tokens_per_minute'],
    ['POST', '/admin/tokens', '{"group":', 400, 'invalid_request', 'JSON'],
    ['PATCH', '/admin/tokens/tok_0000', { name: 'x' }, 404, 'token_not_found', 'tok_0000'],
    ['PATCH', '/admin/tokens/tok_0000', {}, 400, 'invalid_request', ''],
    ['POST', '/admin/tokens/tok_0000/topup', { amount: 5 }, 404, 'token_not_found', ''],
    ['GET', '/admin/tokens/..%2f..%2fetc', undefined, 404, 'token_not_found', ''],
    ['DELETE', '/admin/tokens/tok_ffff', undefined, 404, 'token_not_found', ''],
    ['GET', '/admin/tokens?limit=0', undefined, 400, 'invalid_request', '`limit`'],
    ['GET', '/admin/usage?group_by=color', undefined, 400, 'invalid_request', '`group_by`'],
    ['GET', '/admin/usage?from=yesterday', undefined, 400, 'invalid_request', '`from`'],
    ['GET', '/admin/usage?from=2026-01-01&to=2020-01-01', undefined, 400, 'invalid_request', '`from`'],
    ['GET', '/admin/tasks?status=done', undefined, 400, 'invalid_request', '`status`'],
  ];
  for (const [method, path, body, status, code, names] of cases) {
    const r = await call(method, path, body);
    assertShapeA(r, status, code, 'invalid_request_error', names);
  }
  const { id } = await stack.token();
  const bad = await call('POST', `/admin/tokens/${id}/topup`, { amount: 0 });
  assertShapeA(bad, 400, 'invalid_request', 'invalid_request_error', 'amount');
  const idem = await call('POST', `/admin/tokens/${id}/topup`, { amount: 1 }, adminKey, { 'idempotency-key': 'x'.repeat(200) });
  assertShapeA(idem, 400, 'invalid_request', 'invalid_request_error', 'Idempotency-Key');
});

test('tokens: the token\'s own tokens_per_minute is set, shown and cleared through the API and the CLI', async () => {
  const made = await call('POST', '/admin/tokens', { group: 'default', quota: 10, tokens_per_minute: 5000 });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.json.tokens_per_minute, 5000);
  const id = made.json.id as string;
  assert.equal((await call('PATCH', `/admin/tokens/${id}`, { tokens_per_minute: 20 })).json.tokens_per_minute, 20);
  assert.equal((await call('PATCH', `/admin/tokens/${id}`, { tokens_per_minute: null })).json.tokens_per_minute, null);
  const cli = (...args: string[]) => spawnSync(process.execPath, [join(projectRoot, 'dist/src/cli.js'), ...args], { env: { ...process.env, SWITCHYARD_STORE: stack.storeUri }, encoding: 'utf8' });
  const created = cli('token', 'create', '--group', 'default', '--quota', '1', '--tokens-per-minute', '900');
  assert.equal(created.status, 0, created.stderr);
  const cliId = /created (tok_\w+)/.exec(created.stdout)![1];
  assert.equal((await call('GET', `/admin/tokens/${cliId}`)).json.tokens_per_minute, 900);
  const bad = cli('token', 'create', '--group', 'default', '--quota', '1', '--tokens-per-minute', 'lots');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /tokens_per_minute/);
});

test('only the admin key opens /admin: a client token is 403, anything else 401; without the key the routes do not exist', async () => {
  const { key } = await stack.token();
  assertShapeA(await call('GET', '/admin/tokens', undefined, key), 403, 'admin_key_required', 'invalid_request_error');
  assertShapeA(await call('GET', '/admin/tokens', undefined, adminKey.slice(0, -1)), 401, 'invalid_api_key', 'invalid_request_error');
  const none = await fetch(`${stack.url}/admin/tokens`);
  assert.equal(none.status, 401);
  const off = await fetch(`${bare.url}/admin/tokens`, { headers: { authorization: `Bearer ${adminKey}` } });
  assert.equal(off.status, 404, 'no admin key configured: no admin API');
  const check = spawnSync(process.execPath, [join(projectRoot, 'dist/src/cli.js'), 'check'], { env: { ...process.env, SWITCHYARD_ADMIN_KEY: 'short' }, encoding: 'utf8' });
  assert.equal(check.status, 1);
  assert.match(check.stderr, /SWITCHYARD_ADMIN_KEY: the admin key must be at least 32 characters/);
});

test('usage: requests on two models and a refused one, grouped by model, route, day and token', async () => {
  const made = await call('POST', '/admin/tokens', { group: 'default', quota: 1_000_000, user: 'bob' });
  const key = made.json.key as string;
  const id = made.json.id as string;
  const bob = made.json.user as string;
  const c = client(stack, key);
  for (let i = 0; i < 3; i++) await c.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `q${i}` }] });
  await c.embeddings.create({ model: 'text-embedding-3-small', input: 'a fox' });
  await post(chatUrl(stack), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x [sim status=500]' }] }, key);
  await eventually(async () => (await call('GET', `/admin/usage?token=${id}`)).json.total.requests === 5);
  const byModel = (await call('GET', `/admin/usage?token=${id}&group_by=model`)).json;
  assert.equal(byModel.object, 'usage');
  assert.equal(byModel.units_per_usd, 1000);
  const chat = byModel.data.find((r: { key: string }) => r.key === 'gpt-4o-mini');
  const emb = byModel.data.find((r: { key: string }) => r.key === 'text-embedding-3-small');
  assert.equal(chat.requests, 4, 'three answered and one refunded');
  assert.ok(chat.prompt_tokens > 0 && chat.completion_tokens > 0 && chat.charged > 0);
  assert.equal(emb.requests, 1);
  assert.ok(emb.prompt_tokens > 0 && emb.completion_tokens === 0);
  for (const r of [chat, emb, byModel.total]) {
    assert.ok(usageClasses.every((k) => Number.isInteger(r[k])), `token classes: ${JSON.stringify(r)}`);
    assert.equal('vendor_charged_usd' in r, r.vendor_charged > 0);
  }
  const spent = 1_000_000 - (await stack.balance(walletOf(bob)))!;
  assert.equal(byModel.total.charged, spent, 'the report adds up to what the wallet lost');
  assert.equal(byModel.total.charged_usd, spent / 1000);
  const byRoute = (await call('GET', `/admin/usage?token=${id}&group_by=route`)).json.data.map((r: { key: string; requests: number }) => [r.key, r.requests]);
  assert.deepEqual(byRoute, [['chat_completions', 4], ['embeddings', 1]]);
  const byDay = (await call('GET', `/admin/usage?user=${bob}&group_by=day&from=${Math.floor(Date.now() / 1000) - 86400}`)).json.data;
  assert.deepEqual(byDay.map((r: { key: string }) => r.key), [new Date().toISOString().slice(0, 10)]);
  const modelDay = (await call('GET', `/admin/usage?token=${id}&group_by=model,day`)).json;
  assert.equal(modelDay.group_by, 'model,day');
  assert.deepEqual(modelDay.data.map((r: { key: string; day: string; requests: number }) => [r.key, r.day, r.requests]),
    [['gpt-4o-mini', new Date().toISOString().slice(0, 10), 4], ['text-embedding-3-small', new Date().toISOString().slice(0, 10), 1]]);
  assert.equal((await call('GET', '/admin/usage?group_by=model,model')).status, 400);
  const byToken = (await call('GET', '/admin/usage?group_by=token')).json.data.map((r: { key: string }) => r.key);
  assert.ok(byToken.includes(id));
  const later = (await call('GET', `/admin/usage?token=${id}&from=${new Date(Date.now() + 2 * 3_600_000).toISOString()}&to=${new Date(Date.now() + 3 * 3_600_000).toISOString()}`)).json;
  assert.deepEqual(later.data, [], 'a range after the requests holds none');
  const entries = await stack.gw.store.quota.entries(id);
  assert.ok(entries.filter((e) => e.kind === 'settle').every((e) => e.model && e.route && e.channel === 'sim_openai' && e.user === bob));
});

test('usage explains charges by token class; `vendor_charged_usd` appears only where a vendor reported a charge', async () => {
  // A cap: the token's own account holds money to reserve from directly (an uncapped token's holds none).
  const id = (await call('POST', '/admin/tokens', { group: 'default', cap: 100_000, user: 'dora' })).json.id as string;
  const quota = stack.gw.store.quota;
  const classes = { cached_tokens: 300, cache_write_tokens: 20, reasoning_tokens: 40, audio_tokens: 5, image_tokens: 7 };
  const close = async (request: string, model: string, vendor_charged?: number) => {
    assert.equal(await quota.reserve(id, request, 5000, 'request', { user: 'dora', model, route: 'chat_completions' }), true);
    await quota.settle(id, request, 5000, 2000, { channel: 'sim_openai', prompt_tokens: 500, completion_tokens: 100, ...classes, vendor_charged });
  };
  await close('cls1', 'gpt-4o', 1500);
  await close('cls2', 'gpt-4o', 250);
  await close('cls3', 'gpt-4o-mini');
  const usage = (await call('GET', `/admin/usage?token=${id}`)).json;
  const classesOf = (r: Record<string, number>) => Object.fromEntries(usageClasses.map((k) => [k, r[k]]));
  const [big, mini] = usage.data;
  assert.deepEqual([big.key, classesOf(big), big.charged_usd, big.vendor_charged_usd],
    ['gpt-4o', { cached_tokens: 600, cache_write_tokens: 40, reasoning_tokens: 80, audio_tokens: 10, image_tokens: 14, vendor_charged: 1750 }, 4, 1.75]);
  assert.deepEqual([mini.key, classesOf(mini)], ['gpt-4o-mini', { ...classes, vendor_charged: 0 }]);
  assert.equal('vendor_charged_usd' in mini, false, 'no vendor charge reported: the row keeps its shape');
  assert.deepEqual([classesOf(usage.total), usage.total.vendor_charged_usd],
    [{ cached_tokens: 900, cache_write_tokens: 60, reasoning_tokens: 120, audio_tokens: 15, image_tokens: 21, vendor_charged: 1750 }, 1.75]);
});

test('billing endpoints for token holders: subscription and usage in OpenAI\'s dashboard shape', async () => {
  const { key, id } = await stack.token({ quota: 20_000 });
  const c = client(stack, key);
  await c.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });
  await eventually(async () => (await stack.gw.store.quota.totals(id)).requests === 1);
  const sub = await fetch(`${stack.url}/v1/dashboard/billing/subscription`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json());
  assert.equal(sub.object, 'billing_subscription');
  assert.equal(sub.hard_limit_usd, 20, 'what is left plus what was spent, in dollars: the opening 20,000 units');
  assert.equal(sub.balance, await stack.balance(id));
  const today = new Date().toISOString().slice(0, 10);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const usage = await fetch(`${stack.url}/v1/dashboard/billing/usage?start_date=${today}&end_date=${tomorrow}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json());
  const spent = 20_000 - (await stack.balance(id))!;
  assert.equal(usage.object, 'list');
  assert.equal(usage.total_usage, spent / 10, 'cents: units ÷ 1000 × 100');
  assert.deepEqual(usage.daily_costs.map((d: { line_items: { name: string }[] }) => d.line_items.map((l) => l.name)), [['gpt-4o-mini']]);
  const bad = await fetch(`${stack.url}/v1/dashboard/billing/usage?start_date=2020-01-01&end_date=2026-01-01`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(bad.status, 400);
  const anon = await fetch(`${stack.url}/v1/dashboard/billing/subscription`);
  assert.equal(anon.status, 401);
});

test('tasks of every owner, filtered by token and status; channels with health and latency; reload', async () => {
  const a = await stack.token();
  const b = await stack.token();
  for (const k of [a.key, b.key]) {
    const r = await post(`${stack.url}/v1/videos`, { model: 'sora-2', prompt: 'a fox [sim polls=50]', seconds: '4' }, k);
    assert.equal(r.status, 200, r.text);
  }
  const all = (await call('GET', '/admin/tasks?limit=100')).json;
  assert.equal(all.object, 'list');
  const mine = (await call('GET', `/admin/tasks?token=${a.id}`)).json.data;
  assert.equal(mine.length, 1);
  assert.equal(mine[0].owner.token, a.id);
  assert.equal(mine[0].channel, 'sim_openai');
  assert.equal(mine[0].quota.state, 'reserved');
  assert.ok(all.data.some((t: { owner: { token: string } }) => t.owner.token === b.id));
  assert.deepEqual((await call('GET', `/admin/tasks?token=${a.id}&status=completed`)).json.data, []);
  assertShapeA(await call('GET', '/admin/tasks?token=tok_404'), 404, 'token_not_found', 'invalid_request_error');

  const channels = (await call('GET', '/admin/channels')).json;
  const sim = channels.data.find((c: { id: string }) => c.id === 'sim_openai');
  assert.equal(sim.breaker, 'closed');
  assert.ok(sim.attempts > 0 && sim.latency_ms.p50 >= 0 && sim.error_rate !== null, JSON.stringify(sim));
  assert.equal(channels.data.find((c: { id: string }) => c.id === 'openai').enabled, false, 'no key: disabled');

  const reloaded = await call('POST', '/admin/reload');
  assert.equal(reloaded.status, 200);
  assert.deepEqual([reloaded.json.ok, reloaded.json.config], [true, stack.gw.gateway.runtime.hash]);
});
