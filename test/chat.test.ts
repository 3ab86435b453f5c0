// Chat completions and the model list through the official openai client against the shipped config.
import { test as nodeTest, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startStack, fixture, type Stack } from './helpers/stack.js';
import { client, sseData, post, assertShapeA } from './helpers/api.js';

// A stuck stream fails its test (and the after hook still closes the stack) instead of hanging the run.
const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 20_000 }, fn);

let stack: Stack;
let groups: Stack; // the `gateway` fixture: groups that see different models, a fixed model list
let key: string;
let ai: OpenAI;

before(async () => {
  stack = await startStack({ env: { OPENAI_API_KEY: '' } });
  groups = await startStack({ configDir: fixture('gateway') });
  ({ key } = await stack.token());
  ai = client(stack, key);
});
after(async () => { await stack.close(); await groups.close(); });
beforeEach(() => stack.sim.control.clear());

const user = (content: string) => [{ role: 'user' as const, content }];
const lastUpstream = () => stack.sim.control.requests().at(-1)!;

test('non-stream: a chat.completion with the simulator text and exact usage', async () => {
  const r = await ai.chat.completions.create({ model: 'gpt-4o-mini', messages: user('Say hello [sim chunks=3]') });
  assert.equal(r.object, 'chat.completion');
  assert.equal(r.model, 'gpt-4o-mini');
  assert.equal(r.choices.length, 1);
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.equal(r.choices[0].message.content, 'tok1 tok2 tok3 ');
  assert.equal(r.choices[0].finish_reason, 'stop');
  assert.equal(r.usage?.prompt_tokens, 4);
  assert.equal(r.usage?.completion_tokens, 3);
  assert.equal(r.usage?.total_tokens, 7);
});

test('stream: chunks concatenate to the text, the last has finish_reason, the raw stream ends with [DONE]', async () => {
  const s = await ai.chat.completions.create({ model: 'gpt-4o-mini', messages: user('Say hello'), stream: true });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const c of s) chunks.push(c);
  assert.equal(chunks.length, 7); // role, 5 words, finish
  assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-4o-mini'));
  assert.equal(chunks[0].choices[0].delta.role, 'assistant');
  assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'tok1 tok2 tok3 tok4 tok5 ');
  assert.deepEqual(chunks.at(-1)!.choices[0].delta, {});
  assert.equal(chunks.at(-1)!.choices[0].finish_reason, 'stop');
  const raw = await fetch(`${stack.url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: user('hi [sim chunks=2]'), stream: true }),
  });
  assert.equal(raw.headers.get('content-type'), 'text/event-stream');
  const events = sseData(await raw.text());
  assert.equal(events.length, 5);
  assert.equal(events.at(-1), '[DONE]');
});

test('stream: chunks reach the client as the simulator sends them, not at the end', async () => {
  const s = await ai.chat.completions.create({ model: 'gpt-4o-mini', messages: user('pace [sim chunks=5 interval_ms=80]'), stream: true });
  const at: number[] = [];
  for await (const c of s) if (c.choices[0]?.delta.content) at.push(performance.now());
  assert.equal(at.length, 5);
  assert.ok(at[4] - at[0] >= 250, `first→last content chunk spread ${Math.round(at[4] - at[0])} ms`);
});

test('stream with include_usage: the last chunk has an empty delta, the finish_reason and the usage together (contract rule 4)', async () => {
  const s = await ai.chat.completions.create({
    model: 'gpt-4o-mini', messages: user('count [sim chunks=2]'), stream: true, stream_options: { include_usage: true },
  });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const c of s) chunks.push(c);
  const last = chunks.at(-1)!;
  assert.equal(last.choices.length, 1);
  assert.deepEqual(last.choices[0].delta, {});
  assert.equal(last.choices[0].finish_reason, 'stop');
  assert.equal(last.usage?.prompt_tokens, 3);
  assert.equal(last.usage?.completion_tokens, 2);
  assert.equal(last.usage?.total_tokens, 5);
  assert.equal(chunks.filter((c) => c.usage).length, 1);
});

test('stream without include_usage: no usage reaches the client, but the upstream was asked for it', async () => {
  const s = await ai.chat.completions.create({ model: 'gpt-4o-mini', messages: user('count [sim chunks=2]'), stream: true });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const c of s) chunks.push(c);
  assert.equal(chunks.length, 4); // role, 2 words, finish: the usage-only chunk is dropped
  for (const c of chunks) {
    assert.equal(c.usage ?? null, null);
    assert.equal(c.choices.length, 1);
  }
  assert.equal((lastUpstream().body as any).stream_options?.include_usage, true);
});

const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
};

test('tools and tool_choice pass through; a streamed tool call is assembled', async () => {
  const tool_choice = { type: 'function' as const, function: { name: 'get_weather' } };
  const s = await ai.chat.completions.create({
    model: 'gpt-4o-mini', messages: user('Weather in Paris? [sim tool_call=get_weather]'), tools: [weather], tool_choice, stream: true,
  });
  let id = '', name = '', args = '', finish: string | null = null;
  for await (const c of s) {
    const d = c.choices[0];
    for (const tc of d?.delta.tool_calls ?? []) {
      assert.equal(tc.index, 0);
      id ||= tc.id ?? '';
      name += tc.function?.name ?? '';
      args += tc.function?.arguments ?? '';
    }
    finish = d?.finish_reason ?? finish;
  }
  assert.match(id, /^call_/);
  assert.equal(name, 'get_weather');
  assert.deepEqual(JSON.parse(args), { location: 'Paris' });
  assert.equal(finish, 'tool_calls');
  const up = lastUpstream().body as any;
  assert.deepEqual(up.tools, [weather]);
  assert.deepEqual(up.tool_choice, tool_choice);
});

test('multimodal parts, response_format, reasoning_effort, max_completion_tokens reach the upstream unchanged', async () => {
  const params = {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe these [sim chunks=2]' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
          { type: 'input_audio', input_audio: { data: 'UklGRiQAAABXQVZF', format: 'wav' } },
          { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0xLjQ=' } },
          { type: 'video_url', video_url: { url: 'https://example.com/clip.mp4' } },
        ],
      },
    ],
    response_format: { type: 'json_schema', json_schema: { name: 'desc', schema: { type: 'object', properties: { text: { type: 'string' } } } } },
    reasoning_effort: 'low',
    max_completion_tokens: 50,
  };
  const r = await ai.chat.completions.create(params as any);
  assert.equal(r.usage?.prompt_tokens, 2 + 4 + 4); // system words, text words, one per non-text part
  assert.equal(r.choices[0].message.content, 'tok1 tok2 ');
  assert.deepEqual(lastUpstream().body, params);
  // Streaming re-encodes the body to ask for usage; everything else is still the client's.
  const s = await ai.chat.completions.create({ ...params, stream: true } as any) as unknown as AsyncIterable<unknown>;
  for await (const _ of s) { /* drain */ }
  assert.deepEqual(lastUpstream().body, { ...params, stream: true, stream_options: { include_usage: true } });
});

test('the client key and headers never reach the upstream: it gets the channel key', async () => {
  const withHeader = client(stack, key).withOptions({ defaultHeaders: { 'x-client-secret': 'do-not-forward', cookie: 'session=abc' } });
  await withHeader.chat.completions.create({ model: 'gpt-4o-mini', messages: user('hi') });
  const h = lastUpstream().headers;
  assert.equal(h.authorization, 'Bearer sim-key');
  assert.equal(h['x-client-secret'], undefined);
  assert.equal(h.cookie, undefined);
  assert.ok(!JSON.stringify(h).includes(key));
});

test('/v1/models: the group models in OpenAI list shape, narrowed by a token allow-list', async () => {
  const t = await groups.token({ group: 'vip' });
  const page = await client(groups, t.key).models.list();
  assert.deepEqual(page.data.map((m) => m.id), ['gpt-4o', 'gpt-4o-mini', 'vip-large']);
  const raw = await (await fetch(`${groups.url}/v1/models`, { headers: { authorization: `Bearer ${t.key}` } })).json();
  // The fixture's chat route names no `endpoint_type`: its id names it.
  const chat = { supported_endpoint_types: ['chat_completions'] };
  assert.deepEqual(raw, {
    object: 'list',
    data: [
      { id: 'gpt-4o', object: 'model', created: 1_700_000_000, owned_by: 'openai', ...chat },
      { id: 'gpt-4o-mini', object: 'model', created: 1_700_000_000, owned_by: 'openai', ...chat },
      { id: 'vip-large', object: 'model', created: 1_700_000_000, owned_by: 'switchyard', ...chat },
    ],
  });
  const narrow = await groups.token({ group: 'vip', models: ['vip-large', 'gpt-4o', 'not-served'] });
  assert.deepEqual((await client(groups, narrow.key).models.list()).data.map((m) => m.id), ['gpt-4o', 'vip-large']);
});

test('/v1/models differs by group: only vip sees its vip-only model', async () => {
  const ids = async (group: string) => (await client(groups, (await groups.token({ group })).key).models.list()).data.map((m) => m.id);
  assert.deepEqual(await ids('default'), ['gpt-4o', 'gpt-4o-mini']);
  assert.deepEqual(await ids('limited'), ['gpt-4o', 'gpt-4o-mini']);
  assert.deepEqual(await ids('vip'), ['gpt-4o', 'gpt-4o-mini', 'vip-large']);
});

test('/v1/models on the shipped config includes the chat models, legacy-chat under its public name', async () => {
  const ids = (await ai.models.list()).data.map((m) => m.id);
  for (const m of ['gpt-4o', 'gpt-4o-mini', 'legacy-chat']) assert.ok(ids.includes(m), ids.join(','));
  assert.equal(ids.includes('sim-legacy-1'), false);
  assert.deepEqual(ids, [...ids].sort());
});

test('models.retrieve: the model object for a model the token may use; 404 model_not_found in Shape A otherwise', async () => {
  const vip = await groups.token({ group: 'vip' });
  assert.deepEqual(await client(groups, vip.key).models.retrieve('vip-large'), {
    id: 'vip-large', object: 'model', created: 1_700_000_000, owned_by: 'switchyard', supported_endpoint_types: ['chat_completions'],
  });
  const notFound = async (k: string, id: string) => {
    const r = await fetch(`${groups.url}/v1/models/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${k}` } });
    assertShapeA({ status: r.status, headers: r.headers, text: '', json: await r.json() }, 404, 'model_not_found', 'invalid_request_error');
    await assert.rejects(client(groups, k).models.retrieve(id), (e: unknown) => e instanceof OpenAI.NotFoundError && e.code === 'model_not_found');
  };
  await notFound((await groups.token({ group: 'default' })).key, 'vip-large'); // another group's model
  await notFound((await groups.token({ group: 'vip', models: ['gpt-4o'] })).key, 'vip-large'); // outside the allow-list
  await notFound(vip.key, 'no-such-model');
  await notFound(vip.key, 'x'.repeat(5000)); // echoed bounded
  // Shipped config: a name with `:` and `*` arrives percent-encoded; a hidden pricing model is not a model.
  assert.equal((await ai.models.retrieve('wan2.5-t2v-preview:1280*720')).owned_by, 'wan');
  assert.equal((await ai.models.retrieve('text-embedding-3-small')).id, 'text-embedding-3-small');
  await assert.rejects(ai.models.retrieve('vendor-assets'), (e: unknown) => e instanceof OpenAI.NotFoundError);
  const long = await fetch(`${stack.url}/v1/models/${'y'.repeat(5000)}`, { headers: { authorization: `Bearer ${key}` } });
  assert.ok((await long.text()).length < 400, 'the unknown id is cut short in the message');
});

test('legacy-chat (JSONata channel): max_completion_tokens becomes max_tokens, the model name maps both ways', async () => {
  const r = await ai.chat.completions.create({ model: 'legacy-chat', messages: user('hello [sim chunks=5]'), max_completion_tokens: 3 });
  assert.equal(r.model, 'legacy-chat');
  assert.equal(r.choices[0].message.content, 'tok1 tok2 tok3 ');
  assert.equal(r.choices[0].finish_reason, 'length');
  assert.deepEqual(lastUpstream().body, { model: 'sim-legacy-1', messages: user('hello [sim chunks=5]'), max_tokens: 3 });

  const s = await ai.chat.completions.create({ model: 'legacy-chat', messages: user('hello [sim chunks=5]'), max_completion_tokens: 3, stream: true });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const c of s) chunks.push(c);
  assert.equal(chunks.length, 5); // role, 3 words, finish; the usage chunk the transform asked for is dropped
  assert.ok(chunks.every((c) => c.model === 'legacy-chat'), JSON.stringify(chunks.map((c) => c.model)));
  assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'tok1 tok2 tok3 ');
  assert.equal(chunks.at(-1)!.choices[0].finish_reason, 'length');
  const up = lastUpstream().body as any;
  assert.equal(up.model, 'sim-legacy-1');
  assert.equal(up.max_tokens, 3);
  assert.equal('max_completion_tokens' in up, false);
  assert.deepEqual(up.stream_options, { include_usage: true });
});

test('legacy-chat stream with include_usage: usage arrives last, under the public model name', async () => {
  const s = await ai.chat.completions.create({
    model: 'legacy-chat', messages: user('hello [sim chunks=2]'), stream: true, stream_options: { include_usage: true },
  });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const c of s) chunks.push(c);
  const last = chunks.at(-1)!;
  assert.equal(last.model, 'legacy-chat');
  assert.equal(last.choices[0]?.finish_reason, 'stop', 'the usage comes with the finish chunk');
  assert.equal(last.usage?.prompt_tokens, 3);
  assert.equal(last.usage?.completion_tokens, 2);
});

test('legacy-chat stream: an upstream error event is relayed as on a unified channel, not replaced', async () => {
  for (const model of ['gpt-4o-mini', 'legacy-chat']) {
    const r = await post(`${stack.url}/v1/chat/completions`, { model, messages: user('boom [sim error_after=2]'), stream: true }, key);
    const events = sseData(r.text);
    assert.equal(events.length, 5, `${model}: ${events.join('\n')}`);
    assert.deepEqual(events.slice(1, 3).map((e) => JSON.parse(e).choices[0].delta.content), ['tok1 ', 'tok2 '], model);
    assert.equal(JSON.parse(events[3]).error?.message, 'upstream exploded', `${model}: ${events[3]}`);
    assert.equal(events[4], '[DONE]');
  }
});
