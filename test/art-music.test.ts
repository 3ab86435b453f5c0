// Image-art and music families: result codes, task shapes, batch polling, notifyHook callbacks, SSRF refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, type Stack } from './helpers/stack.js';
import { fastTasks, call, waitFinal, ledgerKinds } from './helpers/video.js';

let stack: Stack;
before(async () => { stack = await startStack(); fastTasks(stack); });
after(async () => { await stack.close(); });

const artDone = (j: any) => ['SUCCESS', 'FAILURE'].includes(j?.status);

test('art imagine: code 1, the task shape, image through the gateway, FAST and RELAX priced differently and run in their mode', async () => {
  const { key, id } = await stack.token({ quota: 10_000 });
  const sub = await call(stack, key, 'POST', '/art/submit/imagine', { prompt: 'a lighthouse [sim polls=1]', state: 'mine', mode: 'RELAX' });
  assert.equal(sub.status, 200, sub.text);
  assert.deepEqual({ ...sub.json, result: 'x' }, { code: 1, description: 'Submit success', result: 'x', properties: {} });
  const task = await waitFinal(stack, key, `/art/task/${sub.json.result}/fetch`, artDone);
  assert.equal(task.status, 'SUCCESS');
  assert.equal(task.action, 'IMAGINE');
  assert.equal(task.progress, '100%');
  assert.equal(task.state, 'mine');
  assert.match(task.imageUrl, new RegExp(`/art/image/${sub.json.result}$`));
  const img = await fetch(task.imageUrl, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(img.status, 200);
  assert.match(String(img.headers.get('content-type')), /^image\//);
  // vendors/midjourney.yaml: Relax uses no Fast GPU time (0), a fast job about a minute of it (67).
  assert.equal(await stack.balance(id), 10_000);
  const fast = await call(stack, key, 'POST', '/art/submit/imagine', { prompt: 'fast [sim polls=0]' });
  await waitFinal(stack, key, `/art/task/${fast.json.result}/fetch`, artDone);
  assert.equal(await stack.balance(id), 10_000 - 67);
  const speeds = stack.sim.control.mediaTasks().filter((t) => /lighthouse|fast/.test(t.prompt)).map((t) => t.speed);
  assert.deepEqual(speeds, ['RELAX', 'FAST'], 'the proxy ran each job in the mode the client paid for');
  const seed = await call(stack, key, 'GET', `/art/task/${sub.json.result}/image-seed`);
  assert.equal(seed.json.code, 1);
  const list = await call(stack, key, 'POST', '/art/task/list-by-condition', { ids: [sub.json.result, fast.json.result, 'task_unknown'] });
  assert.deepEqual(list.json.map((t: any) => t.id), [sub.json.result, fast.json.result]);
});

test('art result codes: 21 and 22 become success, 23/24/4 are relayed and charge nothing, 30 is 429', async () => {
  const { key, id } = await stack.token({ quota: 10_000 });
  for (const code of [21, 22]) {
    const r = await call(stack, key, 'POST', '/art/submit/imagine', { prompt: `c${code} [sim mj_code=${code} polls=0]` });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.code, 1);
    assert.equal((await waitFinal(stack, key, `/art/task/${r.json.result}/fetch`, artDone)).status, 'SUCCESS');
  }
  const charged = await stack.balance(id);
  for (const [code, status] of [[23, 400], [24, 400], [4, 400], [30, 429]] as const) {
    const r = await call(stack, key, 'POST', '/art/submit/imagine', { prompt: `c${code} [sim mj_code=${code}]` });
    assert.equal(r.status, status, r.text);
    assert.equal(r.json.code, code);
    assert.equal(r.json.result, null);
  }
  assert.equal(await stack.balance(id), charged, 'refused submissions are free');
  const bad = await call(stack, key, 'POST', '/art/submit/blend', { base64Array: ['only-one'] });
  assert.equal(bad.json.code, 4);
});

test('a saturated group gets code 30 with HTTP 429 from the gateway itself', async () => {
  const { key } = await stack.token({ group: 'vip' });
  const vip = stack.gw.gateway.runtime.groups.get('vip')!;
  const before = vip.max_inflight_tasks;
  vip.max_inflight_tasks = 1;
  try {
    await call(stack, key, 'POST', '/art/submit/imagine', { prompt: 'hold [sim polls=1000]' });
    const r = await call(stack, key, 'POST', '/art/submit/imagine', { prompt: 'over' });
    assert.equal(r.status, 429);
    assert.equal(r.json.code, 30);
  } finally { vip.max_inflight_tasks = before; }
});

test('notifyHook: state changes are POSTed to a local listener when the operator allows private networks', async () => {
  const got: any[] = [];
  const listener: Server = createServer((req, res) => {
    let b = '';
    req.on('data', (c) => { b += c; });
    req.on('end', () => { got.push(JSON.parse(b)); res.end('ok'); });
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/hook?secret=1`;
  const settings = stack.gw.gateway.runtime.callbacks;
  try {
    const { key } = await stack.token();
    settings.allow_private_networks = true;
    const r = await call(stack, key, 'POST', '/art/submit/imagine', { prompt: 'hooked [sim polls=2]', notifyHook: hook });
    await waitFinal(stack, key, `/art/task/${r.json.result}/fetch`, artDone);
    for (let i = 0; i < 100 && !got.some((x) => x.status === 'SUCCESS'); i++) await new Promise((res) => setTimeout(res, 20));
    assert.ok(got.some((x) => x.id === r.json.result && x.status === 'SUCCESS'), JSON.stringify(got));
    assert.ok(got.every((x) => x.id === r.json.result && 'imageUrl' in x), 'the body is the art task object');
    const upstream = stack.sim.control.requests().find((q) => q.path === '/mj-fast/mj/submit/imagine' && JSON.stringify(q.body).includes('hooked'));
    assert.ok(!JSON.stringify(upstream?.body).includes('notifyHook'), 'the vendor never sees the client hook');

    // The same hook is refused by default: loopback is a private address.
    settings.allow_private_networks = false;
    got.length = 0;
    const r2 = await call(stack, key, 'POST', '/art/submit/imagine', { prompt: 'refused [sim polls=0]', notifyHook: hook });
    await waitFinal(stack, key, `/art/task/${r2.json.result}/fetch`, artDone);
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(got.length, 0);
  } finally {
    settings.allow_private_networks = false;
    listener.close();
  }
});

test('music: submit, batch polling per channel, single and batch fetch in the wrapper format', async () => {
  const { key, id } = await stack.token({ quota: 10_000 });
  const ids: string[] = [];
  // No inline refreshes and a slower poller pass: the three tasks fall due together and go in one batch.
  const settings = stack.gw.gateway.runtime.tasks;
  Object.assign(settings, { refresh_after_ms: 1e9, poll_interval_ms: 150 });
  for (let i = 0; i < 3; i++) {
    const r = await call(stack, key, 'POST', '/music/submit/music', { prompt: `song ${i} [sim polls=2]`, tags: 'pop' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.code, 'success');
    ids.push(r.json.data);
  }
  for (let i = 0; i < 200; i++) {
    const recs = await Promise.all(ids.map((t) => stack.gw.gateway.tasks.get(t)));
    if (recs.every((r) => r?.status === 'completed')) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const fetches = stack.sim.control.sunoFetches();
  assert.ok(fetches.batches.some((b) => b.length === 3), `polled in batches: ${JSON.stringify(fetches.batches)}`);
  Object.assign(settings, { refresh_after_ms: 0, poll_interval_ms: 20 });
  const lyrics = await call(stack, key, 'POST', '/music/submit/lyrics', { prompt: 'the sea [sim polls=0]' });
  assert.equal(lyrics.json.code, 'success');
  const done = await waitFinal(stack, key, `/music/fetch/${ids[0]}`, (j) => ['SUCCESS', 'FAILURE'].includes(j?.data?.status));
  assert.equal(done.data.status, 'SUCCESS');
  assert.equal(done.data.action, 'MUSIC');
  assert.ok(done.data.data.length >= 1 && done.data.data[0].audio_url);
  for (const t of ids) await waitFinal(stack, key, `/music/fetch/${t}`, (j) => j?.data?.status === 'SUCCESS');
  const batch = await call(stack, key, 'POST', '/music/fetch', { ids });
  assert.equal(batch.json.code, 'success');
  assert.deepEqual(batch.json.data.map((t: any) => t.task_id), ids);
  // vendors/suno.yaml: a song generation is 40 units, lyrics take no credits.
  assert.equal(await stack.balance(id), 10_000 - 3 * 40);
  assert.deepEqual(await ledgerKinds(stack, id, ids[0]), ['reserve:40', 'settle:0']);
  const missing = await call(stack, key, 'POST', '/music/submit/lyrics', {});
  assert.equal(missing.status, 400);
  assert.deepEqual(Object.keys(missing.json).sort(), ['code', 'data', 'message'], 'the wrapper\'s own envelope');
  assert.equal(missing.json.code, 'invalid_request');
  assert.match(missing.json.message, /`prompt` is required/);
});

test('every art submit route reaches its vendor endpoint; taskId references are the caller own tasks, swapped for the vendor ids', async () => {
  const { key } = await stack.token({ quota: 100_000 });
  const img = 'data:image/png;base64,iVBORw0KGgo=';
  const first = await call(stack, key, 'POST', '/art/submit/imagine', { prompt: 'origin [sim polls=0]' });
  const origin = await waitFinal(stack, key, `/art/task/${first.json.result}/fetch`, artDone);
  assert.equal(origin.status, 'SUCCESS');
  const cases: [string, Record<string, unknown>, string][] = [
    ['/art/submit/blend', { base64Array: [img, img] }, 'BLEND'],
    ['/art/submit/describe', { base64: img }, 'DESCRIBE'],
    ['/art/submit/shorten', { prompt: 'a very long prompt' }, 'SHORTEN'],
    ['/art/submit/video', { taskId: first.json.result, prompt: 'move' }, 'VIDEO'],
    ['/art/insight-face/swap', { sourceBase64: img, targetBase64: img }, 'SWAP_FACE'],
  ];
  for (const [path, body, action] of cases) {
    const r = await call(stack, key, 'POST', path, { ...body, state: '[sim polls=0]' });
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    assert.equal(r.json.code, 1, `${path}: ${r.text}`);
    const t = await waitFinal(stack, key, `/art/task/${r.json.result}/fetch`, artDone);
    assert.equal(t.action, action);
  }
  const videoSent = stack.sim.control.requests().filter((q) => q.path === '/mj-fast/mj/submit/video').at(-1)!.body as Record<string, unknown>;
  assert.ok(!String(videoSent.taskId).startsWith('task_'), 'the vendor got its own id, not the public one');
  const modal = await call(stack, key, 'POST', '/art/submit/modal', { taskId: first.json.result });
  assert.equal(modal.json.code, 4, 'the vendor judged the referenced task (not waiting for a modal)');
  const other = await stack.token();
  const foreign = await call(stack, other.key, 'POST', '/art/submit/video', { taskId: first.json.result });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.json.code, 4, 'refused in the family\'s own shape');
  assert.match(foreign.json.description, /not found/);
  const upload = await call(stack, key, 'POST', '/art/submit/upload-discord-images', { base64Array: [img] });
  assert.equal(upload.status, 200, upload.text);
  assert.equal(upload.json.code, 1);
  assert.ok(Array.isArray(upload.json.result) && upload.json.result.length === 1);
});
