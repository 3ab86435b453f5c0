// The production config (deploy/config/) end to end, as it ships: every vendor's base URL pointed at the bundled
// simulator, each family submitted, finished and read back through the gateway's own routes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import { pngBytes } from '../simulator/server.js';
import type { LoggedRequest } from '../simulator/control.js';
import { startProduction } from './helpers/production.js';
import { eventually, type Stack } from './helpers/stack.js';
import { call, fastTasks, waitFinal } from './helpers/video.js';
import { expectedCharge, shippedPrice } from './helpers/api.js';

let stack: Stack;
let key: string;

before(async () => {
  stack = await startProduction();
  fastTasks(stack);
  ({ key } = await stack.token({ quota: 10_000_000 }));
});
after(() => stack?.close());

/** The last request the simulator received on `path` (the vendor side of what the gateway sent). */
function lastUpstream(path: string): LoggedRequest {
  const r = stack.sim.control.requests().filter((q) => q.path === path).at(-1);
  assert.ok(r, `nothing reached ${path}`);
  return r;
}
const lastUpstreamBody = (path: string) => lastUpstream(path).body as Record<string, unknown>;

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

test('OpenAI: chat (stream and not), Responses, embeddings, through the official client, charged at the list price', async () => {
  const { key: own, id } = await stack.token({ quota: 100_000 });
  const ai = new OpenAI({ apiKey: own, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  const chat = await ai.chat.completions.create({ model: 'gpt-6.2-sol', messages: [{ role: 'user', content: `${'w '.repeat(500)}[sim chunks=300]` }] });
  assert.equal(chat.usage?.completion_tokens, 300);
  // vendors/openai.yaml: gpt-6.2-sol at $2 / $10 per million tokens.
  await eventually(async () => (await stack.balance(id)) === 100_000 - expectedCharge(shippedPrice('gpt-6.2-sol'), chat.usage!.prompt_tokens, 300));
  const stream = await ai.chat.completions.create({ model: 'gpt-6-luna', stream: true, messages: [{ role: 'user', content: 'hi [sim chunks=4]' }] });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  assert.equal(text, 'tok1 tok2 tok3 tok4 ');
  // Responses clients reach OpenAI natively: the body as sent, OpenAI's answer as made, streamed or not.
  const body = { model: 'gpt-6.2-sol', input: 'say it [sim chunks=2]', store: false, include: ['reasoning.encrypted_content' as const], tools: [{ type: 'web_search' as const }] };
  const response = await ai.responses.create(body);
  assert.equal(response.output_text, 'tok1 tok2 ');
  assert.deepEqual(lastUpstream('/v1/responses').body, body);
  assert.equal(lastUpstream('/v1/responses').headers.authorization, 'Bearer sim-key');
  let streamed = '';
  for await (const e of await ai.responses.create({ ...body, stream: true })) if (e.type === 'response.output_text.delta') streamed += e.delta;
  assert.equal(streamed, 'tok1 tok2 ');
  const emb = await ai.embeddings.create({ model: 'text-embedding-3-small', input: ['a fox', 'a hound'] });
  assert.equal(emb.data.length, 2);
  assert.equal(lastUpstream('/v1/chat/completions').headers.authorization, 'Bearer sim-key', 'OPENAI_API_KEY as a Bearer token');
});

test('OpenAI images: generate and edit, charged from the tokens the answer reports', async () => {
  const { key: own, id } = await stack.token({ quota: 100_000 });
  const ai = new OpenAI({ apiKey: own, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  const gen = await ai.images.generate({ model: 'gpt-image-2.5-flare', prompt: 'a kite', size: '16:9' as never, n: 2 });
  assert.equal(gen.data?.length, 2);
  assert.equal(lastUpstreamBody('/v1/images/generations').size, '1920x1088');
  const png = Buffer.from(pngBytes(64, 64));
  const edit = await ai.images.edit({ model: 'gpt-image-2.6-sunburst', prompt: 'add a moon', image: await toFile(png, 'a.png', { type: 'image/png' }) });
  const cost = (u: { input_tokens: number; output_tokens: number }) => Math.ceil((u.input_tokens * 8000 + u.output_tokens * 30000) / 1e6);
  await eventually(async () => (await stack.balance(id)) === 100_000 - cost(gen.usage!) - cost(edit.usage!));
});

test('OpenAI Sora: create, completed, content through the gateway, list, remix and delete; charged per second at the size\'s price', async () => {
  await unifiedVideo({ model: 'sora-2', prompt: 'a fox [sim polls=1]', seconds: '4' }, '/v1/videos');
  const { key: own, id } = await stack.token({ quota: 100_000 });
  const ai = new OpenAI({ apiKey: own, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  const video = await ai.videos.create({ model: 'sora-2-pro', prompt: 'a hound [sim polls=1]', seconds: '8', size: '1792x1024' });
  const done = await waitFinal(stack, own, `/v1/videos/${video.id}`);
  assert.equal(done.status, 'completed');
  const listed = await ai.videos.list({ limit: 10 });
  assert.ok(listed.data.some((v) => v.id === video.id));
  const remix = await ai.videos.remix(video.id, { prompt: 'now at night [sim polls=1]' });
  assert.equal(remix.remixed_from_video_id, video.id);
  assert.equal((await waitFinal(stack, own, `/v1/videos/${remix.id}`)).status, 'completed');
  const deleted = await ai.videos.delete(remix.id);
  assert.equal(deleted.deleted, true);
  assert.equal(await stack.balance(id), 100_000 - 2 * 8 * 500, 'sora-2-pro at 1792x1024 is 500 units a second, the remix priced like its source');
});

test('OpenAI batches: a file stored at OpenAI, the batch run there, its output read back, charged at half the list price', async () => {
  const { key: own, id } = await stack.token({ quota: 100_000 });
  const ai = new OpenAI({ apiKey: own, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  const u = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const lines = [
    { custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-6-luna', max_completion_tokens: 100_000, messages: [{ role: 'user', content: `one [sim usage=${u({ prompt_tokens: 200_000, completion_tokens: 40_000 })}]` }] } },
    { custom_id: 'b', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-6-luna', max_completion_tokens: 100_000, messages: [{ role: 'user', content: `two [sim usage=${u({ prompt_tokens: 250_000, completion_tokens: 60_000, prompt_tokens_details: { cached_tokens: 100_000 } })}]` }] } },
  ];
  const file = await ai.files.create({ file: await toFile(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n')), 'in.jsonl'), purpose: 'batch' });
  assert.equal(lastUpstream('/v1/files').headers.authorization, 'Bearer sim-key');
  const batch = await ai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  const done = await waitFinal(stack, own, `/v1/batches/${batch.id}`, (j) => ['completed', 'failed', 'expired', 'cancelled'].includes(j?.status));
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const out = (await (await ai.files.content(done.output_file_id)).text()).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.deepEqual(out.map((l) => l.custom_id), ['a', 'b']);
  // gpt-6-luna (developers.openai.com/api/docs/models/gpt-6-luna): $0.10 input, $0.01 cached, $0.50 output per
  // million (both prompts under its 272K long-context tier); Batch 50%: (200,000 × 0.05 + 40,000 × 0.25) + (150,000 ×
  // 0.05 + 100,000 × 0.005 + 60,000 × 0.25) per million = $0.043 → 43 units.
  await eventually(async () => (await stack.balance(id)) === 100_000 - 43);
});

test('Anthropic: Messages clients byte for byte, OpenAI-format clients translated; the key in x-api-key', async () => {
  const msg = await call(stack, key, 'POST', '/v1/messages', { model: 'claude-sonnet-5-5', max_tokens: 64, messages: [{ role: 'user', content: 'hello [sim chunks=2]' }] });
  assert.equal(msg.status, 200, msg.text);
  assert.deepEqual(msg.json.content, [{ type: 'text', text: 'tok1 tok2 ' }]);
  const sent = lastUpstream('/v1/messages');
  assert.equal(sent.headers['x-api-key'], 'sim-key');
  assert.equal(sent.headers['anthropic-version'], '2023-06-01');
  const ai = new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  const chat = await ai.chat.completions.create({ model: 'claude-haiku-4-5', max_tokens: 32, messages: [{ role: 'user', content: 'hi [sim chunks=3]' }] });
  assert.equal(chat.choices[0].message.content, 'tok1 tok2 tok3 ');
});

test('Gemini: native generateContent on an image model, a 4K image sent as asked and charged as drawn, key in x-goog-api-key', async () => {
  const { key, id } = await stack.token({ quota: 100_000 });
  const before = (await stack.balance(id))!;
  const r = await call(stack, key, 'POST', '/v1beta/models/gemini-3-pro-image-preview:generateContent', {
    contents: [{ parts: [{ text: 'a fox' }] }], generationConfig: { imageConfig: { aspectRatio: '16:9', imageSize: '4K' } },
  });
  assert.equal(r.status, 200, r.text);
  assert.ok(r.json.candidates[0].content.parts.some((p: any) => p.inlineData?.mimeType === 'image/png'));
  const sent = lastUpstream('/v1beta/models/gemini-3-pro-image-preview:generateContent');
  assert.equal(sent.headers['x-goog-api-key'], 'sim-key');
  assert.equal((sent.body as any).generationConfig.imageConfig.imageSize, '4K');
  // Google bills a 4K image as 2000 image tokens at $120 a million: 240 units, the prompt and text at $2 and $12.
  const u = r.json.usageMetadata;
  const expected = Math.ceil((u.promptTokenCount * 2000 + (u.candidatesTokenCount - 2000) * 12000 + 2000 * 120000) / 1e6);
  await eventually(async () => before - (await stack.balance(id))! === expected);
});

test('Gemini chat: a Gemini client (key in ?key=) untouched, a stream on alt=sse, an OpenAI client translated, charged at the list price', async () => {
  const { key: own, id } = await stack.token({ quota: 100_000 });
  const before = (await stack.balance(id))!;
  const r = await fetch(`${stack.url}/v1beta/models/gemini-2.5-flash:generateContent?key=${own}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi [sim chunks=4]' }] }] }),
  });
  const answer = await r.json() as any;
  assert.equal(r.status, 200, JSON.stringify(answer));
  assert.equal(answer.candidates[0].content.parts[0].text, 'tok1 tok2 tok3 tok4 ');
  const sent = lastUpstream('/v1beta/models/gemini-2.5-flash:generateContent');
  assert.equal(sent.headers['x-goog-api-key'], 'sim-key');
  assert.equal(sent.url, '/v1beta/models/gemini-2.5-flash:generateContent', 'the client\'s ?key= stays at the gateway');
  const u = answer.usageMetadata;
  await eventually(async () => before - (await stack.balance(id))! === expectedCharge(shippedPrice('gemini-2.5-flash'), u.promptTokenCount, u.candidatesTokenCount));
  const stream = await fetch(`${stack.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': own }, body: JSON.stringify({ contents: [{ parts: [{ text: 'go [sim chunks=2]' }] }] }),
  });
  assert.equal(stream.headers.get('content-type'), 'text/event-stream');
  assert.match(await stream.text(), /"finishReason":"STOP"/);
  assert.equal(lastUpstream('/v1beta/models/gemini-2.5-pro:streamGenerateContent').url, '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
  const ai = new OpenAI({ apiKey: own, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  const chat = await ai.chat.completions.create({ model: 'gemini-2.5-flash-lite', messages: [{ role: 'system', content: 'Terse.' }, { role: 'user', content: 'hi [sim chunks=3]' }] });
  assert.equal(chat.choices[0].message.content, 'tok1 tok2 tok3 ');
  assert.deepEqual((lastUpstreamBody('/v1beta/models/gemini-2.5-flash-lite:generateContent') as any).systemInstruction, { parts: [{ text: 'Terse.' }] });
});

test('midjourney-proxy: an imagine in RELAX runs on the relax prefix, finishes, and its image comes through the gateway', async () => {
  const { key: own, id } = await stack.token({ quota: 10_000 });
  const sub = await call(stack, own, 'POST', '/art/submit/imagine', { prompt: 'a lighthouse [sim polls=1]', mode: 'RELAX' });
  assert.equal(sub.status, 200, sub.text);
  assert.equal(sub.json.code, 1);
  const task = await waitFinal(stack, own, `/art/task/${sub.json.result}/fetch`, (j) => ['SUCCESS', 'FAILURE'].includes(j?.status));
  assert.equal(task.status, 'SUCCESS');
  const img = await fetch(task.imageUrl, { headers: { authorization: `Bearer ${own}` } });
  assert.equal(img.status, 200);
  assert.ok((await img.arrayBuffer()).byteLength > 0);
  const sent = lastUpstream('/mj-relax/mj/submit/imagine');
  assert.equal(sent.headers['mj-api-secret'], 'sim-key');
  assert.equal(stack.sim.control.mediaTasks().find((t) => t.prompt.startsWith('a lighthouse'))?.speed, 'RELAX');
  const fast = await call(stack, own, 'POST', '/art/submit/imagine', { prompt: 'a harbour [sim polls=0]' });
  await waitFinal(stack, own, `/art/task/${fast.json.result}/fetch`, (j) => ['SUCCESS', 'FAILURE'].includes(j?.status));
  assert.ok(lastUpstream('/mj-fast/mj/submit/imagine'), 'no mode is FAST');
  assert.equal(await stack.balance(id), 10_000 - 67, 'relax lists at 0, a fast job at 67');
});

test('Suno wrapper: a song and lyrics, polled in batches, fetched in the wrapper format', async () => {
  const { key: own, id } = await stack.token({ quota: 10_000 });
  const song = await call(stack, own, 'POST', '/music/submit/music', { prompt: 'a sea shanty [sim polls=1]', tags: 'folk' });
  assert.equal(song.status, 200, song.text);
  const lyrics = await call(stack, own, 'POST', '/music/submit/lyrics', { prompt: 'the tide' });
  assert.equal(lyrics.json.code, 'success');
  const done = await waitFinal(stack, own, `/music/fetch/${song.json.data}`, (j) => ['SUCCESS', 'FAILURE'].includes(j?.data?.status));
  assert.equal(done.data.status, 'SUCCESS');
  assert.ok(done.data.data[0].audio_url);
  const batch = await call(stack, own, 'POST', '/music/fetch', { ids: [song.json.data, lyrics.json.data] });
  assert.deepEqual(batch.json.data.map((t: any) => t.action), ['MUSIC', 'LYRICS']);
  assert.equal(await stack.balance(id), 10_000 - 40, 'a song lists at 40, lyrics at 0');
  assert.equal(lastUpstream('/suno/submit/music').headers.authorization, 'Bearer sim-key');
});
