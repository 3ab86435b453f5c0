// Money cannot be minted or overdrawn: every price input is checked before anything is reserved, and a charge never
// exceeds its reservation (what usage asks beyond it is recorded as uncharged), on SQLite and on Redis alike.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startStack, type Stack } from './helpers/stack.js';
import { post, chatUrl, assertShapeA, expectedCharge } from './helpers/api.js';
import { call } from './helpers/video.js';
import { pngBytes } from '../simulator/server.js';
import { redisSkip, startRedis, type RedisServer } from './helpers/redis.js';

const redisSkipped = redisSkip('the Redis money tests');
let redis: RedisServer | undefined;
const stacks: Record<string, Stack> = {};

before(async () => {
  stacks.sqlite = await startStack();
  if (!redisSkipped) {
    redis = await startRedis();
    stacks.redis = await startStack({ storeUri: `${redis.uri}/0` });
  }
});
after(async () => {
  for (const s of Object.values(stacks)) await s.close();
  await redis?.stop();
});

const both = (name: string, fn: (s: Stack) => Promise<void>) => {
  test(`sqlite: ${name}`, { timeout: 30_000 }, () => fn(stacks.sqlite));
  test(`redis: ${name}`, { timeout: 30_000, skip: redisSkipped }, () => fn(stacks.redis));
};

/** Asserts a 400 naming `field`, with no ledger entry and the balance untouched. */
async function refused(s: Stack, path: string, body: unknown, field: string, code = 'invalid_request') {
  const { key, id } = await s.token({ quota: 1_000_000 });
  const r = await post(`${s.url}${path}`, body, key);
  assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.status} ${r.text}`);
  const message = r.json.error?.message ?? r.json.message;
  assert.ok(String(message).includes(`\`${field}\``), `${message} names ${field}`);
  if (r.json.error) assert.equal(r.json.error.code, code);
  assert.equal(await s.balance(id), 1_000_000, 'nothing was reserved');
  assert.deepEqual((await s.gw.store.quota.entries(id)).map((e) => e.kind), [], 'nothing reserved on any level');
}

const video = (extra: Record<string, unknown>) => ({ model: 'sora-2', prompt: 'a fox', ...extra });

both('negative, zero, fractional, padded, exponent or out-of-range durations are 400 naming the field', async (s) => {
  await refused(s, '/v1/video/generations', video({ metadata: { duration: -1000 } }), 'metadata.duration');
  await refused(s, '/v1/video/generations', video({ metadata: { duration: 0.001 } }), 'metadata.duration');
  await refused(s, '/v1/video/generations', video({ metadata: { duration: 1e308 } }), 'metadata.duration');
  await refused(s, '/v1/video/generations', video({ metadata: { duration: '5' }, seconds: '0' }), 'seconds');
  await refused(s, '/v1/video/generations', video({ duration: 99 }), 'duration');
  await refused(s, '/v1/video/generations', video({ metadata: { duration: ' 8' } }), 'metadata.duration');
  await refused(s, '/v1/video/generations', video({ metadata: { duration: '8e0' } }), 'metadata.duration');
  await refused(s, '/vendork/v1/videos/text2video', { model_name: 'kling-v2-master', prompt: 'x', duration: '11' }, 'duration');
  await refused(s, '/alpha/ent/v2/text2video', { model: 'alphaq2-pro', prompt: 'x', duration: 0 }, 'duration');
});

both('a valid duration is charged exactly: a string of digits or an integer, within the model\'s bounds', async (s) => {
  const { key, id } = await s.token({ quota: 100_000 });
  const r = await call(s, key, 'POST', '/v1/video/generations', video({ metadata: { duration: 8 }, prompt: 'ok [sim polls=50]' }));
  assert.equal(r.status, 200, r.text);
  assert.equal(await s.balance(id), 100_000 - 800);
});

both('a price variant follows the request: sora-2-pro\'s 1024p sizes are 500 a second, its 720p ones 300', async (s) => {
  const { key, id } = await s.token({ quota: 100_000 });
  const hd = await call(s, key, 'POST', '/v1/video/generations', { model: 'sora-2-pro', prompt: 'hd [sim polls=50]', seconds: '4', size: '1792x1024' });
  assert.equal(hd.status, 200, hd.text);
  assert.equal(await s.balance(id), 100_000 - 4 * 500);
  const sd = await call(s, key, 'POST', '/v1/video/generations', { model: 'sora-2-pro', prompt: 'sd [sim polls=50]', seconds: '4', size: '1280x720' });
  assert.equal(sd.status, 200, sd.text);
  assert.equal(await s.balance(id), 100_000 - 4 * 500 - 4 * 300);
});

// A whole number above the model's maximum is lowered to it (completion-clamp.test.ts); past 2^31 − 1 it is refused.
both('chat limits past 2^31 − 1, or not safe integers, are 400 before any reservation (never a 5xx)', async (s) => {
  const chat = (extra: Record<string, unknown>) => ({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], ...extra });
  await refused(s, '/v1/chat/completions', chat({ max_tokens: 1e20 }), 'max_tokens');
  await refused(s, '/v1/chat/completions', chat({ max_completion_tokens: 2 ** 31 }), 'max_completion_tokens');
  await refused(s, '/v1/chat/completions', chat({ max_tokens: 2 ** 53 + 2 }), 'max_tokens');
});

both('a flood of unpriceable submits leaks no in-flight slot: the group can still submit afterwards', async (s) => {
  const { key } = await s.token({ quota: 10_000_000 });
  for (let i = 0; i < 60; i++) {
    const r = await post(`${s.url}/v1/video/generations`, video({ metadata: { duration: 1e308 } }), key);
    assert.equal(r.status, 400);
  }
  const ok = await post(`${s.url}/v1/video/generations`, video({ prompt: 'after the flood [sim polls=50]' }), key);
  assert.equal(ok.status, 200, ok.text);
});

both('images: n above the model\'s bound is 400; a multipart `n` string is parsed strictly and every image is charged', async (s) => {
  await refused(s, '/v1/images/generations', { model: 'dall-e-3', prompt: 'x', n: 2 }, 'n');
  const { key, id } = await s.token({ quota: 10_000 });
  const form = new FormData();
  form.append('model', 'gpt-image-2');
  form.append('prompt', 'add a moon');
  form.append('n', '3');
  form.append('image', new Blob([new Uint8Array(pngBytes(64, 64))], { type: 'image/png' }), 'a.png');
  const res = await fetch(`${s.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  // Priced by tokens: three images' output tokens (1056 each, medium squares) at $30 and the input at $8 per million.
  const usage = JSON.parse(text).usage as { input_tokens: number; output_tokens: number };
  assert.equal(usage.output_tokens, 3 * 1056);
  // A usage-priced answer settles just after it is sent (on Redis, a moment later).
  const charge = Math.ceil((usage.input_tokens * 8000 + usage.output_tokens * 30000) / 1e6);
  await eventually(async () => (await s.balance(id)) === 10_000 - charge);
  const bad = new FormData();
  bad.append('model', 'gpt-image-2');
  bad.append('prompt', 'x');
  bad.append('n', '2.5');
  bad.append('image', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'a.png');
  const r = await fetch(`${s.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: bad });
  assert.equal(r.status, 400);
  assert.match((await r.json() as { error: { message: string } }).error.message, /`n`/);
});

// "a " repeated is one token per 2 bytes for the simulator (it counts words), twice the 4-bytes-a-token estimate.
const bigPrompt = { model: 'gpt-4o', max_tokens: 1, messages: [{ role: 'user', content: 'a '.repeat(200_000) }] };

both('usage beyond the reservation is never charged: the charge stops at the reservation and the rest is recorded as uncharged', async (s) => {
  const { key, id } = await s.token({ quota: 300 });
  const r = await post(chatUrl(s), bigPrompt, key);
  assert.equal(r.status, 200, r.text.slice(0, 300));
  assert.equal(r.json.usage.prompt_tokens, 200_000);
  await new Promise((res) => setTimeout(res, 100)); // the close entry is written just after the answer
  const balance = (await s.balance(id))!;
  assert.ok(balance >= 0, `balance ${balance}`);
  const entries = (await s.gw.store.quota.entries(id)).filter((e) => e.kind !== 'topup');
  const reserve = entries.find((e) => e.kind === 'reserve')!;
  const close = entries.find((e) => e.kind === 'settle')!;
  assert.equal(close.amount, 0, 'charged exactly the reservation');
  assert.equal(300 - balance, reserve.amount);
  const cost = expectedCharge({ input_per_mtok: 2500, output_per_mtok: 10000 }, r.json.usage.prompt_tokens, r.json.usage.completion_tokens);
  assert.equal(close.uncharged, cost - reserve.amount, 'the usage would cost 501; what the reservation did not cover was not charged');
  const metrics = await (await fetch(`${s.url}/metrics`)).text();
  assert.match(metrics, /switchyard_quota_units_total\{kind="uncharged"\} [1-9]/);
});

both('50 oversized prompts at once across two instances never take a balance below zero', async (s) => {
  const peer = await s.peer();
  try {
    const { key, id } = await s.token({ quota: 3000 });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(chatUrl(i % 2 ? peer : s), bigPrompt, key)));
    const served = answers.filter((a) => a.status === 200).length;
    assert.ok(served >= 1 && answers.every((a) => a.status === 200 || a.status === 403), answers.map((a) => a.status).join(','));
    await new Promise((res) => setTimeout(res, 200));
    const balance = (await s.balance(id))!;
    assert.ok(balance >= 0, `balance ${balance}`);
    const sum = (await s.gw.store.quota.entries(id)).reduce((acc, e) => acc + e.amount, 0);
    assert.equal(3000 - sum, balance, 'the token\'s ledger explains its wallet\'s balance');
  } finally {
    await peer.close();
  }
});

test('a refused reservation gets 403 insufficient_user_quota in Shape A (no ledger entry)', async () => {
  const s = stacks.sqlite;
  const { key, id } = await s.token({ quota: 1 });
  const r = await post(chatUrl(s), { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, key);
  assertShapeA(r, 403, 'insufficient_user_quota', 'platform_api_error');
  assert.deepEqual((await s.gw.store.quota.entries(id)).map((e) => e.kind), [], 'nothing reserved on any level');
});
