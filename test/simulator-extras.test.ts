// Simulator extras: credential echo mode, Kling external_task_id, the submit_delay_ms directive, and the model lists.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Simulator, signKlingJwt, startSimulator } from '../simulator/server.js';
import { simCall, type SimInit } from './helpers/sim-call.js';
import { until } from './helpers/wait.js';

const KEY = 'sim-key-echo-0123456789';
let sim: Simulator;

before(async () => {
  sim = await startSimulator({ keys: [KEY] });
});

after(async () => {
  await sim.close();
});

beforeEach(async () => {
  sim.control.setEchoCredential(false);
  sim.control.clearVideo();
  sim.control.clearMedia();
  sim.control.clearFaults();
});

const call = (path: string, init?: SimInit) => simCall(sim, path, init);

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const kling = () => bearer(signKlingJwt('sim-ak', 'sim-sk'));
const endsWith = (v: unknown, credential: string) => typeof v === 'string' && v.endsWith(` ${credential}`);

test('echo off: an error body never carries the caller credential', async () => {
  const leaked = 'sk-wrong-but-secret-98765';
  const r = await call('/v1/chat/completions', { headers: bearer(leaked), body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } });
  assert.equal(r.status, 401);
  assert.equal(r.text.includes(leaked), false);
  assert.equal(r.body.echo, undefined);
  assert.deepEqual(await call('/_sim/echo').then((x) => x.body), { on: false });
});

test('echo switch over HTTP: GET/POST /_sim/echo, bad bodies refused', async () => {
  assert.deepEqual((await call('/_sim/echo', { body: { on: true } })).body, { on: true });
  assert.equal(sim.control.echoCredential(), true);
  assert.deepEqual((await call('/_sim/echo')).body, { on: true });
  assert.equal((await call('/_sim/echo', { body: { on: 'yes' } })).status, 400);
  assert.deepEqual((await call('/_sim/echo', { body: { on: false } })).body, { on: false });
  // The control plane itself is never echoed into.
  assert.equal((await call('/_sim/health', { headers: bearer(KEY) })).body.echo, undefined);
});

test('echo on: every string of a 401 body carries the credential', async () => {
  sim.control.setEchoCredential(true);
  const leaked = 'sk-wrong-but-secret-98765';
  const r = await call('/v1/video/create', { headers: bearer(leaked), body: { model: 'm', prompt: 'p' } });
  assert.equal(r.status, 401);
  const e = r.body.error;
  for (const field of ['message', 'type', 'code']) assert.ok(endsWith(e[field], leaked), `${field}: ${e[field]}`);
  assert.equal(e.param, null);
});

test('echo on: a Kling 400 echoes the whole JWT, numbers stay numbers', async () => {
  sim.control.setEchoCredential(true);
  const headers = kling();
  const jwt = headers.authorization.slice(7);
  const r = await call('/v1/videos/text2video', { headers, body: { prompt: 'p', duration: 5 } });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 1201);
  assert.ok(endsWith(r.body.message, jwt));
  assert.ok(endsWith(r.body.request_id, jwt));
});

test('echo on: 2xx bodies get `echo` and message-like fields only; a failed Sora task reports it in error.message', async () => {
  sim.control.setEchoCredential(true);
  const submit = await call('/v1/videos', { headers: bearer(KEY), body: { prompt: 'x [sim fail=1 polls=0]' } });
  assert.equal(submit.status, 200);
  assert.equal(submit.body.echo, KEY);
  assert.equal(submit.body.status, 'queued');
  assert.match(submit.body.id, /^video_[0-9a-f]+$/);
  const polled = await call(`/v1/videos/${submit.body.id}`, { headers: bearer(KEY) });
  assert.equal(polled.status, 200);
  assert.equal(polled.body.status, 'failed');
  assert.equal(polled.body.error.code, 'moderation_blocked');
  assert.ok(endsWith(polled.body.error.message, KEY));
  assert.equal(polled.body.echo, KEY);
  assert.equal(polled.body.id, submit.body.id);
});

test('echo on: Kling task_status_msg, Vidu err_code, midjourney failReason; faults too', async () => {
  sim.control.setEchoCredential(true);
  const headers = kling();
  const jwt = headers.authorization.slice(7);
  const k = await call('/v1/videos/text2video', { headers, body: { prompt: 'p [sim fail=1 polls=0]' } });
  assert.equal(k.body.code, 0);
  assert.ok(endsWith(k.body.message, jwt));
  const kq = await call(`/v1/videos/text2video/${k.body.data.task_id}`, { headers });
  assert.equal(kq.body.data.task_status, 'failed');
  assert.ok(endsWith(kq.body.data.task_status_msg, jwt));

  const token = { authorization: `Token ${KEY}` };
  const v = await call('/ent/v2/text2video', { headers: token, body: { model: 'viduq1', prompt: 'p [sim fail=1 polls=0]' } });
  assert.equal(v.body.state, 'created');
  const vq = await call(`/ent/v2/tasks/${v.body.task_id}/creations`, { headers: token });
  assert.equal(vq.body.state, 'failed');
  assert.ok(endsWith(vq.body.err_code, KEY));

  const mj = { 'mj-api-secret': KEY };
  const m = await call('/mj/submit/imagine', { headers: mj, body: { prompt: 'cat [sim fail=1 polls=0]' } });
  assert.equal(m.body.code, 1);
  const mq = await call(`/mj/task/${m.body.result}/fetch`, { headers: mj });
  assert.equal(mq.body.status, 'FAILURE');
  assert.ok(endsWith(mq.body.failReason, KEY));

  sim.control.addFault({ path: '/ent/v2/', status: 429, times: 1 });
  const f = await call('/ent/v2/text2video', { headers: token, body: { model: 'viduq1', prompt: 'p' } });
  assert.equal(f.status, 429);
  assert.equal(f.body.code, 429);
  assert.ok(endsWith(f.body.reason, KEY));
});

test('Kling external_task_id: echoed, queryable, unique, validated', async () => {
  const headers = kling();
  const submit = await call('/v1/videos/text2video', { headers, body: { prompt: 'p', external_task_id: 'order-42' } });
  assert.equal(submit.status, 200);
  assert.deepEqual(submit.body.data.task_info, { external_task_id: 'order-42' });
  const id = submit.body.data.task_id as string;

  const byExt = await call('/v1/videos/text2video/order-42', { headers });
  assert.equal(byExt.status, 200);
  assert.equal(byExt.body.data.task_id, id);
  assert.equal(byExt.body.data.task_status, 'submitted');
  assert.deepEqual(byExt.body.data.task_info, { external_task_id: 'order-42' });
  assert.equal((await call(`/v1/videos/text2video/${id}`, { headers })).body.data.task_status, 'processing');
  assert.equal(sim.control.videoTasks().find((t) => t.id === id)?.polls, 2);

  const wrongFamily = await call('/v1/videos/image2video/order-42', { headers });
  assert.equal(wrongFamily.status, 404);
  assert.equal(wrongFamily.body.code, 1203);

  const dup = await call('/v1/videos/image2video', { headers, body: { image: 'https://x/y.png', external_task_id: 'order-42' } });
  assert.equal(dup.status, 400);
  assert.equal(dup.body.code, 1201);
  assert.match(dup.body.message, /external_task_id/);

  for (const bad of ['', 'x'.repeat(65), 7]) {
    const r = await call('/v1/videos/text2video', { headers, body: { prompt: 'p', external_task_id: bad } });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 1201);
  }
  const plain = await call('/v1/videos/text2video', { headers, body: { prompt: 'p' } });
  assert.deepEqual(plain.body.data.task_info, {});
  assert.equal((await call('/v1/videos/text2video/no-such-ext', { headers })).body.code, 1203);
});

test('submit_delay_ms: the task is stored before the delayed answer, and stays when the caller leaves', async () => {
  const ac = new AbortController();
  const pending = fetch(`${sim.url}/v1/videos/text2video`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...kling() },
    body: JSON.stringify({ prompt: 'slow [sim submit_delay_ms=2000]' }),
    signal: ac.signal,
  });
  await until('the simulator has the submit', () => sim.control.videoTasks().length > 0, 10_000, 10);
  const stored = sim.control.videoTasks();
  assert.equal(stored.length, 1);
  assert.equal(stored[0].vendor, 'kling');
  ac.abort();
  await assert.rejects(pending);
  assert.equal(sim.control.videoTasks().length, 1);

  const started = Date.now();
  const r = await call('/v1/video/create', { headers: bearer(KEY), body: { model: 'm', prompt: 'p [sim submit_delay_ms=150]' } });
  assert.equal(r.status, 200);
  assert.ok(Date.now() - started >= 140, 'the answer waited');

  const mj = await call('/mj/submit/imagine', { headers: { 'mj-api-secret': KEY }, body: { prompt: 'cat', state: '[sim submit_delay_ms=120]' } });
  assert.equal(mj.body.code, 1);
  assert.equal(sim.control.mediaTasks().length, 1);
});

test('Ark DELETE: a queued task is cancelled and stops progressing; a finished one is deleted; a running one is refused', async () => {
  const submit = async (text: string) => (await call('/api/v3/contents/generations/tasks', {
    headers: bearer(KEY), body: { model: 'doubao-seedance-1-0-pro-250528', content: [{ type: 'text', text }] },
  })).body.id as string;
  const task = (id: string, method = 'GET') => call(`/api/v3/contents/generations/tasks/${id}`, { method, headers: bearer(KEY) });
  const queued = await submit('a [sim polls=3]');
  assert.deepEqual(await task(queued, 'DELETE'), { status: 200, body: {}, text: '{}' });
  for (let i = 0; i < 5; i++) assert.equal((await task(queued)).body.status, 'cancelled');
  assert.equal((await task(queued, 'DELETE')).status, 400, 'a cancelled task is neither cancelled nor deleted again');

  const running = await submit('b [sim polls=3]');
  await task(running);
  assert.equal((await task(running)).body.status, 'running');
  const refused = await task(running, 'DELETE');
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.code, 'InvalidParameter');

  const done = await submit('c [sim polls=0]');
  assert.equal((await task(done)).body.status, 'succeeded');
  assert.equal((await task(done, 'DELETE')).status, 200);
  assert.equal((await task(done)).status, 404);
  assert.equal((await task(done, 'DELETE')).status, 404);
  assert.equal((await call('/api/v3/contents/generations/tasks/cgt-x', { method: 'DELETE', headers: bearer('wrong') })).status, 401);
});

test('GET /v1/models: OpenAI\'s list with a Bearer key, Anthropic\'s with its headers; both check the key first', async () => {
  const openai = await call('/v1/models', { headers: bearer(KEY) });
  assert.equal(openai.status, 200);
  assert.equal(openai.body.object, 'list');
  assert.deepEqual(Object.keys(openai.body.data[0]), ['id', 'object', 'created', 'owned_by']);
  assert.equal((await call('/v1/models/gpt-4o', { headers: bearer(KEY) })).body.id, 'gpt-4o');
  const missing = await call('/v1/models/gpt-nope', { headers: bearer(KEY) });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'model_not_found');
  assert.equal((await call('/v1/models', { headers: bearer('wrong') })).body.error.code, 'invalid_api_key');
  const anthropicHeaders = { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };
  const claude = await call('/v1/models?limit=2', { headers: anthropicHeaders });
  assert.equal(claude.status, 200);
  assert.deepEqual(Object.keys(claude.body), ['data', 'has_more', 'first_id', 'last_id']);
  assert.equal(claude.body.data.length, 2);
  assert.equal(claude.body.has_more, true);
  assert.equal(claude.body.data[0].type, 'model');
  const all = await call('/v1/models?limit=1000', { headers: anthropicHeaders });
  assert.equal(all.body.has_more, false);
  const next = await call(`/v1/models?limit=1000&after_id=${claude.body.last_id}`, { headers: anthropicHeaders });
  assert.equal(next.body.has_more, false);
  assert.deepEqual(next.body.data.map((m: { id: string }) => m.id), all.body.data.slice(2).map((m: { id: string }) => m.id), 'after_id continues the list');
  assert.equal((await call('/v1/models/claude-sonnet-4-5', { headers: anthropicHeaders })).body.id, 'claude-sonnet-4-5-20250929');
  const refused = await call('/v1/models', { headers: { 'x-api-key': 'wrong', 'anthropic-version': '2023-06-01' } });
  assert.equal(refused.status, 401);
  assert.equal(refused.body.error.type, 'authentication_error');
  assert.equal((await call('/v1/models', { headers: { 'x-api-key': KEY } })).status, 400, 'anthropic-version is required');
});

test('GET /v1beta/models: Gemini\'s ListModels, paged; a wrong key is a 400 naming API_KEY_INVALID', async () => {
  const page = await call('/v1beta/models?pageSize=1', { headers: { 'x-goog-api-key': KEY } });
  assert.equal(page.status, 200);
  assert.match(page.body.models[0].name, /^models\//);
  const all = await call('/v1beta/models?pageSize=1000', { headers: { 'x-goog-api-key': KEY } });
  assert.equal(all.body.nextPageToken, undefined);
  const rest = await call(`/v1beta/models?pageSize=1000&pageToken=${page.body.nextPageToken}`, { headers: { 'x-goog-api-key': KEY } });
  assert.deepEqual(rest.body.models.map((m: { name: string }) => m.name), all.body.models.slice(1).map((m: { name: string }) => m.name), 'the page token continues the list');
  assert.equal(rest.body.nextPageToken, undefined);
  const wrong = await call('/v1beta/models', { headers: { 'x-goog-api-key': 'wrong' } });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.error.details[0].reason, 'API_KEY_INVALID');
});
