// The production config (deploy/config/) end to end, as it ships: every vendor's base URL pointed at the bundled
// simulator, each family submitted, finished and read back through the gateway's own routes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startProduction } from './helpers/production.js';
import type { Stack } from './helpers/stack.js';
import { call, fastTasks, waitFinal } from './helpers/video.js';

let stack: Stack;
let key: string;

before(async () => {
  stack = await startProduction();
  fastTasks(stack);
  ({ key } = await stack.token({ quota: 10_000_000 }));
});
after(() => stack?.close());

/** Submits on a unified video route, waits for completion and downloads the file through the gateway. */
async function unifiedVideo(body: Record<string, unknown>, route = '/v1/video/generations'): Promise<void> {
  const sub = await call(stack, key, 'POST', route, body);
  assert.equal(sub.status, 200, sub.text);
  const done = await waitFinal(stack, key, `/v1/videos/${sub.json.id}`);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const file = await fetch(`${stack.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(file.status, 200);
  assert.ok((await file.arrayBuffer()).byteLength > 0);
}

test('every shipped channel is enabled when its variables are set', () => {
  const off = stack.gw.gateway.runtime.channels.filter((c) => !c.enabled).map((c) => c.id);
  assert.deepEqual(off, []);
});

test('Kling: unified text and image to video, and the vendor format on /vendork', async () => {
  await unifiedVideo({ model: 'kling-v2-6', prompt: 'a fox [sim polls=1]', seconds: '5' });
  await unifiedVideo({ model: 'kling-v2-5-turbo', prompt: 'a fox [sim polls=1]', image: 'https://example.com/a.png', duration: 10 });
  const sub = await call(stack, key, 'POST', '/vendork/v1/videos/text2video', { model_name: 'kling-v2-1-master', prompt: 'vk [sim polls=1]', duration: '5' });
  assert.equal(sub.status, 200, sub.text);
  const done = await waitFinal(stack, key, `/vendork/v1/videos/text2video/${sub.json.data.task_id}`, (j) => ['succeed', 'failed'].includes(j?.data?.task_status));
  assert.equal(done.data.task_status, 'succeed');
});
