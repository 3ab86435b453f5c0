// Simulator vendor surfaces: Anthropic Messages (JSON, SSE, tools, stops, auth, count_tokens), OpenAI embeddings, Sora remix/list/delete.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Simulator, startSimulator } from '../simulator/server.js';

const KEY = 'sim-key-vendors-0123456789';
let sim: Simulator;

before(async () => {
  sim = await startSimulator({ keys: [KEY] });
});

after(async () => {
  await sim.close();
});

beforeEach(() => {
  sim.control.setEchoCredential(false);
  sim.control.clearFaults();
  sim.control.clearVideo();
  sim.control.resetStats();
});

interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

async function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Reply> {
  const res = await fetch(`${sim.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await readAll(res);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** The bytes that arrived, even when the server destroys the socket mid-stream. */
async function readAll(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // cut_after: the socket was destroyed; keep what came before
  }
  return text;
}

const anthropic = (extra: Record<string, string> = {}) => ({ 'x-api-key': KEY, 'anthropic-version': '2023-06-01', ...extra });
const bearer = { authorization: `Bearer ${KEY}` };
const user = (content: unknown) => ({ role: 'user', content });
const ask = (text: string, extra: Record<string, unknown> = {}) => ({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [user(text)], ...extra });
const WEATHER = { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object', properties: { location: { type: 'string' } } } };

/** `event:` + `data:` pairs of an SSE body, in order. */
function sse(text: string): { event: string; data: any }[] {
  return text.split('\n\n').filter((b) => b.trim() !== '').map((block) => {
    const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
    const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
    return { event, data: JSON.parse(data) };
  });
}

// ---------------- Anthropic Messages ----------------

test('anthropic non-stream: message shape, usage counting, request-id header', async () => {
  const r = await call('/v1/messages', {
    headers: anthropic(),
    body: {
      model: 'claude-sonnet-4-5', max_tokens: 1024, system: 'be brief please',
      messages: [
        user([{ type: 'text', text: 'what is this' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }]),
        { role: 'assistant', content: 'a picture' },
        user('and this one [sim chunks=3]'),
      ],
      temperature: 0.5, metadata: { user_id: 'u1' },
    },
  });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('request-id') ?? '', /^req_011C\w{20}$/);
  assert.ok(r.headers.get('x-request-id'));
  assert.match(r.body.id, /^msg_01\w{22}$/);
  // 3 (system) + 3 words + 1 image + 2 + 5 (directive words included) = 14
  assert.deepEqual({ ...r.body, id: 'x' }, {
    id: 'x', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'tok1 tok2 tok3 ' }], stop_reason: 'end_turn', stop_sequence: null,
    usage: {
      input_tokens: 14, cache_creation_input_tokens: 0, cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, output_tokens: 3, service_tier: 'standard',
    },
  });
});

test('anthropic stream: Anthropic event names and order, one word per text_delta, stats', async () => {
  const r = await call('/v1/messages', { headers: anthropic(), body: ask('hi there [sim chunks=3]', { stream: true }) });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
  assert.ok(r.headers.get('request-id'));
  const events = sse(r.text);
  assert.deepEqual(events.map((e) => e.event), [
    'message_start', 'content_block_start', 'ping',
    'content_block_delta', 'content_block_delta', 'content_block_delta',
    'content_block_stop', 'message_delta', 'message_stop',
  ]);
  for (const e of events) assert.equal(e.data.type, e.event);
  const start = events[0].data.message;
  assert.equal(start.role, 'assistant');
  assert.deepEqual(start.content, []);
  assert.equal(start.stop_reason, null);
  assert.equal(start.usage.input_tokens, 4);
  assert.equal(start.usage.output_tokens, 1);
  assert.deepEqual(events[1].data, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  assert.deepEqual(events.slice(3, 6).map((e) => e.data.delta), ['tok1 ', 'tok2 ', 'tok3 '].map((text) => ({ type: 'text_delta', text })));
  assert.deepEqual(events[6].data, { type: 'content_block_stop', index: 0 });
  // message_delta's usage is cumulative, input side included, as Anthropic's API sends it today.
  assert.deepEqual(events[7].data, {
    type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { input_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 3 },
  });
  assert.ok(r.text.split('\n\n').slice(0, -1).every((b) => /^event: \w+\ndata: \{.*\}$/.test(b)));
  const stats = sim.control.stats();
  assert.equal(stats.streams_started, 1);
  assert.equal(stats.streams_completed, 1);
});

test('anthropic tool use: tool_use block non-stream, input_json_delta fragments when streaming', async () => {
  const body = ask('weather? [sim tool_call=get_weather]', { tools: [WEATHER] });
  const r = await call('/v1/messages', { headers: anthropic(), body });
  assert.equal(r.status, 200);
  assert.equal(r.body.stop_reason, 'tool_use');
  assert.equal(r.body.usage.output_tokens, 5);
  assert.equal(r.body.content.length, 1);
  const block = r.body.content[0];
  assert.match(block.id, /^toolu_01\w{22}$/);
  assert.deepEqual({ ...block, id: 'x' }, { type: 'tool_use', id: 'x', name: 'get_weather', input: { location: 'Paris' } });

  const s = await call('/v1/messages', { headers: anthropic(), body: { ...body, stream: true } });
  const events = sse(s.text);
  assert.deepEqual(events[1].data.content_block.input, {});
  assert.equal(events[1].data.content_block.type, 'tool_use');
  assert.equal(events[1].data.content_block.name, 'get_weather');
  const deltas = events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta);
  assert.equal(deltas.length, 5);
  assert.ok(deltas.every((d) => d.type === 'input_json_delta'));
  assert.deepEqual(JSON.parse(deltas.map((d) => d.partial_json).join('')), { location: 'Paris' });
  assert.deepEqual(events.at(-2)!.data.delta, { stop_reason: 'tool_use', stop_sequence: null });
  assert.equal(events.at(-2)!.data.usage.output_tokens, 5);

  // No tools, or tool_choice none: plain text.
  const none = await call('/v1/messages', { headers: anthropic(), body: { ...body, tool_choice: { type: 'none' } } });
  assert.equal(none.body.stop_reason, 'end_turn');
  const forced = await call('/v1/messages', { headers: anthropic(), body: ask('hi', { tools: [WEATHER], tool_choice: { type: 'tool', name: 'get_weather' } }) });
  assert.equal(forced.body.content[0].name, 'get_weather');
});

test('anthropic stops: max_tokens cuts the reply, a stop sequence ends it before the sequence', async () => {
  const capped = await call('/v1/messages', { headers: anthropic(), body: ask('go', { max_tokens: 3 }) });
  assert.equal(capped.body.content[0].text, 'tok1 tok2 tok3 ');
  assert.equal(capped.body.stop_reason, 'max_tokens');
  assert.equal(capped.body.usage.output_tokens, 3);

  const stopped = await call('/v1/messages', { headers: anthropic(), body: ask('go', { stop_sequences: ['never', 'tok4'] }) });
  assert.equal(stopped.body.content[0].text, 'tok1 tok2 tok3 ');
  assert.equal(stopped.body.stop_reason, 'stop_sequence');
  assert.equal(stopped.body.stop_sequence, 'tok4');

  const streamed = sse((await call('/v1/messages', { headers: anthropic(), body: ask('go', { stop_sequences: ['2 tok'], stream: true }) })).text);
  const text = streamed.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text).join('');
  assert.equal(text, 'tok1 tok');
  assert.deepEqual(streamed.at(-2)!.data.delta, { stop_reason: 'stop_sequence', stop_sequence: '2 tok' });

  // max_tokens comes first when it is reached before the sequence.
  const first = await call('/v1/messages', { headers: anthropic(), body: ask('go', { max_tokens: 2, stop_sequences: ['tok4'] }) });
  assert.equal(first.body.stop_reason, 'max_tokens');
});

test('anthropic auth and version errors use the Anthropic error body', async () => {
  const wrong = await call('/v1/messages', { headers: anthropic({ 'x-api-key': 'sk-ant-wrong' }), body: ask('hi') });
  assert.equal(wrong.status, 401);
  assert.deepEqual(wrong.body, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' }, request_id: wrong.headers.get('request-id') });
  const missing = await call('/v1/messages', { headers: { 'anthropic-version': '2023-06-01' }, body: ask('hi') });
  assert.equal(missing.status, 401);
  assert.equal(missing.body.error.type, 'authentication_error');
  const bearerOnly = await call('/v1/messages', { headers: { ...bearer, 'anthropic-version': '2023-06-01' }, body: ask('hi') });
  assert.equal(bearerOnly.status, 401);

  const noVersion = await call('/v1/messages', { headers: { 'x-api-key': KEY }, body: ask('hi') });
  assert.equal(noVersion.status, 400);
  assert.deepEqual(noVersion.body.error, { type: 'invalid_request_error', message: 'anthropic-version: header is required' });
  const badVersion = await call('/v1/messages', { headers: anthropic({ 'anthropic-version': '2099-01-01' }), body: ask('hi') });
  assert.equal(badVersion.status, 400);
  assert.match(badVersion.body.error.message, /anthropic-version/);
});

test('anthropic request validation: max_tokens, messages, model, tool pairing', async () => {
  const cases: [unknown, number, RegExp][] = [
    [{ model: 'm', messages: [user('hi')] }, 400, /^max_tokens: Field required$/],
    [{ model: 'm', max_tokens: 0, messages: [user('hi')] }, 400, /^max_tokens: /],
    [{ model: 'm', max_tokens: 1.5, messages: [user('hi')] }, 400, /^max_tokens: /],
    [{ max_tokens: 5, messages: [user('hi')] }, 400, /^model: Field required$/],
    [{ model: 'm', max_tokens: 5, messages: [] }, 400, /^messages: /],
    [{ model: 'm', max_tokens: 5, messages: [{ role: 'system', content: 'x' }] }, 400, /^messages\.0\.role: /],
    [{ model: 'm', max_tokens: 5, messages: [user([{ type: 'video', url: 'x' }])] }, 400, /Input tag 'video'/],
    [{ model: 'm', max_tokens: 5, messages: [user([{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'x' } }])] }, 400, /media_type/],
    [{ model: 'm', max_tokens: 5, messages: [user([{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'ok' }])] }, 400, /unexpected `tool_use_id`/],
    [{ model: 'missing-claude', max_tokens: 5, messages: [user('hi')] }, 404, /^model: missing-claude$/],
  ];
  for (const [body, status, message] of cases) {
    const r = await call('/v1/messages', { headers: anthropic(), body });
    assert.equal(r.status, status, JSON.stringify(body));
    assert.equal(r.body.type, 'error');
    assert.equal(r.body.error.type, status === 404 ? 'not_found_error' : 'invalid_request_error');
    assert.match(r.body.error.message, message);
  }
  const bad = await call('/v1/messages', { headers: anthropic(), body: '{"model":' });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /not valid JSON/);

  // A full tool round trip is accepted.
  const ok = await call('/v1/messages', {
    headers: anthropic(),
    body: {
      model: 'm', max_tokens: 5, tools: [WEATHER],
      messages: [
        user('weather?'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'Paris' } }] },
        user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }]),
      ],
    },
  });
  assert.equal(ok.status, 200, ok.text);
});

test('anthropic count_tokens: same counting, no max_tokens needed', async () => {
  const r = await call('/v1/messages/count_tokens', {
    headers: anthropic(),
    body: { model: 'claude-sonnet-4-5', system: [{ type: 'text', text: 'one two' }], messages: [user([{ type: 'text', text: 'three four five' }, { type: 'image', source: { type: 'url', url: 'https://x/y.png' } }])] },
  });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { input_tokens: 6 });
  assert.ok(r.headers.get('request-id'));
  assert.equal((await call('/v1/messages/count_tokens', { headers: anthropic({ 'anthropic-version': '' }), body: { model: 'm', messages: [user('x')] } })).status, 400);
});

test('anthropic directives: status errors, error_after, cut_after; faults get Anthropic bodies', async () => {
  const overloaded = await call('/v1/messages', { headers: anthropic(), body: ask('hi [sim status=529]') });
  assert.equal(overloaded.status, 529);
  assert.deepEqual(overloaded.body.error, { type: 'overloaded_error', message: 'Overloaded' });
  const limited = await call('/v1/messages', { headers: anthropic(), body: ask('hi [sim status=429]', { stream: true }) });
  assert.equal(limited.status, 429);
  assert.equal(limited.body.error.type, 'rate_limit_error');
  assert.equal(limited.headers.get('retry-after'), '1');
  for (const [status, type] of [[400, 'invalid_request_error'], [403, 'permission_error'], [404, 'not_found_error'], [413, 'request_too_large'], [500, 'api_error']] as const) {
    assert.equal((await call('/v1/messages', { headers: anthropic(), body: ask(`hi [sim status=${status}]`) })).body.error.type, type);
  }

  const errored = sse((await call('/v1/messages', { headers: anthropic(), body: ask('hi [sim error_after=2]', { stream: true }) })).text);
  assert.deepEqual(errored.map((e) => e.event), ['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta', 'error']);
  assert.deepEqual(errored.at(-1)!.data, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });

  const cut = sse((await call('/v1/messages', { headers: anthropic(), body: ask('hi [sim cut_after=1]', { stream: true }) })).text);
  assert.deepEqual(cut.map((e) => e.event), ['message_start', 'content_block_start', 'ping', 'content_block_delta']);
  const stats = sim.control.stats();
  assert.equal(stats.streams_started, 2);
  assert.equal(stats.streams_completed, 0);

  sim.control.addFault({ key: KEY, path: '/v1/messages', status: 529, times: 1 });
  const fault = await call('/v1/messages', { headers: anthropic(), body: ask('hi') });
  assert.equal(fault.status, 529);
  assert.equal(fault.body.error.type, 'overloaded_error');
  assert.equal(fault.body.request_id, fault.headers.get('request-id'));

  sim.control.setEchoCredential(true);
  const echoed = await call('/v1/messages', { headers: anthropic({ 'x-api-key': 'sk-ant-leak-me-123' }), body: ask('hi') });
  assert.ok(echoed.body.error.message.endsWith(' sk-ant-leak-me-123'));
});

// ---------------- OpenAI embeddings ----------------

test('embeddings: deterministic unit vectors, default sizes, dimensions, usage', async () => {
  const one = await call('/v1/embeddings', { headers: bearer, body: { model: 'text-embedding-3-small', input: ['hello world', 'bye'] } });
  assert.equal(one.status, 200);
  assert.equal(one.body.object, 'list');
  assert.equal(one.body.model, 'text-embedding-3-small');
  assert.deepEqual(one.body.usage, { prompt_tokens: 3, total_tokens: 3 });
  assert.deepEqual(one.body.data.map((d: any) => [d.object, d.index, d.embedding.length]), [['embedding', 0, 16], ['embedding', 1, 16]]);
  const norm = Math.hypot(...one.body.data[0].embedding);
  assert.ok(Math.abs(norm - 1) < 1e-6, String(norm));
  assert.notDeepEqual(one.body.data[0].embedding, one.body.data[1].embedding);

  const again = await call('/v1/embeddings', { headers: bearer, body: { model: 'text-embedding-3-small', input: 'hello world' } });
  assert.deepEqual(again.body.data[0].embedding, one.body.data[0].embedding);
  const other = await call('/v1/embeddings', { headers: bearer, body: { model: 'my-embedder', input: 'hello world' } });
  assert.equal(other.body.data[0].embedding.length, 8);
  const sized = await call('/v1/embeddings', { headers: bearer, body: { model: 'text-embedding-3-large', input: 'hello world', dimensions: 40 } });
  assert.equal(sized.body.data[0].embedding.length, 40);
  const tokens = await call('/v1/embeddings', { headers: bearer, body: { model: 'text-embedding-3-small', input: [[1, 2, 3], [4]] } });
  assert.deepEqual(tokens.body.usage, { prompt_tokens: 4, total_tokens: 4 });
});

test('embeddings: base64 is the float32 little-endian bytes of the float answer', async () => {
  const body = { model: 'text-embedding-3-small', input: 'same text' };
  const floats = await call('/v1/embeddings', { headers: bearer, body });
  const b64 = await call('/v1/embeddings', { headers: bearer, body: { ...body, encoding_format: 'base64' } });
  const b64Again = await call('/v1/embeddings', { headers: bearer, body: { ...body, encoding_format: 'base64' } });
  assert.equal(typeof b64.body.data[0].embedding, 'string');
  assert.equal(b64.body.data[0].embedding, b64Again.body.data[0].embedding);
  const buf = Buffer.from(b64.body.data[0].embedding, 'base64');
  assert.equal(buf.length, 16 * 4);
  const decoded = Array.from({ length: 16 }, (_, i) => buf.readFloatLE(i * 4));
  assert.deepEqual(decoded, floats.body.data[0].embedding);
});

test('embeddings: OpenAI-shaped errors', async () => {
  const missing = await call('/v1/embeddings', { headers: bearer, body: { model: 'text-embedding-3-small' } });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.param, 'input');
  assert.equal(missing.body.error.type, 'invalid_request_error');
  const empty = await call('/v1/embeddings', { headers: bearer, body: { model: 'text-embedding-3-small', input: '' } });
  assert.equal(empty.status, 400);
  assert.match(empty.body.error.message, /'\$\.input' is invalid/);
  const unknown = await call('/v1/embeddings', { headers: bearer, body: { model: 'missing-embedder', input: 'x' } });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'model_not_found');
  const ada = await call('/v1/embeddings', { headers: bearer, body: { model: 'text-embedding-ada-002', input: 'x', dimensions: 4 } });
  assert.equal(ada.status, 400);
  const format = await call('/v1/embeddings', { headers: bearer, body: { model: 'm', input: 'x', encoding_format: 'int8' } });
  assert.equal(format.body.error.param, 'encoding_format');
  const auth = await call('/v1/embeddings', { headers: { authorization: 'Bearer nope' }, body: { model: 'm', input: 'x' } });
  assert.equal(auth.status, 401);
  assert.equal(auth.body.error.code, 'invalid_api_key');
  const directed = await call('/v1/embeddings', { headers: bearer, body: { model: 'm', input: 'x [sim status=429]' } });
  assert.equal(directed.status, 429);
  assert.equal(directed.headers.get('retry-after'), '1');
});

// ---------------- OpenAI Videos: remix, list, delete ----------------

async function createVideo(prompt: string): Promise<any> {
  const r = await call('/v1/videos', { headers: bearer, body: { model: 'sora-2', prompt, seconds: '8', size: '1280x720' } });
  assert.equal(r.status, 200, r.text);
  return r.body;
}

async function pollUntilDone(id: string): Promise<any> {
  for (let i = 0; i < 10; i++) {
    const r = await call(`/v1/videos/${id}`, { headers: bearer });
    if (r.body.status === 'completed' || r.body.status === 'failed') return r.body;
  }
  throw new Error(`video ${id} never finished`);
}

test('sora remix: needs a completed source, creates a queued task that progresses like any other', async () => {
  const source = await createVideo('a cat on a piano [sim polls=1]');
  assert.equal(source.remixed_from_video_id, null);
  assert.equal(source.prompt, 'a cat on a piano [sim polls=1]');

  const early = await call(`/v1/videos/${source.id}/remix`, { headers: bearer, body: { prompt: 'now a dog' } });
  assert.equal(early.status, 400);
  assert.equal(early.body.error.type, 'invalid_request_error');

  assert.equal((await pollUntilDone(source.id)).status, 'completed');
  const noPrompt = await call(`/v1/videos/${source.id}/remix`, { headers: bearer, body: {} });
  assert.equal(noPrompt.status, 400);
  assert.equal(noPrompt.body.error.param, 'prompt');

  const remix = await call(`/v1/videos/${source.id}/remix`, { headers: bearer, body: { prompt: 'now a dog [sim polls=1]' } });
  assert.equal(remix.status, 200, remix.text);
  assert.notEqual(remix.body.id, source.id);
  assert.equal(remix.body.object, 'video');
  assert.equal(remix.body.status, 'queued');
  assert.equal(remix.body.progress, 0);
  assert.equal(remix.body.remixed_from_video_id, source.id);
  assert.equal(remix.body.prompt, 'now a dog [sim polls=1]');
  assert.deepEqual([remix.body.model, remix.body.seconds, remix.body.size], ['sora-2', '8', '1280x720']);
  const done = await pollUntilDone(remix.body.id);
  assert.equal(done.status, 'completed');
  assert.equal(done.remixed_from_video_id, source.id);
  const content = await fetch(`${sim.url}/v1/videos/${remix.body.id}/content`, { headers: bearer });
  assert.equal(content.status, 200);
  await content.arrayBuffer();

  const unknown = await call('/v1/videos/video_nope/remix', { headers: bearer, body: { prompt: 'x' } });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'video_not_found');
  assert.equal((await call(`/v1/videos/${source.id}/remix`, { headers: { authorization: 'Bearer nope' }, body: { prompt: 'x' } })).status, 401);
});

test('sora list (order, limit, after) and delete', async () => {
  const ids: string[] = [];
  for (const p of ['one', 'two', 'three']) ids.push((await createVideo(p)).id);

  const page1 = await call('/v1/videos?limit=2', { headers: bearer });
  assert.equal(page1.status, 200);
  assert.equal(page1.body.object, 'list');
  assert.deepEqual(page1.body.data.map((v: any) => v.id), [ids[2], ids[1]]);
  assert.equal(page1.body.first_id, ids[2]);
  assert.equal(page1.body.last_id, ids[1]);
  assert.equal(page1.body.has_more, true);
  const page2 = await call(`/v1/videos?limit=2&after=${page1.body.last_id}`, { headers: bearer });
  assert.deepEqual(page2.body.data.map((v: any) => v.id), [ids[0]]);
  assert.equal(page2.body.has_more, false);
  const asc = await call('/v1/videos?order=asc', { headers: bearer });
  assert.deepEqual(asc.body.data.map((v: any) => v.id), ids);
  assert.equal((await call('/v1/videos?limit=101', { headers: bearer })).status, 400);
  assert.equal((await call('/v1/videos?order=sideways', { headers: bearer })).status, 400);

  const del = await call(`/v1/videos/${ids[1]}`, { method: 'DELETE', headers: bearer });
  assert.equal(del.status, 200);
  assert.deepEqual(del.body, { id: ids[1], object: 'video.deleted', deleted: true });
  assert.equal((await call(`/v1/videos/${ids[1]}`, { headers: bearer })).status, 404);
  assert.equal((await call(`/v1/videos/${ids[1]}`, { method: 'DELETE', headers: bearer })).status, 404);
  const after = await call('/v1/videos', { headers: bearer });
  assert.deepEqual(after.body.data.map((v: any) => v.id), [ids[2], ids[0]]);
  // A deleted id still works as a cursor.
  const fromDeleted = await call(`/v1/videos?after=${ids[1]}`, { headers: bearer });
  assert.deepEqual(fromDeleted.body.data.map((v: any) => v.id), [ids[0]]);
});
