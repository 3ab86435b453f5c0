// The subject-reference vendor's own routes: field rules and image limits enforced before the upstream, its task shapes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './helpers/stack.js';
import { fastTasks, call, waitFinal, ledgerKinds } from './helpers/video.js';
import { pngUri, jpegUri, gifUri } from './helpers/images.js';

let stack: Stack;
before(async () => { stack = await startStack(); fastTasks(stack); });
after(async () => { await stack.close(); });

const subject = (images: string[], id = 'cat') => ({ id, images });
const submits = () => stack.sim.control.requests().filter((r) => r.method === 'POST' && r.path.startsWith('/ent/v2/'));

test('reference2video: vendor task shape, the billed duration filled in, payload untouched, query and content', async () => {
  const { key, id: tokenId } = await stack.token({ quota: 100_000 });
  stack.sim.control.clear();
  const sub = await call(stack, key, 'POST', '/alpha/ent/v2/reference2video', {
    model: 'alphaq2-pro', prompt: '@cat runs [sim polls=1]', subjects: [subject([pngUri(512, 512), jpegUri(300, 600)])],
    payload: '{"keep": "exactly"}', meta_data: '{"a":1}', wm_position: 2,
  });
  assert.equal(sub.status, 200, sub.text);
  assert.deepEqual(Object.keys(sub.json).sort(), ['created_at', 'status', 'task_id']);
  assert.match(sub.json.task_id, /^task_/);
  assert.equal(sub.json.status, 'processing');
  const sent = submits()[0].body as Record<string, unknown>;
  assert.equal(sent.model, 'viduq2-pro');
  assert.equal(sent.duration, 5);
  assert.equal(sent.resolution, undefined, 'Vidu\'s own default resolution (720p for Q2), the one priced');
  assert.equal(sent.payload, '{"keep": "exactly"}');
  const done = await waitFinal(stack, key, `/alpha/ent/v2/tasks/${sub.json.task_id}/creations`, (j) => ['success', 'failed'].includes(j?.state));
  assert.equal(done.state, 'success');
  const file = await fetch(done.creations[0].url, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(file.status, 200);
  assert.equal(file.headers.get('content-type'), 'video/mp4');
  // Vidu's Q2 curve at 720p: 25 credits for two seconds, then 10 a second ($0.005 a credit): 55 credits for 5 s.
  assert.equal(await stack.balance(tokenId), 100_000 - 275, 'viduq2-pro at 720p: 125 for two seconds + 50/s');
  assert.deepEqual(await ledgerKinds(stack, tokenId, sub.json.task_id), ['reserve:275', 'settle:0']);
});

test('text2video, img2video and start-end2video reach their vendor endpoints', async () => {
  const { key } = await stack.token();
  stack.sim.control.clear();
  for (const [path, extra] of [
    ['text2video', {}], ['img2video', { images: [pngUri(256, 256)] }], ['start-end2video', { images: [pngUri(256, 256), pngUri(256, 256)] }],
  ] as const) {
    const r = await call(stack, key, 'POST', `/alpha/ent/v2/${path}`, { model: 'alphaq1', prompt: 'x', ...extra });
    assert.equal(r.status, 200, `${path}: ${r.text}`);
  }
  assert.deepEqual(submits().map((r) => r.path), ['/ent/v2/text2video', '/ent/v2/img2video', '/ent/v2/start-end2video']);
});

test('every field rule and image limit is refused with invalid_request naming subject, index and rule; the upstream gets nothing', async () => {
  const { key } = await stack.token();
  const ok = pngUri(256, 256);
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ model: 'alphaq9', subjects: [subject([ok])] }, /`model` must be one of/],
    [{ model: 'alphaq2-pro' }, /`subjects` is required/],
    [{ model: 'alphaq2-pro', subjects: [{ images: [ok] }] }, /`subjects\[0\]\.id` is required/],
    [{ model: 'alphaq2-pro', subjects: [subject([ok, ok, ok, ok])] }, /`subjects\[0\]\.images` must NOT have more than 3 items/],
    [{ model: 'alphaq2-pro', subjects: [subject([ok]), subject([ok, gifUri()], 'dog')] }, /`subjects\[1\]\.images\[1\]` has format gif; allowed: png, jpeg, jpg, webp/],
    [{ model: 'alphaq2-pro', subjects: [subject([pngUri(100, 300)])] }, /`subjects\[0\]\.images\[0\]` is 100x300 pixels; at least 128x128 required/],
    [{ model: 'alphaq2-pro', subjects: [subject([ok, pngUri(1000, 200)])] }, /`subjects\[0\]\.images\[1\]` has aspect ratio 1000:200/],
    [{ model: 'alphaq2-pro', subjects: [subject(['data:text/plain;base64,aGk='])] }, /`subjects\[0\]\.images\[0\]` must be an http\(s\) URL or a data URI of the form data:image/],
    [{ model: 'alphaq2-pro', subjects: [subject([ok])], duration: 11 }, /`duration` must be <= 10/],
    [{ model: 'alphaq2-pro', subjects: [subject([ok])], resolution: '360p' }, /`resolution` must be one of: 540p, 720p, 1080p/],
    [{ model: 'alphaq2-pro', subjects: [subject([ok])], wm_position: 5 }, /`wm_position` must be <= 4/],
    [{ model: 'alphaq2-pro', subjects: [subject([ok])], meta_data: '{not json' }, /`meta_data` must be a string holding JSON/],
    [{ model: 'alphaq1', images: [ok, ok] }, /`images` must NOT have more than 1 items/],
  ];
  stack.sim.control.clear();
  for (const [body, message] of cases) {
    const path = body.images ? '/alpha/ent/v2/img2video' : '/alpha/ent/v2/reference2video';
    const r = await call(stack, key, 'POST', path, body);
    assert.equal(r.status, 400, JSON.stringify(body).slice(0, 120));
    assert.equal(r.json.error.code, 'invalid_request');
    assert.match(r.json.error.message, message);
  }
  assert.equal(submits().length, 0, 'the upstream received nothing');
});

test('a body over 20MB is refused while reading (413) and never forwarded', async () => {
  const { key } = await stack.token();
  stack.sim.control.clear();
  const big = `data:image/png;base64,${'A'.repeat(21 * 1024 * 1024)}`;
  const r = await call(stack, key, 'POST', '/alpha/ent/v2/reference2video', { model: 'alphaq2-pro', subjects: [subject([big])] });
  assert.equal(r.status, 413);
  assert.equal(r.json.error.code, 'request_too_large');
  assert.equal(submits().length, 0);
});
