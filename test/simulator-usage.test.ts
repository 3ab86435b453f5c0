// Simulator usage as each vendor reports it, the figures the gateway bills by: the `usage=B64` directive on every chat
// simulator (JSON and stream), Kling's final_unit_deduction, Vidu's credits, Ark's video tokens, DashScope's usage.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Simulator, signKlingJwt, startSimulator } from '../simulator/server.js';
import { simCall, type SimInit } from './helpers/sim-call.js';

const KEY = 'sim-key-usage-0123456789';
let sim: Simulator;

before(async () => {
  sim = await startSimulator({ port: 0, keys: [KEY] });
});

after(async () => {
  await sim.close();
});

beforeEach(() => {
  sim.control.clearVideo();
  sim.control.clearMedia();
  sim.control.clearFaults();
});

const call = (path: string, init?: SimInit) => simCall(sim, path, init);

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const usageDirective = (v: unknown) => `[sim chunks=3 usage=${b64(v)}]`;
const bearer = { authorization: `Bearer ${KEY}` };
const anthropic = { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };
const google = { 'x-goog-api-key': KEY };
const token = { authorization: `Token ${KEY}` };
const kling = () => ({ authorization: `Bearer ${signKlingJwt('sim-ak', 'sim-sk')}` });

/** `data:` payloads of an SSE body (an `event:` line, when there is one, is left to the payload's own `type`). */
function sseData(text: string): any[] {
  return text.split(/\r?\n\r?\n/).map((b) => /^data: (.*)$/m.exec(b)?.[1]).filter((d): d is string => d !== undefined && d !== '[DONE]').map((d) => JSON.parse(d));
}

// ---------------- usage= on the chat simulators ----------------

test('OpenAI chat: usage= merges over the usage, total recomputed; the stream carries it on the usage chunk only', async () => {
  const over = { prompt_tokens: 100, prompt_tokens_details: { cached_tokens: 40, cache_write_tokens: 10 }, completion_tokens_details: { reasoning_tokens: 7 } };
  const body = { model: 'gpt-4o', messages: [{ role: 'user', content: `hi ${usageDirective(over)}` }] };
  const expected = {
    prompt_tokens: 100, completion_tokens: 3, total_tokens: 103,
    prompt_tokens_details: { cached_tokens: 40, audio_tokens: 0, cache_write_tokens: 10 },
    completion_tokens_details: { reasoning_tokens: 7, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  const json = await call('/v1/chat/completions', { headers: bearer, body });
  assert.equal(json.status, 200);
  assert.deepEqual(json.body.usage, expected);

  const stream = sseData((await call('/v1/chat/completions', { headers: bearer, body: { ...body, stream: true, stream_options: { include_usage: true } } })).text);
  assert.deepEqual(stream.at(-1).choices, []);
  assert.deepEqual(stream.at(-1).usage, expected);
  assert.ok(stream.slice(0, -1).every((c) => c.usage === null));
  const quiet = sseData((await call('/v1/chat/completions', { headers: bearer, body: { ...body, stream: true } })).text);
  assert.ok(quiet.every((c) => !('usage' in c)), 'no include_usage: no usage anywhere');

  // A total the directive gives is kept as given (a vendor whose figures disagree).
  const odd = await call('/v1/chat/completions', { headers: bearer, body: { model: 'gpt-4o', messages: [{ role: 'user', content: `hi ${usageDirective({ total_tokens: 1 })}` }] } });
  assert.equal(odd.body.usage.total_tokens, 1);
});

test('OpenAI Responses: usage= on the response and in response.completed', async () => {
  const over = { input_tokens: 50, input_tokens_details: { cached_tokens: 20 }, output_tokens_details: { reasoning_tokens: 4 } };
  const body = { model: 'gpt-4o', input: `hi ${usageDirective(over)}` };
  const expected = { input_tokens: 50, input_tokens_details: { cached_tokens: 20 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 4 }, total_tokens: 53 };
  assert.deepEqual((await call('/v1/responses', { headers: bearer, body })).body.usage, expected);
  const events = sseData((await call('/v1/responses', { headers: bearer, body: { ...body, stream: true } })).text);
  const completed = events.find((e) => e.type === 'response.completed');
  assert.deepEqual(completed.response.usage, expected);
  assert.equal(events.find((e) => e.type === 'response.created').response.usage, null);
});

test('OpenAI embeddings and images: usage= merges over theirs; DALL·E, which reports none, gets the directive alone', async () => {
  const emb = await call('/v1/embeddings', { headers: bearer, body: { model: 'text-embedding-3-small', input: `one two ${usageDirective({ prompt_tokens: 9 })}` } });
  assert.deepEqual(emb.body.usage, { prompt_tokens: 9, total_tokens: 9 });

  const gen = await call('/v1/images/generations', {
    headers: bearer,
    body: { model: 'gpt-image-1', prompt: `a cat ${usageDirective({ input_tokens_details: { text_tokens: 30 }, input_tokens: 30, output_tokens: 5000 })}`, quality: 'low' },
  });
  assert.equal(gen.status, 200);
  assert.deepEqual(gen.body.usage, { input_tokens: 30, output_tokens: 5000, total_tokens: 5030, input_tokens_details: { text_tokens: 30, image_tokens: 0 } });
  const plain = await call('/v1/images/generations', { headers: bearer, body: { model: 'dall-e-2', prompt: 'a cat' } });
  assert.equal(plain.body.usage, undefined);
  const dalle = await call('/v1/images/generations', { headers: bearer, body: { model: 'dall-e-2', prompt: `a cat ${usageDirective({ input_tokens: 2, output_tokens: 3 })}` } });
  assert.deepEqual(dalle.body.usage, { input_tokens: 2, output_tokens: 3, total_tokens: 5 });
});

test('Anthropic: usage= on the message; message_start has the input side and output_tokens 1, message_delta the cumulative counts', async () => {
  const over = { input_tokens: 10, cache_read_input_tokens: 200, cache_creation_input_tokens: 30, cache_creation: { ephemeral_1h_input_tokens: 30 }, output_tokens: 12 };
  const body = { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: `hi ${usageDirective(over)}` }] };
  const expected = {
    input_tokens: 10, cache_creation_input_tokens: 30, cache_read_input_tokens: 200,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 30 }, output_tokens: 12, service_tier: 'standard',
  };
  const json = await call('/v1/messages', { headers: anthropic, body });
  assert.equal(json.status, 200);
  assert.deepEqual(json.body.usage, expected);

  const events = sseData((await call('/v1/messages', { headers: anthropic, body: { ...body, stream: true } })).text);
  assert.deepEqual(events[0].message.usage, { ...expected, output_tokens: 1 });
  const delta = events.find((e) => e.type === 'message_delta');
  assert.deepEqual(delta.usage, { input_tokens: 10, cache_creation_input_tokens: 30, cache_read_input_tokens: 200, output_tokens: 12 });
});

test('Gemini chat: usage= on the final usageMetadata (arrays replace); a stream counts words so far, the last chunk the final figures', async () => {
  const over = {
    promptTokenCount: 400, cachedContentTokenCount: 300, thoughtsTokenCount: 20, toolUsePromptTokenCount: 5,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: 350 }, { modality: 'AUDIO', tokenCount: 50 }], cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 300 }],
  };
  const body = { contents: [{ role: 'user', parts: [{ text: `hi ${usageDirective(over)}` }] }] };
  const expected = {
    promptTokenCount: 400, candidatesTokenCount: 3, totalTokenCount: 428, promptTokensDetails: over.promptTokensDetails,
    cachedContentTokenCount: 300, thoughtsTokenCount: 20, toolUsePromptTokenCount: 5, cacheTokensDetails: over.cacheTokensDetails,
  };
  const json = await call('/v1beta/models/gemini-2.5-flash:generateContent', { headers: google, body });
  assert.equal(json.status, 200);
  assert.deepEqual(json.body.usageMetadata, expected);

  const chunks = sseData((await call('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', { headers: google, body })).text);
  assert.equal(chunks.length, 3);
  assert.deepEqual(chunks.slice(0, -1).map((c) => c.usageMetadata.candidatesTokenCount), [1, 2]);
  assert.equal(chunks[0].usageMetadata.promptTokenCount, 4, 'earlier chunks keep the word counts (directive words included)');
  assert.deepEqual(chunks.at(-1).usageMetadata, expected);
});

test('Gemini chat: tool_args= is base64url JSON as on the other simulators; raw JSON is not a directive value', async () => {
  const tools = [{ functionDeclarations: [{ name: 'read_file', parameters: { type: 'object', properties: { file_path: { type: 'string' } } } }] }];
  const ask = (directive: string) => call('/v1beta/models/gemini-2.5-flash:generateContent', {
    headers: google, body: { tools, contents: [{ role: 'user', parts: [{ text: `read it [sim tool_call=read_file ${directive}]` }] }] },
  });
  const args = (r: { body: any }) => r.body.candidates[0].content.parts[0].functionCall.args;
  assert.deepEqual(args(await ask(`tool_args=${b64({ file_path: 'a b.txt' })}`)), { file_path: 'a b.txt' });
  assert.deepEqual(args(await ask('tool_args={"file_path":"notes.txt"}')), { location: 'Paris' });
  assert.deepEqual(args(await ask('')), { location: 'Paris' });
});

test('Gemini image models: usage= merges over the usageMetadata, total recomputed', async () => {
  const r = await call('/v1beta/models/gemini-2.5-flash-image:generateContent', {
    headers: google, body: { contents: [{ parts: [{ text: `a cat ${usageDirective({ candidatesTokensDetails: [{ modality: 'IMAGE', tokenCount: 1290 }], candidatesTokenCount: 1290 })}` }] }] },
  });
  assert.equal(r.status, 200);
  const u = r.body.usageMetadata;
  assert.deepEqual(u.candidatesTokensDetails, [{ modality: 'IMAGE', tokenCount: 1290 }]);
  assert.equal(u.totalTokenCount, u.promptTokenCount + 1290);
});

// ---------------- video vendors' billed figures ----------------

/** Submits a Kling text2video (finished on the first query) and returns its final_unit_deduction. */
async function klingUnits(body: Record<string, unknown>): Promise<string> {
  const headers = kling();
  const s = await call('/v1/videos/text2video', { headers, body: { prompt: 'a heron [sim polls=0]', ...body } });
  assert.equal(s.body.code, 0, JSON.stringify(s.body));
  const q = await call(`/v1/videos/text2video/${s.body.data.task_id}`, { headers });
  assert.equal(q.body.data.task_status, 'succeed');
  return q.body.data.final_unit_deduction;
}

test('Kling: final_unit_deduction = units per second × duration, by model, mode and sound', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ model_name: 'kling-v2-6' }, '1.5'], // std default, 5 s default: 0.3 U/s
    [{ model_name: 'kling-v2-6', duration: '10' }, '3'],
    [{ model_name: 'kling-v2-6', mode: 'pro' }, '2.5'],
    [{ model_name: 'kling-v2-6', mode: 'pro', sound: 'on' }, '5'], // 1.0 U/s
    [{ model_name: 'kling-v2-6', mode: 'pro', sound: 'on', duration: '10' }, '10'],
    [{ model_name: 'kling-v2-6', mode: 'pro', sound: 'on', voice_list: [{ voice_id: 'v1' }] }, '6'], // 1.2 U/s with voice control
    [{ model_name: 'kling-v2-6', mode: 'pro', sound: 'off' }, '2.5'],
    [{ model_name: 'kling-v3', sound: 'on', duration: '7' }, '6.3'], // 0.9 U/s, v3 takes 3–15 s
    [{ model_name: 'kling-v3', mode: 'pro', duration: '10' }, '8'],
    [{ model_name: 'kling-v1-6', mode: 'pro', duration: '10' }, '7'],
    [{ model_name: 'kling-v2-5-turbo' }, '1.5'],
    [{ model_name: 'kling-v2-1-master', mode: 'std' }, '10'], // one tier: 2.0 U/s
    [{ model_name: 'kling-v2-master', duration: '10' }, '20'],
    [{}, '1.5'], // kling-v1 (the default model), not in the table: kling-v2-6's rate
  ];
  for (const [body, units] of cases) assert.equal(await klingUnits(body), units, JSON.stringify(body));
});

test('Kling: sound on a model without sound, or a sound value other than on/off, is 1201 at submit', async () => {
  for (const body of [{ model_name: 'kling-v2-5-turbo', sound: 'on' }, { model_name: 'kling-v1-6', mode: 'pro', sound: 'on' }, { model_name: 'kling-v2-6', sound: 'yes' }]) {
    const r = await call('/v1/videos/text2video', { headers: kling(), body: { prompt: 'p', ...body } });
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.code, 1201);
    assert.match(r.body.message, /sound/);
  }
  assert.equal(sim.control.videoTasks().length, 0);
});

test('Vidu: credits on the submit answer and the creations query, by model, resolution (real default), duration, audio, off_peak', async () => {
  const cases: [string, Record<string, unknown>, number, string][] = [
    ['text2video', { model: 'viduq3-pro' }, 100, '720p'], // 20/s × 5 s at the default 720p
    ['text2video', { model: 'viduq3-pro', resolution: '1080p', duration: 10 }, 240, '1080p'],
    ['text2video', { model: 'viduq3-pro', resolution: '1080p', duration: 10, off_peak: true }, 120, '1080p'],
    ['text2video', { model: 'viduq3-pro', resolution: '540p', duration: 1 }, 9, '540p'],
    ['text2video', { model: 'viduq3-turbo', duration: 8 }, 88, '720p'],
    ['reference2video', { model: 'viduq3-turbo', images: ['https://example.com/a.png'] }, 50, '720p'],
    ['text2video', { model: 'viduq1' }, 80, '1080p'],
    ['text2video', { model: 'viduq1', off_peak: true }, 40, '1080p'],
    ['img2video', { model: 'vidu2.0', images: ['https://example.com/a.png'] }, 20, '360p'], // 4 s default
    ['img2video', { model: 'vidu2.0', images: ['https://example.com/a.png'], duration: 8 }, 100, '720p'],
    ['img2video', { model: 'vidu2.0', images: ['https://example.com/a.png'], resolution: '1080p' }, 100, '1080p'],
    ['img2video', { model: 'viduq2-pro', images: ['https://example.com/a.png'] }, 55, '720p'], // 15 + 10 × 4
    ['img2video', { model: 'viduq2-pro', images: ['https://example.com/a.png'], resolution: '1080p', audio: true }, 130, '1080p'], // 115 + 15
    ['img2video', { model: 'viduq2-turbo', images: ['https://example.com/a.png'], duration: 10 }, 90, '720p'],
    ['img2video', { model: 'viduq2-pro-fast', images: ['https://example.com/a.png'], resolution: '1080p' }, 32, '1080p'],
  ];
  for (const [action, body, credits, resolution] of cases) {
    const s = await call(`/ent/v2/${action}`, { headers: token, body: { prompt: 'a heron [sim polls=0]', ...body } });
    assert.equal(s.status, 200, JSON.stringify(s.body));
    assert.deepEqual([s.body.credits, s.body.resolution], [credits, resolution], JSON.stringify(body));
    const q = await call(`/ent/v2/tasks/${s.body.task_id}/creations`, { headers: token });
    assert.equal(q.body.state, 'success');
    assert.equal(q.body.credits, credits);
  }
});

/** Submits an Ark task (finished on the first query) and returns the query answer. */
async function arkTask(body: Record<string, unknown>, content: unknown[] = []): Promise<any> {
  const s = await call('/api/v3/contents/generations/tasks', { headers: bearer, body: { content: [{ type: 'text', text: 'a heron [sim polls=0]' }, ...content], ...body } });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  const q = await call(`/api/v3/contents/generations/tasks/${s.body.id}`, { headers: bearer });
  assert.equal(q.body.status, 'succeeded');
  assert.equal(q.body.usage.completion_tokens, q.body.usage.total_tokens);
  return q.body;
}

test('Ark Seedance: tokens = width × height × frames / 1024, real frame sizes by resolution and ratio, 24·s + 1 frames on 2.x', async () => {
  const v2 = 'doubao-seedance-2-0-260128';
  const tokens = (w: number, h: number, frames: number) => Math.round((w * h * frames) / 1024);
  const cases: [Record<string, unknown>, number, string][] = [
    [{ model: v2, duration: 4 }, 87300, '720p'], // 1280×720 × 97 / 1024: the figure Ark reported
    [{ model: v2 }, 108900, '720p'], // 5 s default: 121 frames
    [{ model: v2, resolution: '1080p' }, 245025, '1080p'],
    [{ model: v2, resolution: '480p', ratio: '21:9', duration: 10 }, tokens(992, 432, 241), '480p'],
    [{ model: v2, ratio: '4:3' }, tokens(1112, 834, 121), '720p'],
    [{ model: v2, ratio: '9:16' }, tokens(720, 1280, 121), '720p'],
    [{ model: 'doubao-seedance-2-0-fast-260128', ratio: '1:1', duration: 6 }, tokens(960, 960, 145), '720p'],
    [{ model: 'doubao-seedance-1-0-pro-250528' }, 244800, '1080p'], // default 1080p, 1920×1088 × 120 / 1024
    [{ model: 'doubao-seedance-1-0-pro-fast-251015', resolution: '720p', ratio: '3:4' }, tokens(832, 1120, 120), '720p'],
    [{ model: 'doubao-seedance-1-0-pro-250528', resolution: '480p', ratio: '21:9' }, tokens(960, 416, 120), '480p'],
    [{ model: 'doubao-seedance-1-5-pro-251215' }, 108000, '720p'], // 1.x: 120 frames, the 1.5 sizes
  ];
  for (const [body, expected, resolution] of cases) {
    const task = await arkTask(body);
    assert.equal(task.usage.completion_tokens, expected, JSON.stringify(body));
    assert.equal(task.resolution, resolution);
  }
});

test('Ark Seedance: a reference video adds its seconds (the item\'s duration, else 5 s)', async () => {
  const v2 = 'doubao-seedance-2-0-260128';
  const video = (extra: Record<string, unknown> = {}) => ({ type: 'video_url', video_url: { url: 'https://example.com/ref.mp4' }, role: 'reference_video', ...extra });
  assert.equal((await arkTask({ model: v2, duration: 4 }, [video({ duration: 4 })])).usage.completion_tokens, 173700); // 193 frames, as Ark reported
  assert.equal((await arkTask({ model: v2, duration: 4 }, [video()])).usage.completion_tokens, 900 * (97 + 120));
  assert.equal((await arkTask({ model: v2, duration: 4 }, [video({ duration: 3 }), video({ duration: 2 })])).usage.completion_tokens, 900 * (97 + 120));
});

test('DashScope Wan: usage follows the request (duration, size or resolution tier, one video)', async () => {
  const submit = async (model: string, input: Record<string, unknown>, parameters: Record<string, unknown>) => {
    const s = await call('/api/v1/services/aigc/video-generation/video-synthesis', {
      headers: { ...bearer, 'x-dashscope-async': 'enable' }, body: { model, input: { prompt: 'a heron [sim polls=0]', ...input }, parameters },
    });
    assert.equal(s.status, 200, JSON.stringify(s.body));
    const q = await call(`/api/v1/tasks/${s.body.output.task_id}`, { headers: bearer });
    assert.equal(q.body.output.task_status, 'SUCCEEDED');
    return q.body.usage;
  };
  assert.deepEqual(await submit('wan2.5-t2v-preview', {}, { size: '832*480', duration: 10 }), { video_duration: 10, video_ratio: '832*480', video_count: 1 });
  assert.deepEqual(await submit('wan2.5-t2v-preview', {}, {}), { video_duration: 5, video_ratio: '1920*1080', video_count: 1 });
  assert.deepEqual(await submit('wanx2.1-t2v-turbo', {}, {}), { video_duration: 5, video_ratio: '1280*720', video_count: 1 });
  assert.deepEqual(await submit('wan2.5-i2v-preview', { img_url: 'https://example.com/a.png' }, { resolution: '480P', duration: 10 }), { video_duration: 10, video_ratio: '832*480', video_count: 1 });
  assert.deepEqual(await submit('wan2.5-i2v-preview', { img_url: 'https://example.com/a.png' }, {}), { video_duration: 5, video_ratio: '1920*1080', video_count: 1 });
  assert.deepEqual(await submit('wan2.2-i2v-flash', { img_url: 'https://example.com/a.png' }, {}), { video_duration: 5, video_ratio: '1280*720', video_count: 1 });
});

test('MiniMax reports nothing billed, as the real API: no usage, credits or cost fields on the query or the file', async () => {
  const s = await call('/v1/video_generation', { headers: bearer, body: { model: 'MiniMax-Hailuo-2.3', prompt: 'a heron [sim polls=0]' } });
  const q = await call(`/v1/query/video_generation?task_id=${s.body.task_id}`, { headers: bearer });
  assert.equal(q.body.status, 'Success');
  assert.deepEqual(Object.keys(q.body).sort(), ['base_resp', 'file_id', 'status', 'task_id', 'video_height', 'video_width']);
});
