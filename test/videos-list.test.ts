// GET /v1/videos through the official openai client: the caller's video tasks only, newest first, paged with
// after/limit/order (auto-pagination included), each item exactly as GET /v1/videos/{id} answers; hostile queries.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startStack, until, type Stack } from './helpers/stack.js';
import { fastTasks, call, waitFinal } from './helpers/video.js';
import { client, assertShapeA } from './helpers/api.js';

let stack: Stack;
before(async () => { stack = await startStack(); fastTasks(stack); });
after(async () => { await stack.close(); });

/** `n` finished video tasks of one token, oldest first, from two families' channels and both submit routes. */
async function videos(key: string, n: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = i % 2
      ? await call(stack, key, 'POST', '/v1/video/generations', { model: 'veo3', prompt: `${tag}-${i} [sim polls=0]` })
      : await call(stack, key, 'POST', '/v1/videos', { model: 'sora-2', prompt: `${tag}-${i} [sim polls=0]`, seconds: '4' });
    assert.equal(r.status, 200, r.text);
    ids.push(r.json.id);
  }
  for (const id of ids) await waitFinal(stack, key, `/v1/videos/${id}`);
  return ids;
}

test('videos.list: only the caller\'s videos, newest first, each exactly as retrieve answers; pages and auto-pagination', async () => {
  const a = await stack.token();
  const b = await stack.token();
  const mine = await videos(a.key, 5, 'list-a');
  const theirs = await videos(b.key, 2, 'list-b');
  // A task of another family (image-art) is the caller's too, but not a video.
  assert.equal((await call(stack, a.key, 'POST', '/art/submit/imagine', { prompt: 'not a video' })).json.code, 1);
  const ai = client(stack, a.key);
  const first = await ai.videos.list();
  assert.deepEqual(first.data.map((v) => v.id), [...mine].reverse());
  assert.equal(first.has_more, false);
  const raw = await call(stack, a.key, 'GET', '/v1/videos');
  assert.deepEqual(Object.keys(raw.json), ['object', 'data', 'first_id', 'last_id', 'has_more']);
  assert.equal(raw.json.object, 'list');
  assert.equal(raw.json.first_id, mine[4]);
  assert.equal(raw.json.last_id, mine[0]);
  for (const item of raw.json.data) assert.deepEqual(item, (await call(stack, a.key, 'GET', `/v1/videos/${item.id}`)).json);
  assert.equal(raw.json.data[0].object, 'video');

  const page1 = await ai.videos.list({ limit: 2 });
  assert.deepEqual(page1.data.map((v) => v.id), [mine[4], mine[3]]);
  assert.equal(page1.has_more, true);
  const page2 = await page1.getNextPage();
  assert.deepEqual(page2.data.map((v) => v.id), [mine[2], mine[1]]);
  const page3 = await page2.getNextPage();
  assert.deepEqual(page3.data.map((v) => v.id), [mine[0]]);
  assert.equal(page3.hasNextPage(), false);

  const all: string[] = [];
  for await (const v of ai.videos.list({ limit: 2, order: 'asc' })) all.push(v.id);
  assert.deepEqual(all, mine, 'auto-pagination, oldest first');
  assert.deepEqual((await ai.videos.list({ order: 'asc', after: mine[1], limit: 2 })).data.map((v) => v.id), [mine[2], mine[3]]);
  assert.deepEqual((await ai.videos.list({ after: mine[1] })).data.map((v) => v.id), [mine[0]]);
  assert.deepEqual((await ai.videos.list({ after: mine[0] })).data, [], 'after the oldest: an empty page');
  const empty = await call(stack, a.key, 'GET', `/v1/videos?after=${mine[0]}`);
  assert.deepEqual(empty.json, { object: 'list', data: [], first_id: null, last_id: null, has_more: false });

  assert.deepEqual((await client(stack, b.key).videos.list()).data.map((v) => v.id), [...theirs].reverse());
  const none = await client(stack, (await stack.token()).key).videos.list();
  assert.deepEqual(none.data, []);
});

test('hostile queries: limit and order out of range are 400 naming them; a bogus or foreign `after` is 400 and reveals nothing', async () => {
  const a = await stack.token();
  const b = await stack.token();
  const [mine] = await videos(a.key, 1, 'attack-a');
  const [theirs] = await videos(b.key, 1, 'attack-b');
  const art = (await call(stack, a.key, 'POST', '/art/submit/imagine', { prompt: 'art' })).json.result;
  const bad = async (query: string, field: string) => {
    const r = await call(stack, a.key, 'GET', `/v1/videos?${query}`);
    assertShapeA(r, 400, 'invalid_request', 'platform_api_error', `\`${field}\``);
    assert.ok(r.text.length < 400, `bounded: ${r.text}`);
    return r.json.error.message.replace(/ \(request id: .*\)$/, '');
  };
  for (const limit of ['0', '101', '-1', '1.5', 'abc', '1e2', '', ' 5', '+5', '9'.repeat(400), '0x10']) await bad(`limit=${encodeURIComponent(limit)}`, 'limit');
  for (const order of ['up', 'ASC', '', 'desc;drop']) await bad(`order=${encodeURIComponent(order)}`, 'order');
  const bogus = await bad('after=task_nope', 'after');
  const foreign = await bad(`after=${theirs}`, 'after');
  assert.equal(foreign.replace(theirs, 'X'), bogus.replace('task_nope', 'X'), 'another user\'s id reads like an unknown one');
  await bad(`after=${art}`, 'after');
  await bad(`after=${'z'.repeat(5000)}`, 'after');
  await assert.rejects(client(stack, a.key).videos.list({ limit: 1000 }), (e: unknown) => e instanceof OpenAI.BadRequestError);
  assert.equal((await call(stack, a.key, 'GET', `/v1/videos?after=${mine}&limit=100&order=asc&unknown=1`)).status, 200);
  const anon = await fetch(`${stack.url}/v1/videos`);
  assert.equal(anon.status, 401);
});

test('an entry whose record expired is skipped (and dropped), and a task still being submitted is not listed yet', async () => {
  const { key } = await stack.token();
  const ids = await videos(key, 4, 'expire');
  await stack.gw.store.kv('tasks').delete(ids[2]); // as the retention TTL would
  const page = await client(stack, key).videos.list({ limit: 3 });
  assert.deepEqual(page.data.map((v) => v.id), [ids[3], ids[1], ids[0]]);
  assert.equal(page.has_more, false);
  assert.equal(await stack.gw.store.catalog.page({ user: (await stack.gw.gateway.tasks.get(ids[0]))!.owner.user, after: ids[2], limit: 1, order: 'desc' }), undefined, 'its entry is gone');
  // The vendor holds the submit's answer for a while: meanwhile the task has no public id and is not listed.
  // The list is read once the vendor has the submit, and well inside its delay.
  const slow = call(stack, key, 'POST', '/v1/video/generations', { model: 'veo3', prompt: 'pending [sim polls=0 submit_delay_ms=1500]' });
  await until('the vendor has the submit', () => stack.sim.control.videoTasks().some((t) => t.prompt.includes('pending')), 10_000, 10);
  assert.equal((await client(stack, key).videos.list()).data.length, 3);
  const accepted = (await slow).json.id;
  assert.equal((await client(stack, key).videos.list()).data[0].id, accepted);
});
