// Keys, quota, request validation, model access and rate limits on /v1/chat/completions: exact Shape A errors.
import { test as nodeTest, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../src/config/load-config.js';
import OpenAI from 'openai';
import { startStack, fixture, type Stack } from './helpers/stack.js';
import { post, chatUrl, assertShapeA, client, type RawReply } from './helpers/api.js';

// A stuck stream fails its test (and the after hook still closes the stack) instead of hanging the run.
const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 20_000 }, fn);

let stack: Stack;
let key: string;
const ok = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi [sim chunks=2]' }] };

before(async () => {
  stack = await startStack({ configDir: fixture('gateway') });
  ({ key } = await stack.token());
});
after(() => stack.close());

test('a valid key and body get 200 (the baseline every error below differs from)', async () => {
  const r = await post(chatUrl(stack), ok, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.choices[0].message.content, 'tok1 tok2 ');
});

test('missing key → 401 invalid_api_key', async () => {
  const r = await post(chatUrl(stack), ok);
  assertShapeA(r, 401, 'invalid_api_key', 'invalid_request_error', 'Missing API key');
});

test('wrong key → 401 invalid_api_key, also as the openai client sees it', async () => {
  const r = await post(chatUrl(stack), ok, 'sk-sy-not-a-real-key');
  assertShapeA(r, 401, 'invalid_api_key', 'invalid_request_error', 'Invalid API key');
  await assert.rejects(client(stack, 'sk-sy-not-a-real-key').chat.completions.create(ok as any), (e: unknown) => {
    assert.ok(e instanceof OpenAI.AuthenticationError);
    assert.equal(e.status, 401);
    assert.equal(e.code, 'invalid_api_key');
    return true;
  });
});

test('revoked token → 401 invalid_api_key on the very next request', async () => {
  const t = await stack.token();
  assert.equal((await post(chatUrl(stack), ok, t.key)).status, 200);
  assert.equal(await stack.gw.gateway.tokens.revoke(t.id), true);
  assertShapeA(await post(chatUrl(stack), ok, t.key), 401, 'invalid_api_key', 'invalid_request_error', 'Invalid API key');
});

test('token revoked with the switchyard CLI on the shared store → 401 on the next request (token_cache_ms 0)', async () => {
  const t = await stack.token();
  assert.equal((await post(chatUrl(stack), ok, t.key)).status, 200); // now cached in the gateway
  const cli = spawnSync(process.execPath, [join(projectRoot, 'dist', 'src', 'cli.js'), 'token', 'revoke', t.id], {
    env: { ...process.env, SWITCHYARD_STORE: stack.storeUri }, encoding: 'utf8', timeout: 20_000,
  });
  assert.equal(cli.status, 0, cli.stderr);
  assert.equal(cli.stdout.trim(), `revoked ${t.id}`);
  await new Promise((r) => setTimeout(r, 5));
  assertShapeA(await post(chatUrl(stack), ok, t.key), 401, 'invalid_api_key', 'invalid_request_error', 'Invalid API key');
});

test('token with quota 0 → 403 insufficient_user_quota, balance untouched', async () => {
  const t = await stack.token({ quota: 0 });
  const upstreamBefore = stack.sim.control.stats().requests;
  const r = await post(chatUrl(stack), ok, t.key);
  assertShapeA(r, 403, 'insufficient_user_quota', 'platform_api_error', 'Insufficient quota');
  assert.equal(await stack.balance(t.id), 0);
  assert.equal(stack.sim.control.stats().requests, upstreamBefore, 'no upstream call without quota');
});

test('missing model → 400 invalid_request naming `model`', async () => {
  const r = await post(chatUrl(stack), { messages: ok.messages }, key);
  assertShapeA(r, 400, 'invalid_request', 'invalid_request_error', '`model` is required');
});

test('bad JSON → 400 invalid_request', async () => {
  const r = await post(chatUrl(stack), '{"model": "gpt-4o-mini", "messages": [', key);
  assertShapeA(r, 400, 'invalid_request', 'invalid_request_error', 'Request body is not valid JSON');
});

test('messages[0].role wrong → 400 naming messages[0].role', async () => {
  const r = await post(chatUrl(stack), { model: 'gpt-4o-mini', messages: [{ role: 'robot', content: 'hi' }] }, key);
  assertShapeA(r, 400, 'invalid_request', 'invalid_request_error', '`messages[0].role` must be one of');
});

test('body over the route limit → 413 request_too_large (declared length and chunked)', async () => {
  const big = JSON.stringify({ ...ok, messages: [{ role: 'user', content: 'x'.repeat(70_000) }] });
  assertShapeA(await post(chatUrl(stack), big, key), 413, 'request_too_large', 'invalid_request_error', 'Request body exceeds 65536 bytes');
  const chunked = await new Promise<RawReply>((resolve, reject) => {
    const req = request(chatUrl(stack), { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => { text += c; }).on('end', () => {
        const headers = new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)]));
        resolve({ status: res.statusCode!, headers, text, json: JSON.parse(text) });
      });
    });
    req.on('error', reject);
    for (let i = 0; i < 7; i++) req.write(big.slice(i * 10_000, (i + 1) * 10_000));
    req.end(big.slice(70_000));
  });
  assertShapeA(chunked, 413, 'request_too_large', 'invalid_request_error', 'Request body exceeds 65536 bytes');
});

test('model outside the token allow-list → 403 model_not_allowed', async () => {
  const t = await stack.token({ models: ['gpt-4o'] });
  assertShapeA(await post(chatUrl(stack), ok, t.key), 403, 'model_not_allowed', 'invalid_request_error', 'gpt-4o-mini');
  assert.equal((await post(chatUrl(stack), { ...ok, model: 'gpt-4o' }, t.key)).status, 200);
});

test('model the group cannot reach → 404 model_not_found; the vip group can use it', async () => {
  const body = { ...ok, model: 'vip-large' };
  assertShapeA(await post(chatUrl(stack), body, key), 404, 'model_not_found', 'invalid_request_error', 'vip-large');
  assertShapeA(await post(chatUrl(stack), { ...ok, model: 'no-such-model' }, key), 404, 'model_not_found', 'invalid_request_error');
  const vip = await stack.token({ group: 'vip' });
  const r = await post(chatUrl(stack), body, vip.key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.model, 'vip-large');
});

test('group rate limit 3 per 60 s → the 4th request is 429 too_many_requests with retry-after', async () => {
  const t = await stack.token({ group: 'limited' });
  for (let i = 0; i < 3; i++) assert.equal((await post(chatUrl(stack), ok, t.key)).status, 200);
  const r = await post(chatUrl(stack), ok, t.key);
  assertShapeA(r, 429, 'too_many_requests', 'platform_api_error', 'Rate limit reached: 3 requests per 60 s');
  // The window slides in twentieths (3 s here): the three leave when their twentieth is a whole window old.
  const retry = Number(r.headers.get('retry-after'));
  assert.ok(retry >= 60 && retry <= 63, `retry-after ${retry}`);
  assert.equal(r.headers.get('x-ratelimit-limit-requests'), '3');
  assert.equal(r.headers.get('x-ratelimit-remaining-requests'), '0');
  // The window is per token: another token of the same group still passes.
  const other = await stack.token({ group: 'limited' });
  assert.equal((await post(chatUrl(stack), ok, other.key)).status, 200);
});

test('x-request-id is on every answer and errors quote the same id', async () => {
  const a = await post(chatUrl(stack), ok, key);
  const b = await post(chatUrl(stack), ok, 'sk-sy-wrong');
  const idA = a.headers.get('x-request-id');
  const idB = assertShapeA(b, 401, 'invalid_api_key', 'invalid_request_error');
  assert.match(idA ?? '', /^req_/);
  assert.notEqual(idA, idB);
});

test('10 concurrent requests on a balance that covers one reservation: one 200, nine 403, never negative', async () => {
  const raw = JSON.stringify(ok);
  const bytes = Buffer.byteLength(raw);
  // Reservation: prompt estimated at 4 bytes a token, completion at the model's max_output_tokens (16384).
  const reserve = Math.ceil((Math.ceil(bytes / 4) * 150 + 16384 * 600) / 1e6);
  const charge = Math.ceil((3 * 150 + 2 * 600) / 1e6); // "hi [sim chunks=2]": 3 prompt words, 2 completion tokens
  const t = await stack.token({ quota: reserve });
  const seen: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) { seen.push((await stack.balance(t.id))!); await new Promise((r) => setTimeout(r, 1)); }
  })();
  const replies = await Promise.all(Array.from({ length: 10 }, () => post(chatUrl(stack), raw, t.key)));
  sampling = false;
  await sampler;
  const statuses = replies.map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 403, 403, 403, 403, 403, 403, 403, 403, 403]);
  for (const r of replies.filter((x) => x.status === 403)) assertShapeA(r, 403, 'insufficient_user_quota', 'platform_api_error', `may cost up to ${reserve}`);
  assert.ok(seen.length > 0 && Math.min(...seen) >= 0, `balances seen: ${seen.join(',')}`);
  assert.equal(await stack.balance(t.id), reserve - charge);
  const entries = await stack.gw.store.quota.entries(t.id);
  assert.deepEqual(entries.map((e) => e.kind).sort(), ['reserve', 'settle']);
});
