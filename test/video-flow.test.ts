// Video task routes: the openai client, multipart, ownership, saturation (Shape B), family rules, Range, restart.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import { startStack, type Stack } from './helpers/stack.js';
import { fastTasks, call, waitFinal, ledgerKinds } from './helpers/video.js';
import { expectedFileBytes } from '../simulator/video/index.js';

let stack: Stack;
before(async () => { stack = await startStack(); fastTasks(stack); });
after(async () => { await stack.close(); });

const simTask = (marker: string) => stack.sim.control.videoTasks().find((t) => t.prompt.includes(marker))!;

test('the official openai client: videos.create, retrieve, downloadContent', async () => {
  const { key } = await stack.token();
  const client = new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  const created = await client.videos.create({ model: 'sora-2', prompt: 'sdk-flow [sim polls=1 size_bytes=70000]', seconds: '4' });
  assert.match(created.id, /^task_/);
  let v = await client.videos.retrieve(created.id);
  for (let i = 0; i < 200 && v.status !== 'completed' && v.status !== 'failed'; i++) {
    await new Promise((r) => setTimeout(r, 30));
    v = await client.videos.retrieve(created.id);
  }
  assert.equal(v.status, 'completed');
  assert.equal(v.seconds, '4');
  const content = await client.videos.downloadContent(created.id);
  const bytes = Buffer.from(await content.arrayBuffer());
  assert.ok(bytes.equals(expectedFileBytes(simTask('sdk-flow').fileName, 70000)));
});

test('POST /v1/videos multipart: input_reference file reaches the vendor as a file, steered to landscape', async () => {
  const { key } = await stack.token();
  const client = new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000010000000100806000000', 'hex');
  stack.sim.control.clear();
  const created = await client.videos.create({
    model: 'sora-2', prompt: 'multipart-ref [sim polls=1]', size: '720x1280',
    input_reference: await toFile(png, 'ref.png', { type: 'image/png' }),
  });
  assert.match(created.id, /^task_/);
  const sent = stack.sim.control.requests().find((r) => r.method === 'POST' && r.path === '/v1/videos')!;
  assert.match(String(sent.headers['content-type']), /^multipart\/form-data/);
  const body = JSON.stringify(sent.body);
  assert.match(body, /ref\.png/);
  assert.match(body, /1280x720/, 'a reference image turns the portrait size into landscape');
});

test('another user gets 404 for the task, its content and its vendor-format view', async () => {
  const owner = await stack.token();
  const other = await stack.token();
  const sub = await call(stack, owner.key, 'POST', '/v1/video/generations', { model: 'veo3', prompt: 'mine [sim polls=0]' });
  await waitFinal(stack, owner.key, `/v1/videos/${sub.json.id}`);
  for (const path of [`/v1/videos/${sub.json.id}`, `/v1/video/generations/${sub.json.id}`, `/v1/videos/${sub.json.id}/content`]) {
    const r = await call(stack, other.key, 'GET', path);
    assert.equal(r.status, 404, path);
    assert.equal(r.json.error.code, 'task_not_found');
  }
  assert.equal((await call(stack, owner.key, 'GET', `/v1/videos/${sub.json.id}/content`)).status, 200);
});

test('content before completion is 400 task_not_completed; Range passes through as 206', async () => {
  const { key } = await stack.token();
  const slow = await call(stack, key, 'POST', '/v1/video/generations', { model: 'veo3', prompt: 'slow [sim polls=1000]' });
  const early = await call(stack, key, 'GET', `/v1/videos/${slow.json.id}/content`);
  assert.equal(early.status, 400);
  assert.equal(early.json.error.code, 'task_not_completed');

  const sub = await call(stack, key, 'POST', '/v1/video/generations', { model: 'viduq1', prompt: 'ranged [sim polls=0 size_bytes=5000]' });
  await waitFinal(stack, key, `/v1/videos/${sub.json.id}`);
  const r = await fetch(`${stack.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}`, range: 'bytes=100-199' } });
  assert.equal(r.status, 206);
  assert.equal(r.headers.get('content-range'), 'bytes 100-199/5000');
  const bytes = Buffer.from(await r.arrayBuffer());
  assert.ok(bytes.equals(expectedFileBytes(simTask('ranged').fileName, 5000, 100, 199)));
});

test('a saturated group gets too_many_requests in Shape B, and its quota is untouched', async () => {
  const { key, id } = await stack.token({ group: 'vip', quota: 100_000 });
  const vip = stack.gw.gateway.runtime.groups.get('vip')!;
  const before = vip.max_inflight_tasks;
  vip.max_inflight_tasks = 1;
  try {
    const first = await call(stack, key, 'POST', '/v1/video/generations', { model: 'veo3', prompt: 'hold [sim polls=1000]' });
    assert.equal(first.status, 200);
    const second = await call(stack, key, 'POST', '/v1/video/generations', { model: 'veo3', prompt: 'over' });
    assert.equal(second.status, 429);
    assert.deepEqual(Object.keys(second.json).sort(), ['code', 'data', 'message']);
    assert.equal(second.json.code, 'too_many_requests');
    assert.equal(second.json.data, null);
    assert.equal(await stack.balance(id), 100_000 - 1500);
  } finally {
    vip.max_inflight_tasks = before;
  }
});

test('family rules and a missing prompt are refused before anything reaches the upstream', async () => {
  const { key } = await stack.token();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ model: 'veo3' }, /`prompt` is required/],
    [{ model: 'MiniMax-Hailuo-02', prompt: 'x', seconds: '12' }, /`seconds`/],
    [{ model: 'fixdur-pro', prompt: 'x', seconds: '8' }, /`seconds` must be one of: 10, 10/],
    [{ model: 'fixdur-max', prompt: 'x', duration: 10 }, /`duration` must be one of: 15, 15/],
    [{ model: 'MiniMax-Hailuo-02', prompt: 'x', duration: 3 }, /`duration`/],
    [{ model: 'viduq1', prompt: 'x', images: ['a', 'b', 'c', 'd'] }, /`images` must NOT have more than 3 items/],
    [{ model: 'viduq1', prompt: 'x', metadata: { last_frame_url: 'https://e/b.png' } }, /`image` is required/],
    [{ model: 'doubao-seedance-2-0-260128', prompt: 'x', images: ['1', '2', '3', '4', '5', '6'] }, /`images` must NOT have more than 5 items/],
    [{ model: 'doubao-seedance-2-0-260128', prompt: 'x', video: 'x'.repeat(20_971_601) }, /`video` must NOT have more than 20971600 characters/],
  ];
  stack.sim.control.clear();
  for (const [body, message] of cases) {
    const r = await call(stack, key, 'POST', '/v1/video/generations', body);
    assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
    assert.equal(r.json.error.code, 'invalid_request');
    assert.match(r.json.error.message, message);
  }
  assert.equal(stack.sim.control.requests().filter((r) => r.method === 'POST').length, 0, 'the upstream received no submit');
});

test('the compatible vendor route answers in its own format', async () => {
  const { key } = await stack.token();
  const sub = await call(stack, key, 'POST', '/vendork/v1/videos/text2video', { model_name: 'kling-v2-master', prompt: 'vk [sim polls=1]', duration: '5' });
  assert.equal(sub.status, 200, sub.text);
  assert.equal(sub.json.code, 0);
  assert.match(sub.json.data.task_id, /^task_/);
  assert.equal(sub.json.data.task_status, 'submitted');
  const done = await waitFinal(stack, key, `/vendork/v1/videos/text2video/${sub.json.data.task_id}`, (j) => ['succeed', 'failed'].includes(j?.data?.task_status));
  assert.equal(done.data.task_status, 'succeed');
  assert.match(done.data.task_result.videos[0].url, /\/vendork\/v1\/videos\/task_\w+\/content$/);
  const wrongFamily = await call(stack, key, 'GET', `/vendork/v1/videos/image2video/${sub.json.data.task_id}`);
  assert.equal(wrongFamily.status, 404);
});

test('asset upload passes through V4-signed for Ark (service ark), and asset:// references work in content[]', async () => {
  const { key } = await stack.token();
  const signedBefore = stack.sim.control.signatures().length;
  const group = await call(stack, key, 'POST', '/v1/vendors/asset/CreateAssetGroup', { Name: 'g' });
  assert.equal(group.status, 200, group.text);
  const groupId = group.json.Result?.Id ?? group.json.Id;
  const asset = await call(stack, key, 'POST', '/v1/vendors/asset/CreateAsset', { GroupId: groupId, URL: 'https://example.com/a.png', AssetType: 'Image' });
  assert.equal(asset.status, 200, asset.text);
  const assetId = asset.json.Result?.Id ?? asset.json.Id;
  await call(stack, key, 'POST', '/v1/vendors/asset/GetAsset', { Id: assetId });
  await call(stack, key, 'POST', '/v1/vendors/asset/GetAsset', { Id: assetId });
  const signed = stack.sim.control.signatures().slice(signedBefore);
  assert.deepEqual(signed.map((g) => `${g.service}:${g.action}:${g.ok}`), ['ark:CreateAssetGroup:true', 'ark:CreateAsset:true', 'ark:GetAsset:true', 'ark:GetAsset:true']);
  const sub = await call(stack, key, 'POST', '/v1/video/generations', {
    model: 'doubao-seedance-1-0-pro-250528',
    content: [{ type: 'text', text: 'asset-ref [sim polls=0]' }, { type: 'image_url', image_url: { url: `asset://${assetId}` }, role: 'reference_image' }],
    metadata: { duration: 5, ratio: '16:9', resolution: '720p' },
  });
  assert.equal(sub.status, 200, sub.text);
  const done = await waitFinal(stack, key, `/v1/video/generations/${sub.json.id}`);
  assert.equal(done.status, 'completed', JSON.stringify(done));
});

test('a gateway restart with tasks in flight loses nothing: the poller resumes and billing settles once', async () => {
  const { key, id } = await stack.token({ quota: 100_000 });
  const ids: string[] = [];
  for (const model of ['sora-2', 'viduq1', 'veo3']) {
    const r = await call(stack, key, 'POST', '/v1/video/generations', { model, prompt: `restart-${model} [sim polls=3]` });
    assert.equal(r.status, 200);
    ids.push(r.json.id);
  }
  await stack.restartGateway();
  fastTasks(stack);
  for (const task of ids) assert.equal((await waitFinal(stack, key, `/v1/videos/${task}`)).status, 'completed');
  assert.equal(await stack.balance(id), 100_000 - 400 - 400 - 1500, 'sora-2 4 s by default (OpenAI\'s), viduq1 5 s, veo3 per call');
  for (const task of ids) assert.equal((await ledgerKinds(stack, id, task)).length, 2);
});
