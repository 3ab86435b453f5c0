// Jimeng video (the Volcengine visual API) on the unified video routes: the gateway submits with CVSync2AsyncSubmitTask,
// polls CVSync2AsyncGetResult, maps the visual API's status words and codes, and bills the model's list price (221
// units for 5 s at 720P, twice that for 10 s), refunding a task the vendor fails. /art-official stays a passthrough.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './helpers/stack.js';
import { call, fastTasks, ledgerKinds, waitFinal } from './helpers/video.js';
import { pngUri } from './helpers/images.js';

let stack: Stack;
before(async () => { stack = await startStack(); fastTasks(stack); });
after(() => stack?.close());

const submitAction = '/?Action=CVSync2AsyncSubmitTask&Version=2022-08-31';
/** The visual API submits the simulator received, oldest first. */
const submits = () => stack.sim.control.requests().filter((r) => r.method === 'POST' && r.url === submitAction);

async function account() {
  const { key, id } = await stack.token({ quota: 10_000 });
  return { key, id, ledger: (task: string) => ledgerKinds(stack, id, task) };
}

/** Waits for the task, then downloads its video through the gateway. */
async function finished(key: string, id: string) {
  const done = await waitFinal(stack, key, `/v1/videos/${id}`);
  if (done.status === 'completed') {
    const file = await fetch(`${stack.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'video/mp4');
  }
  return done;
}

test('text to video on /v1/video/generations: submitted and polled V4-signed, completed, charged the list price', async () => {
  const { key, id, ledger } = await account();
  const before = submits().length;
  const signed = stack.sim.control.signatures().length;
  const sub = await call(stack, key, 'POST', '/v1/video/generations', { model: 'jimeng_t2v_v30', prompt: 'waves at dawn [sim polls=2]', aspect_ratio: '16:9', metadata: { seed: 7 } });
  assert.equal(sub.status, 200, sub.text);
  assert.match(sub.json.id, /^task_/);
  const sent = submits().slice(before);
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0].body, { seed: 7, req_key: 'jimeng_t2v_v30', prompt: 'waves at dawn [sim polls=2]', frames: 121, aspect_ratio: '16:9' });
  const done = await finished(key, sub.json.id);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const polls = stack.sim.control.requests().filter((r) => r.url === '/?Action=CVSync2AsyncGetResult&Version=2022-08-31');
  assert.ok(polls.length >= 2, 'in_queue and generating are not final: the task is polled until done');
  assert.equal((polls.at(-1)!.body as { req_key: string }).req_key, 'jimeng_t2v_v30');
  assert.ok(stack.sim.control.signatures().slice(signed).every((s) => s.service === 'cv' && s.ok), 'every call V4-signed for cv');
  assert.equal(await stack.balance(id), 10_000 - 221);
  assert.deepEqual(await ledger(sub.json.id), ['reserve:221', 'settle:0']);
});

test('first frame on /v1/videos, 10 s: sent as 241 frames and charged twice the 5 s price', async () => {
  const { key, ledger } = await account();
  const before = submits().length;
  const sub = await call(stack, key, 'POST', '/v1/videos', { model: 'jimeng_i2v_first_v30', prompt: 'the cat wakes [sim polls=1]', image: 'https://example.com/cat.png', seconds: '10' });
  assert.equal(sub.status, 200, sub.text);
  const body = submits().slice(before)[0].body as Record<string, unknown>;
  assert.deepEqual([body.req_key, body.frames, body.image_urls, body.binary_data_base64], ['jimeng_i2v_first_v30', 241, ['https://example.com/cat.png'], undefined]);
  assert.equal((await finished(key, sub.json.id)).status, 'completed');
  assert.deepEqual(await ledger(sub.json.id), ['reserve:442', 'settle:0']);
});

test('first and last frame: data URIs go as binary_data_base64, in order; 1080P at its own price', async () => {
  const { key, ledger } = await account();
  const [first, last] = [pngUri(320, 240), pngUri(240, 320)];
  const before = submits().length;
  const sub = await call(stack, key, 'POST', '/v1/video/generations', {
    model: 'jimeng_i2v_first_tail_v30_1080', prompt: 'turns around [sim polls=1]', image: first, metadata: { last_frame_url: last },
  });
  assert.equal(sub.status, 200, sub.text);
  const body = submits().slice(before)[0].body as Record<string, unknown>;
  assert.deepEqual(body.binary_data_base64, [first.split(',')[1], last.split(',')[1]]);
  assert.equal(body.image_urls, undefined);
  assert.equal((await finished(key, sub.json.id)).status, 'completed');
  assert.deepEqual(await ledger(sub.json.id), ['reserve:525', 'settle:0']);
});

test('multipart /v1/videos: an uploaded input_reference is the first frame, its bytes as binary_data_base64', async () => {
  const { key, ledger } = await account();
  const png = Buffer.from(pngUri(64, 64).split(',')[1], 'base64');
  const form = new FormData();
  form.append('model', 'jimeng_ti2v_v30_pro');
  form.append('prompt', 'from a still [sim polls=1]');
  form.append('input_reference', new Blob([png], { type: 'image/png' }), 'still.png');
  const before = submits().length;
  const res = await fetch(`${stack.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const sub = await res.json() as { id: string };
  assert.equal(res.status, 200, JSON.stringify(sub));
  assert.deepEqual((submits().slice(before)[0].body as Record<string, unknown>).binary_data_base64, [png.toString('base64')]);
  assert.equal((await finished(key, sub.id)).status, 'completed');
  assert.deepEqual(await ledger(sub.id), ['reserve:525', 'settle:0']);
});

test('a task the visual API fails (code ≠ 10000) ends failed with its reason, refunded once', async () => {
  const { key, id, ledger } = await account();
  const sub = await call(stack, key, 'POST', '/v1/video/generations', { model: 'jimeng_t2v_v30', prompt: 'doomed [sim polls=1 fail=1]' });
  assert.equal(sub.status, 200, sub.text);
  const done = await waitFinal(stack, key, `/v1/video/generations/${sub.json.id}`);
  assert.equal(done.status, 'failed', JSON.stringify(done));
  assert.match(done.error.message, /Post Video Risk Not Pass \(code 50516\)/);
  assert.equal(await stack.balance(id), 10_000);
  assert.deepEqual(await ledger(sub.json.id), ['reserve:221', 'refund:-221']);
});

test('a length the visual API does not render is refused before anything is sent, naming the field', async () => {
  const { key, id } = await account();
  const before = submits().length;
  for (const [body, field] of [[{ seconds: '7' }, 'seconds'], [{ duration: 8 }, 'duration'], [{ metadata: { frames: 100 } }, 'metadata.frames']] as const) {
    const r = await call(stack, key, 'POST', '/v1/video/generations', { model: 'jimeng_t2v_v30', prompt: 'x', ...body });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.error.code, 'invalid_request');
    assert.ok(r.json.error.message.includes(`\`${field}\``), r.json.error.message);
  }
  assert.equal(submits().length, before, 'the vendor received nothing');
  assert.equal(await stack.balance(id), 10_000);
});

test('models the unified operation does not serve stay on /art-official only', async () => {
  const { key } = await account();
  const r = await call(stack, key, 'POST', '/v1/video/generations', { model: 'jimeng_i2v_recamera_v30', prompt: 'x', image: 'https://example.com/a.png' });
  assert.equal(r.status, 404, r.text);
  assert.equal(r.json.error.code, 'model_not_found');
  const listed = await call(stack, key, 'GET', '/v1/models/jimeng_i2v_recamera_v30');
  assert.deepEqual(listed.json.supported_endpoint_types, ['art-official']);
  const t2v = await call(stack, key, 'GET', '/v1/models/jimeng_t2v_v30');
  assert.deepEqual(t2v.json.supported_endpoint_types, ['art-official', 'openai-video']);
});
