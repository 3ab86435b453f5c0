// Simulator: the vendors' read-only endpoints that check a key without spending money (OpenAI's and Anthropic's model
// lists on one path, Gemini's ListModels, the Suno wrapper's account, midjourney-proxy's empty batch query), the plus
// proxy's speed prefixes, and gpt-image-2's custom sizes.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Simulator, pngDimensions, startSimulator } from '../simulator/server.js';

const KEY = 'sim-key';
let sim: Simulator;

before(async () => { sim = await startSimulator({ keys: [KEY] }); });
after(async () => { await sim.close(); });
beforeEach(() => { sim.control.clearMedia(); });

async function call(path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${sim.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try { parsed = JSON.parse(text); } catch { parsed = undefined; }
  return { status: res.status, body: parsed, text };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const anthropic = (key: string) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' });

test('GET /v1/models: OpenAI\'s list for a Bearer key, Anthropic\'s for x-api-key + anthropic-version, each vendor\'s 401', async () => {
  const openai = await call('/v1/models', bearer(KEY));
  assert.equal(openai.status, 200);
  assert.equal(openai.body.object, 'list');
  assert.ok(openai.body.data.every((m: any) => m.object === 'model' && typeof m.id === 'string' && Number.isInteger(m.created)));
  assert.equal((await call('/v1/models', bearer('wrong-key-0123456789'))).body.error.code, 'invalid_api_key');

  const claude = await call('/v1/models?limit=2', anthropic(KEY));
  assert.equal(claude.status, 200);
  assert.equal(claude.body.data.length, 2);
  assert.ok(claude.body.data.every((m: any) => m.type === 'model' && m.display_name && m.created_at));
  assert.equal(claude.body.has_more, true);
  assert.equal(claude.body.last_id, claude.body.data[1].id);
  const next = await call(`/v1/models?after_id=${claude.body.last_id}`, anthropic(KEY));
  assert.notEqual(next.body.data[0].id, claude.body.data[0].id);
  const denied = await call('/v1/models', anthropic('wrong'));
  assert.equal(denied.status, 401);
  assert.deepEqual(denied.body.error, { type: 'authentication_error', message: 'invalid x-api-key' });
  assert.equal((await call('/v1/models', { 'x-api-key': KEY })).status, 400, 'Anthropic needs its version header');
});

test('GET /v1beta/models: Gemini\'s ListModels with pages; a wrong key is Google\'s 400 API_KEY_INVALID', async () => {
  const first = await call('/v1beta/models?pageSize=2', { 'x-goog-api-key': KEY });
  assert.equal(first.status, 200);
  assert.equal(first.body.models.length, 2);
  assert.match(first.body.models[0].name, /^models\/gemini-/);
  assert.ok(first.body.models[0].supportedGenerationMethods.includes('generateContent'));
  const rest = await call(`/v1beta/models?pageToken=${first.body.nextPageToken}`, { 'x-goog-api-key': KEY });
  assert.ok(rest.body.models.length >= 1 && rest.body.nextPageToken === undefined);
  const bad = await call('/v1beta/models', { 'x-goog-api-key': 'nope' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.details[0].reason, 'API_KEY_INVALID');
});

test('Suno wrapper: GET /suno/account answers the credits left; a wrong key is 401', async () => {
  const ok = await call('/suno/account', bearer(KEY));
  assert.equal(ok.status, 200);
  assert.equal(ok.body.code, 'success');
  assert.equal(typeof ok.body.data.certificate.credits_left, 'number');
  assert.equal((await call('/suno/account', bearer('nope'))).status, 401);
});

test('midjourney-proxy: an empty batch query answers [] (the read-only check); speed prefixes reach every route', async () => {
  const empty = await call('/mj/task/list-by-condition', { 'mj-api-secret': KEY }, { ids: [] });
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.body, []);
  assert.equal((await call('/mj/task/list-by-condition', { 'mj-api-secret': 'nope' }, { ids: [] })).status, 403);

  const relax = await call('/mj-relax/mj/submit/imagine', { 'mj-api-secret': KEY }, { prompt: 'slow boat [sim polls=0]' });
  assert.equal(relax.body.code, 1);
  const plain = await call('/mj/submit/imagine', { 'mj-api-secret': KEY }, { prompt: 'default speed' });
  const turbo = await call('/mj-turbo/mj/submit/imagine', { 'mj-api-secret': KEY }, { prompt: 'quick' });
  const speeds = Object.fromEntries(sim.control.mediaTasks().map((t) => [t.id, t.speed]));
  assert.deepEqual([speeds[relax.body.result], speeds[plain.body.result], speeds[turbo.body.result]], ['RELAX', null, 'TURBO']);
  const fetched = await call(`/mj-relax/mj/task/${relax.body.result}/fetch`, { 'mj-api-secret': KEY });
  assert.equal(fetched.body.status, 'SUCCESS');
  assert.equal((await call('/mj-slow/mj/submit/imagine', { 'mj-api-secret': KEY }, { prompt: 'x' })).status, 404);
  sim.control.addFault({ path: '/mj-fast/mj/submit/imagine', status: 503, key: KEY });
  const fault = await call('/mj-fast/mj/submit/imagine', { 'mj-api-secret': KEY }, { prompt: 'x' });
  assert.equal(fault.status, 503);
  assert.equal(fault.body.error, 'Service Unavailable', 'the proxy\'s Spring error body, matched by its secret');
});

test('gpt-image-2: custom sizes in multiples of 16 up to 4K\'s pixels and 3:1; usage grows with the pixels', async () => {
  const gen = (size: string, quality = 'medium') =>
    call('/v1/images/generations', bearer(KEY), { model: 'gpt-image-2.5-flare', prompt: 'a kite', size, quality });
  const wide = await gen('1920x1088');
  assert.equal(wide.status, 200, wide.text);
  assert.deepEqual(pngDimensions(Buffer.from(wide.body.data[0].b64_json, 'base64')), { width: 1920, height: 1088 });
  assert.equal(wide.body.usage.output_tokens, Math.round((1056 * 1920 * 1088) / (1024 * 1024)));
  assert.equal((await gen('1536x1024')).body.usage.output_tokens, 1584, 'the standard sizes keep OpenAI\'s table');
  assert.equal((await gen('1024x1024', 'xhigh')).status, 200);
  for (const bad of ['1920x1080', '3072x1008', '4096x4096']) {
    const r = await gen(bad);
    assert.equal(r.status, 400, bad);
    assert.equal(r.body.error.param, 'size');
  }
  const older = await call('/v1/images/generations', bearer(KEY), { model: 'gpt-image-1', prompt: 'x', size: '1920x1088' });
  assert.equal(older.status, 400, 'gpt-image-1 keeps its three sizes');
});
