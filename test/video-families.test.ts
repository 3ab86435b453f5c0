// Every video family end to end: submit → poll until completed → download (bytes equal the simulator's file) → billed once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './helpers/stack.js';
import { fastTasks, call, waitFinal, ledgerKinds } from './helpers/video.js';
import { expectedFileBytes } from '../simulator/video/index.js';

let stack: Stack;
before(async () => { stack = await startStack(); fastTasks(stack); });
after(async () => { await stack.close(); });

// model, extra body fields, expected charge (the list prices of vendors/*.yaml, the demo's own for its resellers), and
// what is reserved when it differs: a vendor that reports what it billed (Ark's tokens) is charged that.
const families: [string, Record<string, unknown>, number, number?][] = [
  ['sora-2', { seconds: '8' }, 800],
  ['kling-v2-master', { seconds: '5' }, 1400],
  ['viduq1', { image: 'https://example.com/a.png', metadata: { last_frame_url: 'https://example.com/b.png' } }, 400],
  // Seedance 1.0 at 720p, 16:9 renders 1248 × 704: × 24 × 5 / 1024 = 102,960 tokens at ¥15 a million (7 CNY = 1 USD);
  // the dearest 720p ratio is reserved.
  ['doubao-seedance-1-0-pro-250528', { metadata: { output_config: { resolution: '720p', audio_generation: true } } }, 221, 247],
  // ¥0.60 a second at 720P (7 CNY = 1 USD): 5 s is ¥3.00, 428.57 units, rounded up once.
  ['wan2.5-t2v-preview:1280*720', { duration: 5 }, 429],
  // MiniMax renders a 10 s clip at 768P for $0.56.
  ['MiniMax-Hailuo-02', { seconds: '10' }, 560],
  ['veo3', { images: ['https://example.com/a.png'], aspect_ratio: '16:9' }, 1500],
  ['fixdur-pro', { seconds: '10', input_reference: ['data:image/png;base64,iVBORw0KGgo=', 'data:image/jpeg;base64,/9j/4AAQ'] }, 2000],
  ['fixdur-max', {}, 3000],
];

for (const [model, extra, charge, reserved = charge] of families) {
  test(`${model}: submit → completed → content → charged ${charge} once`, async () => {
    const { key, id: tokenId } = await stack.token({ quota: 100_000 });
    const marker = `fam-${model.replace(/\W/g, '')}`;
    const sub = await call(stack, key, 'POST', '/v1/video/generations', { model, prompt: `a cat ${marker} [sim polls=1 size_bytes=300000]`, ...extra });
    assert.equal(sub.status, 200, sub.text);
    assert.match(sub.json.id, /^task_[A-Za-z0-9]{32}$/);
    assert.equal(sub.json.task_id, sub.json.id);
    assert.equal(sub.json.object, 'video');
    assert.equal(sub.json.model, model);
    assert.ok(['queued', 'in_progress'].includes(sub.json.status));
    assert.equal(typeof sub.json.created_at, 'number');

    const done = await waitFinal(stack, key, `/v1/video/generations/${sub.json.id}`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.progress, 100);
    assert.equal(done.object, 'video');
    assert.match(done.video_url, new RegExp(`/v1/videos/${sub.json.id}/content$`));

    const simTask = stack.sim.control.videoTasks().find((t) => t.prompt.includes(marker));
    assert.ok(simTask, 'the simulator saw the task');
    assert.ok(!JSON.stringify(done).includes(simTask.id), 'the upstream id never reaches the client');
    const file = await fetch(`${stack.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'video/mp4');
    const bytes = Buffer.from(await file.arrayBuffer());
    assert.equal(bytes.length, 300000);
    assert.ok(bytes.equals(expectedFileBytes(simTask.fileName, 300000)));

    assert.equal(await stack.balance(tokenId), 100_000 - charge);
    assert.deepEqual(await ledgerKinds(stack, tokenId, sub.json.id), [`reserve:${reserved}`, `settle:${charge - reserved}`]);
  });

  test(`${model}: a failing task ends failed and is refunded exactly once`, async () => {
    const { key, id: tokenId } = await stack.token({ quota: 100_000 });
    const sub = await call(stack, key, 'POST', '/v1/video/generations', { model, prompt: 'doomed [sim polls=1 fail=1]', ...extra });
    assert.equal(sub.status, 200, sub.text);
    const done = await waitFinal(stack, key, `/v1/video/generations/${sub.json.id}`);
    assert.equal(done.status, 'failed');
    assert.equal(typeof done.error?.message, 'string');
    assert.equal(await stack.balance(tokenId), 100_000);
    // Processing the task again (a second instance, a replayed poll) must not refund again.
    const rec = (await stack.gw.gateway.tasks.get(sub.json.id))!;
    const { applyUpdate } = await import('../src/tasks/apply-update.js');
    await applyUpdate(stack.gw.gateway, { ...rec, status: 'in_progress', quota: { ...rec.quota, state: 'reserved' } }, { status: 'failed', progress: 100, urls: [] });
    assert.equal(await stack.balance(tokenId), 100_000);
    assert.deepEqual(await ledgerKinds(stack, tokenId, sub.json.id), [`reserve:${reserved}`, `refund:-${reserved}`]);
  });
}
