// DELETE /v1/videos/{id} through the official openai client: a finished video is deleted (at the vendor too, its
// charge kept); an unfinished one is cancelled and refunded where the vendor can cancel, else refused with 400;
// someone else's id is 404. Money is checked against the ledger.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startStack, eventually, type Stack } from './helpers/stack.js';
import { fastTasks, call, waitFinal, ledgerKinds } from './helpers/video.js';
import { client, assertShapeA } from './helpers/api.js';

let stack: Stack;
before(async () => { stack = await startStack(); });
after(async () => { await stack.close(); });

const simTask = (marker: string) => stack.sim.control.videoTasks().find((t) => t.prompt.includes(marker))!;
const simDeletes = (vendorId: string) => stack.sim.control.requests().filter((r) => r.method === 'DELETE' && r.path.endsWith(`/${vendorId}`));
/** The poller leaves new tasks alone for a minute: an unfinished task stays as the vendor first knew it. */
const holdPolls = () => Object.assign(stack.gw.gateway.runtime.tasks, { poll_base_ms: 60_000, refresh_after_ms: 60_000 });
const notFound = (e: unknown) => e instanceof OpenAI.NotFoundError && (e.error as { code?: string }).code === 'task_not_found';

test('a finished video: deleted at the vendor and here, its charge kept; later retrieve, content and list are 404/absent', async () => {
  fastTasks(stack);
  const { key, id: account } = await stack.token();
  const ai = client(stack, key);
  const start = (await stack.balance(account))!;
  const v = await ai.videos.create({ model: 'sora-2', prompt: 'delete-done [sim polls=0]', seconds: '8' });
  await waitFinal(stack, key, `/v1/videos/${v.id}`);
  const charged = start - (await stack.balance(account))!;
  assert.equal(charged, 800, '8 s of sora-2');
  const vendorId = simTask('delete-done').id;

  assert.deepEqual(await ai.videos.delete(v.id), { id: v.id, object: 'video.deleted', deleted: true });
  assert.equal(simDeletes(vendorId).length, 1, 'the vendor\'s copy is deleted too');
  assert.equal(start - (await stack.balance(account))!, charged, 'deleting a finished video refunds nothing');
  assert.deepEqual(await ledgerKinds(stack, account, v.id), ['reserve:800', 'settle:0']);
  await assert.rejects(ai.videos.retrieve(v.id), notFound);
  await assert.rejects(ai.videos.delete(v.id), notFound, 'a second delete finds nothing');
  assert.equal((await call(stack, key, 'GET', `/v1/videos/${v.id}/content`)).status, 404);
  assert.deepEqual((await ai.videos.list()).data, []);
});

test('a failed video is deleted without money moving (its reservation went back when it failed)', async () => {
  fastTasks(stack);
  const { key, id: account } = await stack.token();
  const start = (await stack.balance(account))!;
  const sub = await call(stack, key, 'POST', '/v1/video/generations', { model: 'doubao-seedance-1-0-pro-250528', prompt: 'delete-failed [sim polls=0 fail=1]' });
  assert.equal((await waitFinal(stack, key, `/v1/videos/${sub.json.id}`)).status, 'failed');
  assert.equal(await stack.balance(account), start);
  assert.equal((await client(stack, key).videos.delete(sub.json.id)).deleted, true);
  assert.equal(simDeletes(simTask('delete-failed').id).length, 1);
  assert.equal(await stack.balance(account), start);
});

test('an unfinished video whose vendor can cancel: cancelled there, failed and refunded here, then deleted', async () => {
  holdPolls();
  const { key, id: account } = await stack.token();
  const start = (await stack.balance(account))!;
  const slots = await stack.gw.store.tasks.count();
  const sub = await call(stack, key, 'POST', '/v1/video/generations', { model: 'doubao-seedance-1-0-pro-250528', prompt: 'cancel-me [sim polls=5]', seconds: 6 });
  assert.equal(sub.status, 200, sub.text);
  // Seedance 1.0 pro at its default 1080p: 6 s × 49,980 tokens (the dearest 1080p frame, with a frame to spare) at ¥15 a million.
  assert.equal(start - (await stack.balance(account))!, 643, '6 s of doubao-seedance-1-0-pro-250528 reserved');
  assert.equal(await stack.gw.store.tasks.count(), slots + 1);

  assert.deepEqual(await client(stack, key).videos.delete(sub.json.id), { id: sub.json.id, object: 'video.deleted', deleted: true });
  const vendorId = simTask('cancel-me').id;
  assert.equal(simDeletes(vendorId).length, 1, 'one cancel call');
  assert.equal(await stack.balance(account), start, 'the reservation is back');
  assert.deepEqual(await ledgerKinds(stack, account, sub.json.id), ['reserve:643', 'refund:-643']);
  assert.equal(await stack.gw.store.tasks.count(), slots, 'its in-flight slot is free');
  const atVendor = await fetch(`${stack.sim.url}/api/v3/contents/generations/tasks/${vendorId}`, { headers: { authorization: 'Bearer sim-key' } });
  assert.equal((await atVendor.json()).status, 'cancelled');
  await assert.rejects(client(stack, key).videos.retrieve(sub.json.id), notFound);
  assert.ok(stack.logs().some((l) => l.msg === 'task finished' && l.task_id === sub.json.id && l.error === 'cancelled'));
});

test('an unfinished video whose vendor cannot cancel is 400 naming it, and stays as it was, money still reserved', async () => {
  holdPolls();
  const { key, id: account } = await stack.token();
  const start = (await stack.balance(account))!;
  const v = await client(stack, key).videos.create({ model: 'sora-2', prompt: 'no-cancel [sim polls=50]', seconds: '4' });
  const r = await call(stack, key, 'DELETE', `/v1/videos/${v.id}`);
  assertShapeA(r, 400, 'invalid_request', 'platform_api_error', v.id);
  assert.match(r.json.error.message, /still in progress/);
  await assert.rejects(client(stack, key).videos.delete(v.id), (e: unknown) => e instanceof OpenAI.BadRequestError);
  assert.equal(simDeletes(simTask('no-cancel').id).length, 0, 'nothing asked of a vendor that cannot cancel');
  assert.equal((await call(stack, key, 'GET', `/v1/videos/${v.id}`)).status, 200);
  assert.equal(start - (await stack.balance(account))!, 400);
});

test('the vendor refuses to cancel a started task: 400, the task and its reservation stay; a task finished unseen keeps its charge', async () => {
  const { key, id: account } = await stack.token();
  // Started: two polls at the vendor, and the record says so.
  fastTasks(stack);
  const sub = await call(stack, key, 'POST', '/v1/video/generations', { model: 'doubao-seedance-1-0-pro-250528', prompt: 'started [sim polls=1000]' });
  await eventually(async () => (await call(stack, key, 'GET', `/v1/videos/${sub.json.id}`)).json.status === 'in_progress');
  holdPolls();
  const refused = await call(stack, key, 'DELETE', `/v1/videos/${sub.json.id}`);
  assertShapeA(refused, 400, 'invalid_request', 'platform_api_error', sub.json.id);
  assert.match(refused.json.error.message, /refused to cancel/);
  assert.deepEqual(await ledgerKinds(stack, account, sub.json.id), ['reserve:536']);
  assert.equal((await call(stack, key, 'GET', `/v1/videos/${sub.json.id}`)).json.status, 'in_progress');

  // Finished at the vendor while the gateway still says queued: the delete finds out first, so it is charged.
  const done = await call(stack, key, 'POST', '/v1/video/generations', { model: 'doubao-seedance-1-0-pro-250528', prompt: 'unseen [sim polls=0]' });
  const vendorId = simTask('unseen').id;
  await fetch(`${stack.sim.url}/api/v3/contents/generations/tasks/${vendorId}`, { headers: { authorization: 'Bearer sim-key' } });
  assert.equal((await client(stack, key).videos.delete(done.json.id)).deleted, true);
  // Charged the tokens Ark reports: 1920 × 1088 × 24 × 5 / 1024 = 244,800 at ¥15 a million.
  assert.deepEqual(await ledgerKinds(stack, account, done.json.id), ['reserve:536', 'settle:-11']);
  const deletes = simDeletes(vendorId);
  assert.equal(deletes.length, 1, 'deleted at the vendor as a finished task, never cancelled');
});

test('someone else\'s id, an unknown id and a huge id are 404 and change nothing', async () => {
  fastTasks(stack);
  const owner = await stack.token();
  const other = await stack.token();
  const v = await client(stack, owner.key).videos.create({ model: 'sora-2', prompt: 'not-yours [sim polls=0]' });
  await waitFinal(stack, owner.key, `/v1/videos/${v.id}`);
  await assert.rejects(client(stack, other.key).videos.delete(v.id), notFound);
  for (const id of ['task_nope', 'x'.repeat(3000), '..%2F..']) {
    const r = await call(stack, other.key, 'DELETE', `/v1/videos/${id}`);
    assertShapeA(r, 404, 'task_not_found', 'platform_api_error');
    assert.ok(r.text.length < 400);
  }
  assert.equal((await client(stack, owner.key).videos.retrieve(v.id)).status, 'completed');
  assert.equal(simDeletes(simTask('not-yours').id).length, 0);
});

test('a vendor that fails the delete keeps the record (502, retry works); one that refuses it does not block the delete', async () => {
  fastTasks(stack);
  const { key } = await stack.token();
  const ai = client(stack, key);
  const v = await ai.videos.create({ model: 'sora-2', prompt: 'vendor-down [sim polls=0]' });
  await waitFinal(stack, key, `/v1/videos/${v.id}`);
  const vendorId = simTask('vendor-down').id;
  stack.sim.control.addFault({ path: `/v1/videos/${vendorId}`, status: 500, times: 1 });
  assertShapeA(await call(stack, key, 'DELETE', `/v1/videos/${v.id}`), 502, 'upstream_error', 'platform_api_error');
  assert.equal((await ai.videos.retrieve(v.id)).id, v.id, 'still there');
  assert.equal((await ai.videos.delete(v.id)).deleted, true);

  const w = await ai.videos.create({ model: 'sora-2', prompt: 'vendor-says-no [sim polls=0]' });
  await waitFinal(stack, key, `/v1/videos/${w.id}`);
  stack.sim.control.addFault({ path: `/v1/videos/${simTask('vendor-says-no').id}`, status: 403, times: 1 });
  assert.equal((await ai.videos.delete(w.id)).deleted, true);
  assert.ok(stack.logs().some((l) => l.msg.includes('refused to delete') && l.task_id === w.id));
});
