// POST /v1/videos/{id}/remix through the official openai client: a new task priced like its source (same model and
// seconds, reserved before the vendor is called), sent to the vendor with the source's vendor id, answered with the
// source's public id; sources not completed, not the caller's, or of a family without remix are refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startStack, type Stack } from './helpers/stack.js';
import { fastTasks, call, waitFinal, ledgerKinds } from './helpers/video.js';
import { client, assertShapeA } from './helpers/api.js';
import { expectedFileBytes } from '../simulator/video/index.js';

let stack: Stack;
before(async () => { stack = await startStack(); fastTasks(stack); });
after(async () => { await stack.close(); });

const simTask = (marker: string) => stack.sim.control.videoTasks().find((t) => t.prompt.includes(marker))!;

async function finishedSora(key: string, marker: string, seconds: '4' | '8' = '8') {
  const v = await client(stack, key).videos.create({ model: 'sora-2', prompt: `${marker} [sim polls=0]`, seconds, size: '1280x720' });
  await waitFinal(stack, key, `/v1/videos/${v.id}`);
  return v.id;
}

test('videos.remix: a new task like its source, the vendor asked with the source\'s vendor id, answered with public ids only', async () => {
  const { key, id: account } = await stack.token();
  const ai = client(stack, key);
  const source = await finishedSora(key, 'remix-src');
  const vendorSource = simTask('remix-src').id;
  const before = (await stack.balance(account))!;
  const remix = await ai.videos.remix(source, { prompt: 'now with snow [sim polls=0 size_bytes=3000]' });
  assert.match(remix.id, /^task_/);
  assert.notEqual(remix.id, source);
  assert.equal(remix.object, 'video');
  assert.equal(remix.model, 'sora-2');
  assert.equal(remix.remixed_from_video_id, source, 'the source\'s public id');
  assert.equal(before - (await stack.balance(account))!, 800, 'priced like the source: 8 s of sora-2');

  const sent = stack.sim.control.requests().find((r) => r.method === 'POST' && r.path.endsWith('/remix'))!;
  assert.equal(sent.path, `/v1/videos/${vendorSource}/remix`);
  assert.deepEqual(sent.body, { prompt: 'now with snow [sim polls=0 size_bytes=3000]' });
  // The vendor's own listing (it counts as no poll) shows which of its videos the new one was made from.
  const atVendor = await (await fetch(`${stack.sim.url}/v1/videos?limit=100`, { headers: { authorization: 'Bearer sim-key' } })).json();
  assert.equal(atVendor.data.find((v: { id: string }) => v.id === simTask('now with snow').id).remixed_from_video_id, vendorSource);

  const done = await waitFinal(stack, key, `/v1/videos/${remix.id}`);
  assert.equal(done.status, 'completed');
  assert.equal(done.remixed_from_video_id, source);
  assert.equal(done.seconds, '8');
  assert.equal(done.size, '1280x720');
  assert.equal(done.prompt, 'now with snow [sim polls=0 size_bytes=3000]');
  assert.equal((await ai.videos.retrieve(source)).remixed_from_video_id, null);
  for (const answer of [remix, done]) {
    for (const vendorId of [vendorSource, simTask('now with snow').id]) assert.ok(!JSON.stringify(answer).includes(vendorId), 'no vendor id in an answer');
  }
  const bytes = Buffer.from(await (await ai.videos.downloadContent(remix.id)).arrayBuffer());
  assert.ok(bytes.equals(expectedFileBytes(simTask('now with snow').fileName, 3000)));
  assert.deepEqual(await ledgerKinds(stack, account, remix.id), ['reserve:800', 'settle:0']);
  assert.deepEqual((await ai.videos.list({ limit: 2 })).data.map((v) => v.id), [remix.id, source]);
  // A remix is a video like any other: it can be remixed in turn, and as multipart too.
  const form = new FormData();
  form.set('prompt', 'again [sim polls=0]');
  const again = await fetch(`${stack.url}/v1/videos/${remix.id}/remix`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  assert.equal(again.status, 200);
  assert.equal((await again.json()).remixed_from_video_id, remix.id);
});

test('sources refused: not completed (400), someone else\'s or unknown (404), a family without remix (400); nothing charged', async () => {
  const { key, id: account } = await stack.token();
  const other = await stack.token();
  const ai = client(stack, key);
  const running = await ai.videos.create({ model: 'sora-2', prompt: 'still-going [sim polls=1000]' });
  const failed = await ai.videos.create({ model: 'sora-2', prompt: 'broken [sim polls=0 fail=1]' });
  await waitFinal(stack, key, `/v1/videos/${failed.id}`);
  const theirs = await finishedSora(other.key, 'theirs');
  const veo = await call(stack, key, 'POST', '/v1/video/generations', { model: 'veo3', prompt: 'no remix here [sim polls=0]' });
  await waitFinal(stack, key, `/v1/videos/${veo.json.id}`);
  const before = (await stack.balance(account))!;
  stack.sim.control.clear();
  const remix = (id: string, body: unknown = { prompt: 'x' }) => call(stack, key, 'POST', `/v1/videos/${encodeURIComponent(id)}/remix`, body);

  assertShapeA(await remix(running.id), 400, 'task_not_completed', 'platform_api_error', running.id);
  assertShapeA(await remix(failed.id), 400, 'task_not_completed', 'platform_api_error', 'failed');
  assertShapeA(await remix(theirs), 404, 'task_not_found', 'platform_api_error');
  assertShapeA(await remix('task_nope'), 404, 'task_not_found', 'platform_api_error');
  const long = await remix('t'.repeat(4000));
  assertShapeA(long, 404, 'task_not_found', 'platform_api_error');
  assert.ok(long.text.length < 400);
  const noRemix = await remix(veo.json.id);
  assertShapeA(noRemix, 400, 'invalid_request', 'platform_api_error', 'veo3');
  assert.match(noRemix.json.error.message, /does not offer it/);
  await assert.rejects(ai.videos.remix(theirs, { prompt: 'x' }), (e: unknown) => e instanceof OpenAI.NotFoundError);
  assert.equal(await stack.balance(account), before);
  assert.deepEqual(stack.sim.control.requests().filter((r) => r.method !== 'GET'), [], 'no vendor was asked anything (the poller only polls)');
});

test('the body is the change only: a missing prompt or another field is 400; too little quota is 403 before the vendor', async () => {
  const { key } = await stack.token();
  const source = await finishedSora(key, 'body-src', '4');
  stack.sim.control.clear();
  assertShapeA(await call(stack, key, 'POST', `/v1/videos/${source}/remix`, {}), 400, 'invalid_request', 'platform_api_error', 'prompt');
  assertShapeA(await call(stack, key, 'POST', `/v1/videos/${source}/remix`, { prompt: '' }), 400, 'invalid_request', 'platform_api_error', 'prompt');
  assertShapeA(await call(stack, key, 'POST', `/v1/videos/${source}/remix`, { prompt: 'x', seconds: '12' }), 400, 'invalid_request', 'platform_api_error', 'seconds');
  assertShapeA(await call(stack, key, 'POST', `/v1/videos/${source}/remix`, { prompt: 'x', model: 'sora-2-pro' }), 400, 'invalid_request', 'platform_api_error', 'model');

  const poor = await stack.token({ quota: 500 });
  const cheap = await finishedSora(poor.key, 'cheap-src', '4'); // 400 of 500
  assertShapeA(await call(stack, poor.key, 'POST', `/v1/videos/${cheap}/remix`, { prompt: 'x' }), 403, 'insufficient_user_quota', 'platform_api_error');
  assert.equal(await stack.balance(poor.id), 100);
  assert.equal(stack.sim.control.requests().filter((r) => r.path.endsWith('/remix')).length, 0);
});
