// Simulator chaos through the gateway (video tasks): throttled and unreadable submits, unknown statuses, regressions, shared upstream ids.
import { test as nodeTest, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, eventually, type Stack } from './helpers/stack.js';
import { fastTasks, call, waitFinal, ledgerKinds } from './helpers/video.js';
import { assertShapeA } from './helpers/api.js';
import { applyUpdate } from '../src/tasks/apply-update.js';
import { expectedFileBytes } from '../simulator/video/index.js';

const test = (name: string, fn: () => Promise<void>) => nodeTest(name, { timeout: 20_000 }, fn);

let stack: Stack;
const PRICE = 1500; // veo3: per_call 1500, through sim_unified (POST /v1/video/create, GET /v1/video/query?id=)
const QUERY = '/v1/video/query';

before(async () => { stack = await startStack(); fastTasks(stack); });
after(() => stack.close());
beforeEach(async () => {
  await stack.gw.gateway.breakers.reset();
  stack.sim.control.clearFaults();
  stack.sim.control.clear();
});

const submit = (key: string, prompt: string) => call(stack, key, 'POST', '/v1/video/generations', { model: 'veo3', prompt });
const record = async (id: string) => (await stack.gw.gateway.tasks.get(id))!;
/** Ledger entries of a token other than its opening topup, as `kind:amount`. */
const movements = async (tokenId: string) => (await stack.gw.store.quota.entries(tokenId)).filter((e) => e.kind !== 'topup').map((e) => `${e.kind}:${e.amount}`);

test('429 with Retry-After on every channel at submit: 429 too_many_requests in Shape B (the vendor\'s load is saturated) with retry-after, refunded, no task left open', async () => {
  const { key, id } = await stack.token();
  const open = await stack.gw.store.tasks.count();
  stack.sim.control.addFault({ path: '/v1/video/create', status: 429, headers: { 'retry-after': '23' } });
  const r = await submit(key, 'busy');
  assert.equal(r.status, 429);
  assert.deepEqual(Object.keys(r.json).sort(), ['code', 'data', 'message']);
  assert.equal(r.json.code, 'too_many_requests');
  assert.equal(r.json.data, null);
  assert.match(r.json.message, /Upstream is rate limiting \(1 upstream attempt\)/);
  assert.equal(r.headers.get('retry-after'), '23');
  assert.equal(stack.sim.control.requests().length, 1);
  assert.deepEqual(await movements(id), [`reserve:${PRICE}`, `refund:${-PRICE}`]);
  assert.equal(await stack.gw.store.tasks.count(), open);
});

test('a submit answered with unreadable JSON: 502 bad_response (copy_response_body_failed), refunded, no task left open', async () => {
  const { key, id } = await stack.token();
  const open = await stack.gw.store.tasks.count();
  stack.sim.control.addFault({ path: '/v1/video/create', status: 200, body: '{"id": "broken' });
  const r = await submit(key, 'garbled');
  assertShapeA(r, 502, 'bad_response', 'platform_api_error', 'copy_response_body_failed');
  assert.deepEqual(await movements(id), [`reserve:${PRICE}`, `refund:${-PRICE}`]);
  assert.equal(await stack.gw.store.tasks.count(), open);
});

test('a vendor status the gateway does not know: the task stays as it was, keeps being polled, the word never reaches the client', async () => {
  const { key, id: tokenId } = await stack.token();
  const sub = await submit(key, 'weird-status [sim polls=6]');
  assert.equal(sub.status, 200, sub.text);
  const path = `/v1/videos/${sub.json.id}`;
  // Real polls first, until the task is in progress (poll 2 of 7).
  await eventually(async () => (await call(stack, key, 'GET', path)).json.status === 'in_progress', 5000);
  const { progress } = await record(sub.json.id);
  stack.sim.control.addFault({ path: QUERY, status: 200, times: 5, body: { id: (await record(sub.json.id)).upstream_id, status: 'melting', video_url: null, detail: {} } });
  // While the vendor says "melting", every view of the task is unchanged and never names the word.
  while (stack.sim.control.faults()[0]?.times) {
    for (const p of [path, `/v1/video/generations/${sub.json.id}`]) {
      const r = await call(stack, key, 'GET', p);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.status, 'in_progress', r.text);
      assert.equal(r.json.progress, progress, r.text);
      assert.doesNotMatch(r.text, /melting/);
    }
  }
  const warned = stack.logs().filter((l) => l.msg === 'unknown upstream task status' && l.task_id === sub.json.id);
  assert.equal(warned.length, 5, 'each unknown answer is noted');
  assert.ok(warned.every((l) => l.upstream_status === 'melting'));
  // Then the vendor speaks normally again and the task finishes, billed once.
  const final = await waitFinal(stack, key, path);
  assert.equal(final.status, 'completed');
  assert.doesNotMatch(JSON.stringify(final), /melting/);
  assert.deepEqual(await movements(tokenId), [`reserve:${PRICE}`, 'settle:0']);
});

test('status regression: a completed task stays completed (and billed once) when the vendor later says running or failed', async () => {
  const { key, id: tokenId } = await stack.token();
  const sub = await submit(key, 'regress [sim polls=0]');
  assert.equal((await waitFinal(stack, key, `/v1/videos/${sub.json.id}`)).status, 'completed');
  const done = await record(sub.json.id);
  const g = stack.gw.gateway;
  const running = await applyUpdate(g, done, { status: 'in_progress', progress: 10, urls: [] }, 'processing');
  const failed = await applyUpdate(g, done, { status: 'failed', progress: 100, urls: [], error: 'late failure', errorCode: 'x' }, 'failed');
  const queued = await applyUpdate(g, done, { status: 'queued', progress: 0, urls: [] }, 'pending');
  for (const out of [running, failed, queued]) assert.deepEqual(out, done);
  assert.deepEqual(await record(sub.json.id), done);
  const view = await call(stack, key, 'GET', `/v1/videos/${sub.json.id}`);
  assert.equal(view.json.status, 'completed');
  assert.equal(view.json.progress, 100);
  assert.equal(view.json.error, null);
  assert.ok(view.json.video_url);
  assert.deepEqual(await movements(tokenId), [`reserve:${PRICE}`, 'settle:0'], 'no refund after the settle');
});

test('concurrent queries: one refresh at a time per task, so a slow "processing" answer cannot overtake a "completed" one', async () => {
  const { key, id: tokenId } = await stack.token();
  const tasks = stack.gw.gateway.runtime.tasks;
  const saved = { ...tasks };
  Object.assign(tasks, { poll_base_ms: 60_000, poll_max_ms: 60_000 }); // only the two queries below poll this task
  try {
    const sub = await submit(key, 'race [sim polls=100]');
    const path = `/v1/videos/${sub.json.id}`;
    const upstreamId = (await record(sub.json.id)).upstream_id;
    // The first poll to arrive is answered slowly with "processing", the second at once with "completed".
    stack.sim.control.addFault({ path: QUERY, status: 200, times: 1, delay_ms: 500, body: { id: upstreamId, status: 'processing', video_url: null } });
    stack.sim.control.addFault({ path: QUERY, status: 200, times: 1, body: { id: upstreamId, status: 'completed', video_url: `${stack.sim.url}/files/race.mp4` } });
    const slow = call(stack, key, 'GET', path);
    await eventually(() => stack.sim.control.requests().filter((q) => q.path === QUERY).length === 1);
    // While one refresh holds the task's lease, a concurrent query answers from the record and does not poll.
    const fast = await call(stack, key, 'GET', path);
    assert.equal(fast.json.status, 'queued', fast.text);
    assert.equal(stack.sim.control.requests().filter((q) => q.path === QUERY).length, 1, 'no second poll in flight');
    await slow;
    const done = await waitFinal(stack, key, path);
    assert.equal(done.status, 'completed');
    assert.equal((await record(sub.json.id)).status, 'completed');
    assert.deepEqual(await movements(tokenId), [`reserve:${PRICE}`, 'settle:0']);
  } finally {
    Object.assign(tasks, saved);
  }
});

test('two public tasks on one upstream task id (scripted submit answer): each is polled, settled and billed once, owners kept apart', async () => {
  const a = await stack.token();
  const b = await stack.token();
  const first = await submit(a.key, 'dup-upstream [sim polls=3]');
  const upstreamId = (await record(first.json.id)).upstream_id!;
  stack.sim.control.addFault({ path: '/v1/video/create', status: 200, times: 1, body: { id: upstreamId, status: 'pending', status_update_time: Date.now() } });
  const second = await submit(b.key, 'dup-upstream second');
  assert.equal(second.status, 200, second.text);
  assert.notEqual(second.json.id, first.json.id);
  assert.equal((await record(second.json.id)).upstream_id, upstreamId);
  assert.equal((await call(stack, a.key, 'GET', `/v1/videos/${second.json.id}`)).status, 404);
  assert.equal((await call(stack, b.key, 'GET', `/v1/videos/${first.json.id}`)).status, 404);
  const [fa, fb] = await Promise.all([waitFinal(stack, a.key, `/v1/videos/${first.json.id}`), waitFinal(stack, b.key, `/v1/videos/${second.json.id}`)]);
  assert.deepEqual([fa.status, fb.status], ['completed', 'completed']);
  for (const id of [first.json.id, second.json.id]) assert.ok((await record(id)).polls >= 1, `${id} was polled`);
  await new Promise((r) => setTimeout(r, 300)); // no late second settle
  assert.deepEqual(await ledgerKinds(stack, a.id, first.json.id), [`reserve:${PRICE}`, 'settle:0']);
  assert.deepEqual(await ledgerKinds(stack, b.id, second.json.id), [`reserve:${PRICE}`, 'settle:0']);
  assert.deepEqual([await movements(a.id), await movements(b.id)], [[`reserve:${PRICE}`, 'settle:0'], [`reserve:${PRICE}`, 'settle:0']]);
  const file = stack.sim.control.videoTasks().find((t) => t.id === upstreamId)!.fileName;
  for (const [k, id] of [[a.key, first.json.id], [b.key, second.json.id]]) {
    const res = await fetch(`${stack.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${k}` } });
    assert.equal(res.status, 200);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(expectedFileBytes(file, 65536)));
  }
});
