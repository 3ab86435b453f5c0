// The production config (deploy/config/) end to end for the video vendors of issue 19 — Vidu, the Volcengine visual API,
// Volcengine Ark (Seedance and its asset API), DashScope and MiniMax — with every <VENDOR>_BASE_URL pointed at the
// bundled simulator: each family submitted through the gateway's public routes, finished, downloaded and billed at the
// vendor file's list price, and each vendor reached with its own auth.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startProduction } from './helpers/production.js';
import type { Stack } from './helpers/stack.js';
import { call, fastTasks, ledgerKinds, waitFinal } from './helpers/video.js';

let stack: Stack;

before(async () => {
  stack = await startProduction();
  fastTasks(stack);
});
after(() => stack?.close());

/** The last request the simulator received whose path starts with `prefix`. */
const lastUpstream = (prefix: string, method = 'POST') =>
  stack.sim.control.requests().filter((r) => r.method === method && r.path.startsWith(prefix)).at(-1)!;

/** A unified submit, waited on until completed, its file downloaded through the gateway; returns the task id. */
async function unifiedVideo(key: string, body: Record<string, unknown>): Promise<string> {
  const sub = await call(stack, key, 'POST', '/v1/video/generations', body);
  assert.equal(sub.status, 200, sub.text);
  const done = await waitFinal(stack, key, `/v1/videos/${sub.json.id}`);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const file = await fetch(`${stack.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(file.status, 200);
  assert.equal(file.headers.get('content-type'), 'video/mp4');
  assert.ok((await file.arrayBuffer()).byteLength > 0);
  return sub.json.id;
}

/**
 * A fresh token; `charged` checks what its tasks were billed: the price of what was asked reserved, and settled once
 * at it, or (a vendor that reports what it billed, e.g. Ark's tokens) at what the vendor reported.
 */
async function account() {
  const { key, id } = await stack.token({ quota: 100_000 });
  return { key, charged: async (task: string, reserved: number, charge = reserved) => assert.deepEqual(await ledgerKinds(stack, id, task), [`reserve:${reserved}`, `settle:${charge - reserved}`]) };
}

test('Vidu: unified text, first+last frame and references, with `Token` auth; billed at the list price', async () => {
  const { key, charged } = await account();
  const text = await unifiedVideo(key, { model: 'viduq3-pro', prompt: 'a heron [sim polls=1]', seconds: '8' });
  assert.equal(lastUpstream('/ent/v2/').path, '/ent/v2/text2video');
  assert.equal(lastUpstream('/ent/v2/').headers.authorization, 'Token sim-key');
  await charged(text, 800);
  const frames = await unifiedVideo(key, { model: 'viduq2-pro', prompt: 'a heron lands [sim polls=1]', image: 'https://example.com/a.png', metadata: { last_frame_url: 'https://example.com/b.png' } });
  assert.equal(lastUpstream('/ent/v2/').path, '/ent/v2/start-end2video');
  // Vidu's Q2 curve at 720p: 25 credits for two seconds, then 10 a second ($0.005 a credit): 55 credits for 5 s.
  await charged(frames, 275);
  const refs = await unifiedVideo(key, { model: 'viduq1', prompt: 'two herons [sim polls=1]', images: ['https://example.com/a.png', 'https://example.com/b.png'] });
  const sent = lastUpstream('/ent/v2/');
  assert.equal(sent.path, '/ent/v2/reference2video');
  assert.deepEqual([(sent.body as { model: string }).model, (sent.body as { duration: number }).duration], ['viduq1', 5]);
  await charged(refs, 400);
});

test('Vidu on /alpha: the contract\'s model names reach Vidu as its own, answered in the vendor format', async () => {
  const { key, charged } = await account();
  const sub = await call(stack, key, 'POST', '/alpha/ent/v2/reference2video', {
    model: 'alphaq2-turbo', prompt: '@fox runs [sim polls=1]', subjects: [{ id: 'fox', images: ['https://example.com/fox.png'] }], duration: 4,
  });
  assert.equal(sub.status, 200, sub.text);
  assert.equal(sub.json.status, 'processing');
  assert.equal((lastUpstream('/ent/v2/').body as { model: string }).model, 'viduq2-turbo');
  const done = await waitFinal(stack, key, `/alpha/ent/v2/tasks/${sub.json.task_id}/creations`, (j) => ['success', 'failed'].includes(j?.state));
  assert.equal(done.state, 'success');
  const file = await fetch(done.creations[0].url, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(file.status, 200);
  // Q2 turbo at 720p: 10 credits for two seconds, then 10 a second ($0.005 a credit): 30 credits for 4 s.
  await charged(sub.json.task_id, 150);
  const text = await call(stack, key, 'POST', '/alpha/ent/v2/text2video', { model: 'alpha2.0', prompt: 'dawn [sim polls=0]' });
  assert.equal(text.status, 200, text.text);
  assert.deepEqual([(lastUpstream('/ent/v2/').body as { model: string }).model, (lastUpstream('/ent/v2/').body as { duration: number }).duration], ['vidu2.0', 4]);
  assert.equal((await waitFinal(stack, key, `/alpha/ent/v2/tasks/${text.json.task_id}/creations`, (j) => ['success', 'failed'].includes(j?.state))).state, 'success');
  // vidu2.0 renders 4 s at 360p by default: 20 credits ($0.10).
  await charged(text.json.task_id, 100);
});

test('Volcengine visual API on /art-official: an image and a video action, V4-signed for cn-north-1/cv; a result is free', async () => {
  const { key, id } = await stack.token({ quota: 1_000 });
  const signed = stack.sim.control.signatures().length;
  const visual = (action: string, body: unknown) => call(stack, key, 'POST', `/art-official?Action=${action}&Version=2022-08-31`, body);
  const image = await visual('CVSync2AsyncSubmitTask', { req_key: 'jimeng_t2i_v40', prompt: 'a bridge [sim polls=0]' });
  assert.equal(image.status, 200, image.text);
  assert.equal(image.json.code, 10000);
  const imageResult = await visual('CVSync2AsyncGetResult', { req_key: 'jimeng_t2i_v40', task_id: image.json.data.task_id, req_json: '{"return_url":true}' });
  assert.equal(imageResult.json.data.status, 'done');
  assert.equal(imageResult.json.data.image_urls.length, 1);
  const video = await visual('CVSync2AsyncSubmitTask', { req_key: 'jimeng_t2v_v30', prompt: 'waves [sim polls=0]', frames: 121 });
  assert.equal(video.status, 200, video.text);
  const videoResult = await visual('CVSync2AsyncGetResult', { req_key: 'jimeng_t2v_v30', task_id: video.json.data.task_id });
  assert.equal(videoResult.json.data.status, 'done');
  assert.match(videoResult.json.data.video_url, /\.mp4$/);
  assert.deepEqual(stack.sim.control.signatures().slice(signed).map((s) => `${s.service}:${s.action}:${s.ok}`),
    ['cv:CVSync2AsyncSubmitTask:true', 'cv:CVSync2AsyncGetResult:true', 'cv:CVSync2AsyncSubmitTask:true', 'cv:CVSync2AsyncGetResult:true']);
  assert.equal(await stack.balance(id), 1_000 - 29 - 221, 'the two submits at their list prices, the results free');
});

test('Ark: assets uploaded through /v1/vendors/asset/* (V4-signed for cn-beijing/ark), referenced as asset://, Seedance with Bearer', async () => {
  const { key, charged } = await account();
  const signed = stack.sim.control.signatures().length;
  const group = await call(stack, key, 'POST', '/v1/vendors/asset/CreateAssetGroup', { Name: 'products' });
  assert.equal(group.status, 200, group.text);
  const asset = await call(stack, key, 'POST', '/v1/vendors/asset/CreateAsset', { GroupId: group.json.Result.Id, URL: 'https://example.com/watch.png', AssetType: 'Image' });
  assert.equal(asset.status, 200, asset.text);
  const assetId = asset.json.Result.Id as string;
  for (let i = 0; i < 2; i++) await call(stack, key, 'POST', '/v1/vendors/asset/GetAsset', { Id: assetId });
  const listed = await call(stack, key, 'POST', '/v1/vendors/asset/ListAssets', { PageNumber: 1, PageSize: 10 });
  assert.equal(listed.json.Result.Items.find((a: { Id: string }) => a.Id === assetId).Status, 'Active');
  assert.ok(stack.sim.control.signatures().slice(signed).every((s) => s.service === 'ark' && s.ok));
  const unknown = await call(stack, key, 'POST', '/v1/vendors/asset/NoSuchAction', {});
  assert.equal(unknown.status, 404, 'Ark\'s own answer to an Action it lacks is relayed');

  const multi = await unifiedVideo(key, {
    model: 'doubao-seedance-2-0-260128', seconds: 4,
    content: [{ type: 'text', text: 'the watch turns [sim polls=1]' }, { type: 'image_url', image_url: { url: `asset://${assetId}` }, role: 'reference_image' }],
  });
  const sent = lastUpstream('/api/v3/contents/generations/tasks');
  assert.equal(sent.headers.authorization, 'Bearer sim-key');
  assert.equal((sent.body as { model: string }).model, 'doubao-seedance-2-0-260128');
  // Seedance 2.0 bills output tokens at ¥46 a million (7 CNY = 1 USD): 4 s at 720p is 1280 × 720 × 97 frames / 1024 =
  // 87,300 tokens, 574 units; the reservation is the dearest aspect ratio's tokens for 4 s.
  await charged(multi, 578, 574);
  const text = await unifiedVideo(key, { model: 'doubao-seedance-1-0-pro-250528', prompt: 'a lighthouse [sim polls=1]', metadata: { ratio: '21:9' } });
  assert.deepEqual([(lastUpstream('/api/v3/').body as { duration: number }).duration, (lastUpstream('/api/v3/').body as { ratio: string }).ratio], [5, '21:9']);
  // Seedance 1.0 pro at its default 1080p, 21:9 (2176 × 928 frames): 2176 × 928 × 24 × 5 / 1024 = 236,640 tokens at
  // ¥15 a million, 508 units; the reservation is the dearest 1080p ratio's (16:9, 1920 × 1088).
  await charged(text, 536, 508);
});

test('DashScope: the size from the model name, text and image to video, asynchronously', async () => {
  const { key, charged } = await account();
  const t2v = await unifiedVideo(key, { model: 'wan2.5-t2v-preview:1280*720', prompt: 'rain on a window [sim polls=1]', seconds: '10' });
  const sent = lastUpstream('/api/v1/services/');
  assert.equal(sent.headers['x-dashscope-async'], 'enable');
  assert.deepEqual([(sent.body as { model: string }).model, (sent.body as { parameters: { size: string } }).parameters.size], ['wan2.5-t2v-preview', '1280*720']);
  // ¥0.60 a second at 720P, 10 s (7 CNY = 1 USD): 857.14 units, rounded up once.
  await charged(t2v, 858);
  const i2v = await unifiedVideo(key, { model: 'wan2.2-i2v-plus:1920*1080', prompt: 'the leaves fall [sim polls=1]', image: 'https://example.com/tree.png' });
  assert.equal((lastUpstream('/api/v1/services/').body as { parameters: { resolution: string } }).parameters.resolution, '1080P');
  await charged(i2v, 500);
  const tooLong = await call(stack, key, 'POST', '/v1/video/generations', { model: 'wan2.2-t2v-plus:1920*1080', prompt: 'x', seconds: '10' });
  assert.equal(tooLong.status, 400, 'wan2.2 renders 5 s only: refused before anything is reserved');
});

test('MiniMax: a 7 s ask gets the 10 s clip, resolved through the files API; billed at the covering per-second price', async () => {
  const { key, charged } = await account();
  const id = await unifiedVideo(key, { model: 'MiniMax-Hailuo-02', prompt: 'a kite [sim polls=1]', seconds: '7' });
  const sent = lastUpstream('/v1/video_generation');
  assert.equal(sent.headers.authorization, 'Bearer sim-key');
  assert.deepEqual([(sent.body as { duration: number }).duration, (sent.body as { resolution: string }).resolution], [10, '768P']);
  assert.ok(stack.sim.control.requests().some((r) => r.path === '/v1/files/retrieve'), 'the download URL came from the files API');
  await charged(id, 560);
});
