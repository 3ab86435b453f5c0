// Uploads on POST /v1/videos (multipart, the contract's Sora-shaped route): the reference image a client uploads as
// `input_reference` reaches every video vendor of the demo as that vendor's first-frame field, holding the image's
// bytes (a file part for a multipart vendor; base64 or a data URI, as the vendor takes it, for a JSON one). An upload
// never reaches a vendor as an object (once the gateway's spool path went to Kling), and a model whose vendor cannot
// take it refuses the request with 400 naming the field before anything is reserved (once Vidu and Ark dropped the
// image and billed the client a text-to-video it had not asked for).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../src/config/load-config.js';
import type { LoggedRequest } from '../simulator/control.js';
import { startStack, type Stack } from './helpers/stack.js';
import { call, fastTasks, ledgerKinds } from './helpers/video.js';
import { quickTaskConfig } from './helpers/child-gateway.js';
import { pngUri } from './helpers/images.js';

let stack: Stack;
before(async () => { stack = await startStack(); fastTasks(stack); });
after(() => stack?.close());

const png = Buffer.from(pngUri(64, 48).split(',')[1], 'base64');
const jpeg = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');

type Body = Record<string, any>;
const fromDataUri = (v: unknown, type = 'image/png') => {
  assert.equal(typeof v, 'string', `a data URI, not ${JSON.stringify(v)?.slice(0, 200)}`);
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(v as string);
  assert.ok(m, `a base64 data URI: ${String(v).slice(0, 80)}`);
  assert.equal(m[1], type);
  return Buffer.from(m[2], 'base64');
};
const fromBase64 = (v: unknown) => {
  assert.equal(typeof v, 'string');
  assert.ok(!(v as string).startsWith('data:'), 'bare base64, without the data: prefix');
  return Buffer.from(v as string, 'base64');
};
/** The file a multipart body sent in `field`, from the bytes the simulator received. */
async function filePart(sent: LoggedRequest, field: string): Promise<Buffer> {
  assert.ok(sent.body_base64, 'the simulator kept the multipart bytes');
  const form = await new Response(Buffer.from(sent.body_base64, 'base64'), { headers: { 'content-type': String(sent.headers['content-type']) } }).formData();
  const part = form.get(field);
  assert.ok(part instanceof Blob, `${field} is a file part`);
  return Buffer.from(await part.arrayBuffer());
}

// Each video vendor of the demo: a model, its submit path on the simulator, and the image it received.
const vendors: [vendor: string, model: string, path: string, image: (sent: LoggedRequest) => Buffer | Promise<Buffer>][] = [
  ['OpenAI Sora (multipart)', 'sora-2', '/v1/videos', (s) => filePart(s, 'input_reference')],
  ['fixed-duration reseller (multipart)', 'fixdur-pro', '/v1/videos', (s) => filePart(s, 'input_reference')],
  ['Kling (bare base64 in image)', 'kling-v2-master', '/v1/videos/image2video', (s) => fromBase64((s.body as Body).image)],
  ['Vidu (data URI in images)', 'viduq2-turbo', '/ent/v2/img2video', (s) => fromDataUri((s.body as Body).images[0])],
  ['Ark Seedance (data URI in content[].image_url.url)', 'doubao-seedance-1-0-pro-250528', '/api/v3/contents/generations/tasks', (s) => {
    const frames = (s.body as Body).content.filter((c: Body) => c.type === 'image_url');
    assert.equal(frames.length, 1);
    assert.equal(frames[0].role, 'first_frame');
    return fromDataUri(frames[0].image_url.url);
  }],
  ['DashScope Wan (data URI in input.img_url)', 'wan2.5-i2v-preview:1280*720', '/api/v1/services/aigc/video-generation/video-synthesis', (s) => fromDataUri((s.body as Body).input.img_url)],
  ['MiniMax Hailuo (data URI in first_frame_image)', 'MiniMax-Hailuo-02', '/v1/video_generation', (s) => fromDataUri((s.body as Body).first_frame_image)],
  ['Jimeng (bare base64 in binary_data_base64)', 'jimeng_i2v_first_v30', '/', (s) => fromBase64((s.body as Body).binary_data_base64[0])],
];

/** POST /v1/videos as multipart: the fields, and files as [field, bytes, type, name]. */
async function upload(key: string, fields: Record<string, string>, files: [string, Buffer, string, string][]) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const [field, bytes, type, name] of files) form.append(field, new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await fetch(`${stack.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as Body };
}

/** No request the simulator received carries the gateway's spool path (nor an upload as an object naming one). */
function noSpoolPath(requests: LoggedRequest[]): void {
  for (const r of requests) {
    const seen = JSON.stringify(r.body) + (r.body_base64 ? Buffer.from(r.body_base64, 'base64').toString('latin1') : '');
    assert.ok(!seen.includes('switchyard-spool'), `${r.method} ${r.url}: the spool path reached the vendor: ${seen.slice(0, 300)}`);
    assert.ok(!/"path":"\//.test(seen), `${r.method} ${r.url}: a file path reached the vendor`);
  }
}

for (const [vendor, model, path, image] of vendors) {
  test(`${vendor}: an uploaded input_reference reaches ${model} as its first frame, the same bytes`, async () => {
    const { key, id } = await stack.token({ quota: 100_000 });
    const before = stack.sim.control.requests().length;
    const marker = `upload-${model}`;
    const r = await upload(key, { model, prompt: `the cat wakes ${marker} [sim polls=1]` }, [['input_reference', png, 'image/png', 'cat.png']]);
    assert.equal(r.status, 200, r.text);
    const sent = stack.sim.control.requests().slice(before);
    noSpoolPath(sent);
    const submits = sent.filter((q) => q.method === 'POST' && q.path === path);
    assert.equal(submits.length, 1, `one submit on ${path}: ${sent.map((q) => `${q.method} ${q.url}`).join(', ')}`);
    assert.ok((await image(submits[0])).equals(png), 'the vendor received the uploaded bytes');
    const kinds = await ledgerKinds(stack, id, r.json.id);
    assert.equal(kinds.length, 1);
    assert.match(kinds[0], /^reserve:\d+$/, 'reserved for the image-to-video asked');
  });
}

test('several uploads: first and last frame files reach Vidu as start-end2video, both sets of bytes, in order', async () => {
  const { key } = await stack.token({ quota: 100_000 });
  const before = stack.sim.control.requests().length;
  const r = await upload(key, { model: 'viduq2-turbo', prompt: 'day to night [sim polls=1]' }, [
    ['first_frame_image', png, 'image/png', 'day.png'], ['last_frame_image', jpeg, 'image/jpeg', 'night.jpg'],
  ]);
  assert.equal(r.status, 200, r.text);
  const sent = stack.sim.control.requests().slice(before);
  noSpoolPath(sent);
  const submit = sent.find((q) => q.method === 'POST' && q.path === '/ent/v2/start-end2video');
  assert.ok(submit, sent.map((q) => q.url).join(', '));
  const images = (submit.body as Body).images;
  assert.ok(fromDataUri(images[0]).equals(png));
  assert.ok(fromDataUri(images[1], 'image/jpeg').equals(jpeg));
});

test('Kling takes a last frame upload as image_tail, bare base64 like the first', async () => {
  const { key } = await stack.token({ quota: 100_000 });
  const before = stack.sim.control.requests().length;
  const r = await upload(key, { model: 'kling-v2-master', prompt: 'turns around [sim polls=1]' }, [
    ['input_reference', png, 'image/png', 'a.png'], ['last_frame_image', jpeg, 'image/jpeg', 'b.jpg'],
  ]);
  assert.equal(r.status, 200, r.text);
  const submit = stack.sim.control.requests().slice(before).find((q) => q.method === 'POST' && q.path === '/v1/videos/image2video')!;
  assert.ok(fromBase64((submit.body as Body).image).equals(png));
  assert.ok(fromBase64((submit.body as Body).image_tail).equals(jpeg));
});

/** A refusal: 400 invalid_request in the contract's shape naming `field`; nothing reserved, nothing sent. */
async function refused(model: string, files: [string, Buffer, string, string][], field: string) {
  const { key, id } = await stack.token({ quota: 100_000 });
  const before = stack.sim.control.requests().length;
  const tasks = stack.sim.control.videoTasks().length;
  const r = await upload(key, { model, prompt: 'from a still [sim polls=1]' }, files);
  assert.equal(r.status, 400, r.text);
  assert.equal(r.json.error.code, 'invalid_request');
  assert.equal(r.json.error.type, 'platform_api_error', 'the video routes\' error type');
  assert.equal(r.json.error.param, '');
  assert.ok(r.json.error.message.includes(`\`${field}\` (an upload) is not taken by this model`), r.json.error.message);
  assert.equal(await stack.balance(id), 100_000, 'nothing charged');
  assert.deepEqual((await stack.gw.store.quota.entries(id)).map((e) => e.kind), [], 'nothing reserved on any level');
  // (earlier tests' tasks may still be polled meanwhile: GETs, and the visual API's POSTed result queries)
  const polls = (q: LoggedRequest) => q.method === 'GET' || q.url.includes('Action=CVSync2AsyncGetResult');
  assert.deepEqual(stack.sim.control.requests().slice(before).filter((q) => !polls(q)).map((q) => `${q.method} ${q.url}`), [], 'nothing sent');
  assert.equal(stack.sim.control.videoTasks().length, tasks);
  const line = stack.logs().filter((l) => l.msg === 'request' && l.route === 'videos_create').at(-1);
  assert.equal(line?.status, 400);
  assert.match(String(line?.reason), /carries the files the request sent/, 'the operator reads why');
}

test('a model whose vendor takes no upload (the /v1/video/create reseller, URLs only) refuses it: 400 naming input_reference, nothing reserved', async () => {
  await refused('veo3', [['input_reference', png, 'image/png', 'cat.png']], 'input_reference');
});

test('an upload the vendor has no room for (a second input_reference on Kling, which takes one first frame) is refused, not dropped', async () => {
  await refused('kling-v2-master', [['input_reference', png, 'image/png', 'a.png'], ['input_reference', jpeg, 'image/jpeg', 'b.jpg']], 'input_reference[1]');
});

test('an upload in a field no vendor reads is refused rather than silently left out, even when its bytes were sent in another', async () => {
  await refused('doubao-seedance-1-0-pro-250528', [['input_reference', png, 'image/png', 'a.png'], ['mask', jpeg, 'image/jpeg', 'm.jpg']], 'mask');
  await refused('doubao-seedance-1-0-pro-250528', [['input_reference', png, 'image/png', 'a.png'], ['mask', png, 'image/png', 'm.png']], 'mask');
});

test('the request log of every test above: no spool path ever reached a vendor', () => {
  noSpoolPath(stack.sim.control.requests());
});

test('a model with a channel that takes the upload and one that does not: the upload goes only where it is carried', async () => {
  // A reseller for kling-v2-master that takes image URLs only (the /v1/video/create format), preferred by priority.
  const reseller = {
    id: 'sim_url_only_kling', extends: 'simulator', auth: { scheme: 'bearer', key: 'sim-key' }, models: ['kling-v2-master'], priority: 50,
    operations: {
      video_generate: {
        path: '/v1/video/create',
        request: '$merge([{ "model": $model, "prompt": prompt }, image ? { "images": [image] }])',
        response: '{ "upstream_id": id, "status": status }',
        poll: { path: '/v1/video/query?id={upstream_id}', response: '{ "status": status, "result_url": video_url }' },
        status_map: { pending: 'queued', processing: 'in_progress', completed: 'completed', failed: 'failed' },
      },
    },
  };
  const shipped = (parse(readFileSync(join(projectRoot, 'channels.yaml'), 'utf8')) as { channels: unknown[] }).channels.length;
  const configDir = quickTaskConfig({}, [[['channels', String(shipped)], reseller]]); // appended to the demo's channels
  const two = await startStack({ configDir });
  try {
    const { key } = await two.token({ quota: 100_000 });
    const text = await call(two, key, 'POST', '/v1/video/generations', { model: 'kling-v2-master', prompt: 'text only [sim polls=1]' });
    assert.equal(text.status, 200, text.text);
    assert.equal(two.sim.control.requests().filter((q) => q.method === 'POST').at(-1)?.path, '/v1/video/create', 'the preferred channel takes a text request');
    const form = new FormData();
    form.append('model', 'kling-v2-master');
    form.append('prompt', 'from a still [sim polls=1]');
    form.append('input_reference', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'a.png');
    const res = await fetch(`${two.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    assert.equal(res.status, 200, await res.text());
    const submit = two.sim.control.requests().filter((q) => q.method === 'POST').at(-1)!;
    assert.equal(submit.path, '/v1/videos/image2video', 'the upload went to Kling, which takes it');
    assert.ok(fromBase64((submit.body as Body).image).equals(png));
    noSpoolPath(two.sim.control.requests());
  } finally {
    await two.close();
  }
});
