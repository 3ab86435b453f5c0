// POST /v1/responses (the openai_responses dialect) through the clients people run: the official openai client,
// the Vercel AI SDK's default provider and LangChain with useResponsesApi, against the shipped config's chat channels
// (compat-chat: a vendor that speaks only chat completions); OpenAI's own models take them natively (at the end).
import { test as nodeTest, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText, tool, jsonSchema, stepCountIs, type ModelMessage } from 'ai';
import { ChatOpenAI } from '@langchain/openai';
import { startStack, eventually, type Stack } from './helpers/stack.js';
import { client, post, assertShapeA, ledgerOf, expectedCharge, shippedPrice, logLineOf } from './helpers/api.js';

const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 20_000 }, fn);

let stack: Stack;
let key: string;
let ai: OpenAI;
const price = shippedPrice('compat-chat');
const weather = { type: 'function' as const, name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] }, strict: false };

before(async () => {
  stack = await startStack({ env: { OPENAI_API_KEY: '' } });
  ({ key } = await stack.token());
  ai = client(stack, key);
});
after(() => stack.close());
beforeEach(() => stack.sim.control.clear());

const upstream = () => stack.sim.control.requests().filter((r) => r.path === '/v1/chat/completions');
const lastUpstream = () => upstream().at(-1)!.body as any;

test('openai responses.create: the Response object, its text, usage and the unified request it became', async () => {
  const r = await ai.responses.create({ model: 'compat-chat', input: 'Say hello [sim chunks=3]', instructions: 'Be brief.', temperature: 0.5, max_output_tokens: 50 });
  assert.match(r.id, /^resp_[0-9a-f]{24}$/);
  assert.equal(r.object, 'response');
  assert.equal(r.status, 'completed');
  assert.equal(r.model, 'compat-chat');
  assert.equal(r.output_text, 'tok1 tok2 tok3 ');
  assert.equal(r.output.length, 1);
  assert.equal(r.output[0].type, 'message');
  assert.equal(r.instructions, 'Be brief.');
  assert.deepEqual(r.usage && { i: r.usage.input_tokens, o: r.usage.output_tokens, t: r.usage.total_tokens }, { i: 6, o: 3, t: 9 });
  assert.deepEqual(lastUpstream(), {
    model: 'compat-chat', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello [sim chunks=3]' }],
    max_completion_tokens: 50, temperature: 0.5,
  });
});

test('openai responses.create stream: every event in order with sequence numbers, deltas as they come, completed with usage', async () => {
  const s = await ai.responses.create({ model: 'compat-chat', input: 'Say hello [sim chunks=3 interval_ms=150]', stream: true });
  const events: { type: string; seq: number; at: number }[] = [];
  const t0 = Date.now();
  let completed: OpenAI.Responses.Response | undefined;
  for await (const e of s) {
    events.push({ type: e.type, seq: e.sequence_number, at: Date.now() - t0 });
    if (e.type === 'response.completed') completed = e.response;
  }
  assert.deepEqual(events.map((e) => e.type), [
    'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
    'response.output_text.delta', 'response.output_text.delta', 'response.output_text.delta',
    'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
  ]);
  assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i));
  const deltas = events.filter((e) => e.type === 'response.output_text.delta');
  assert.ok(deltas[2].at - deltas[0].at >= 200, `deltas arrive as they are made, not at once: ${deltas.map((d) => d.at)}`);
  assert.equal(completed?.output_text ?? (completed?.output[0] as any).content[0].text, 'tok1 tok2 tok3 ');
  assert.equal(completed?.usage?.output_tokens, 3);
  assert.deepEqual(lastUpstream().stream_options, { include_usage: true }, 'usage is asked of the vendor, to bill it');
});

test('openai responses.stream helper: finalResponse() matches what a later retrieve returns', async () => {
  const stream = ai.responses.stream({ model: 'compat-chat', input: 'Hi [sim chunks=2]' });
  const text: string[] = [];
  stream.on('response.output_text.delta', (e) => text.push(e.delta));
  const final = await stream.finalResponse();
  assert.deepEqual(text, ['tok1 ', 'tok2 ']);
  const kept = await ai.responses.retrieve(final.id);
  // The helper adds `parsed: null` to each text part; the rest is what was kept.
  const strip = (o: unknown) => JSON.parse(JSON.stringify(o, (k, v) => (k === 'parsed' ? undefined : v)));
  assert.deepEqual(strip(kept.output), strip(final.output));
  assert.equal(kept.status, 'completed');
});

test('function tools: a call (stream and not), then its output sent back continues the conversation', async () => {
  const r = await ai.responses.create({ model: 'compat-chat', input: 'Weather in Paris? [sim tool_call=get_weather]', tools: [weather], tool_choice: 'auto' });
  const call = r.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
  assert.ok(call, JSON.stringify(r.output));
  assert.equal(call.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.arguments), { location: 'Paris' });
  assert.match(call.call_id, /^call_/);
  assert.deepEqual(lastUpstream().tools, [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: weather.parameters, strict: false } }]);

  const next = await ai.responses.create({
    model: 'compat-chat', previous_response_id: r.id, tools: [weather],
    input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temp":21}' }],
  });
  assert.equal(next.previous_response_id, r.id);
  assert.deepEqual(lastUpstream().messages, [
    { role: 'user', content: 'Weather in Paris? [sim tool_call=get_weather]' },
    { role: 'assistant', content: null, tool_calls: [{ id: call.call_id, type: 'function', function: { name: 'get_weather', arguments: call.arguments } }] },
    { role: 'tool', tool_call_id: call.call_id, content: '{"temp":21}' },
  ]);

  const s = await ai.responses.create({ model: 'compat-chat', input: 'Weather? [sim tool_call=get_weather]', tools: [weather], stream: true });
  const types: string[] = [];
  let args = '';
  for await (const e of s) {
    types.push(e.type);
    if (e.type === 'response.function_call_arguments.delta') args += e.delta;
  }
  assert.deepEqual(JSON.parse(args), { location: 'Paris' });
  assert.ok(types.includes('response.function_call_arguments.done') && types.at(-1) === 'response.completed', types.join(','));
});

test('previous_response_id continues a kept conversation; instructions are not carried over', async () => {
  const first = await ai.responses.create({ model: 'compat-chat', input: 'one [sim chunks=1]', instructions: 'sys' });
  const second = await ai.responses.create({ model: 'compat-chat', input: 'two [sim chunks=1]', previous_response_id: first.id });
  await ai.responses.create({ model: 'compat-chat', input: [{ role: 'user', content: [{ type: 'input_text', text: 'three' }] }], previous_response_id: second.id });
  assert.deepEqual(lastUpstream().messages, [
    { role: 'user', content: 'one [sim chunks=1]' }, { role: 'assistant', content: 'tok1 ' },
    { role: 'user', content: 'two [sim chunks=1]' }, { role: 'assistant', content: 'tok1 ' },
    { role: 'user', content: [{ type: 'text', text: 'three' }] },
  ]);
});

test('an answer whose request carries a "toJSON" field (metadata) is kept and continued like any other', async () => {
  const first = await ai.responses.create({ model: 'compat-chat', input: 'one [sim chunks=1]', metadata: { toJSON: 'x', note: ':colon' } });
  const kept = await ai.responses.retrieve(first.id);
  assert.deepEqual(kept.metadata, { toJSON: 'x', note: ':colon' });
  await ai.responses.create({ model: 'compat-chat', input: 'two [sim chunks=1]', previous_response_id: first.id });
  assert.equal(lastUpstream().messages.length, 3, 'the kept turn was continued');
});

test('store: false keeps nothing; unknown, deleted and other users\' ids are not found', async () => {
  const unkept = await ai.responses.create({ model: 'compat-chat', input: 'x [sim chunks=1]', store: false });
  assert.equal((unkept as { store?: boolean }).store, false);
  await assert.rejects(ai.responses.retrieve(unkept.id), (e: any) => e.status === 404);
  const cont = await post(`${stack.url}/v1/responses`, { model: 'compat-chat', input: 'y', previous_response_id: unkept.id }, key);
  assertShapeA(cont, 400, 'invalid_request', 'invalid_request_error', '`previous_response_id`');

  const mine = await ai.responses.create({ model: 'compat-chat', input: 'mine [sim chunks=1]' });
  const other = client(stack, (await stack.token()).key);
  await assert.rejects(other.responses.retrieve(mine.id), (e: any) => e.status === 404);
  await assert.rejects(other.responses.delete(mine.id), (e: any) => e.status === 404);
  const stolen = await post(`${stack.url}/v1/responses`, { model: 'compat-chat', input: 'y', previous_response_id: mine.id }, (other as any).apiKey);
  assert.equal(stolen.status, 400, 'another user\'s response cannot be continued');

  const del = await fetch(`${stack.url}/v1/responses/${mine.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
  assert.deepEqual(await del.json(), { id: mine.id, object: 'response', deleted: true });
  await assert.rejects(ai.responses.retrieve(mine.id), (e: any) => e.status === 404);
});

test('text.format, reasoning.effort, tool_choice and a max_output_tokens cut become their unified fields; a cut answer is incomplete', async () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
  const r = await ai.responses.create({
    model: 'compat-chat', input: 'json please [sim chunks=9]', max_output_tokens: 2, reasoning: { effort: 'low' },
    text: { format: { type: 'json_schema', name: 'obj', schema, strict: true } }, tools: [weather], tool_choice: { type: 'function', name: 'get_weather' },
  });
  const up = lastUpstream();
  assert.deepEqual(up.response_format, { type: 'json_schema', json_schema: { name: 'obj', schema, strict: true } });
  assert.equal(up.reasoning_effort, 'low');
  assert.deepEqual(up.tool_choice, { type: 'function', function: { name: 'get_weather' } });
  assert.equal(up.max_completion_tokens, 2);
  assert.equal(r.status, 'incomplete');
  assert.deepEqual(r.incomplete_details, { reason: 'max_output_tokens' });
});

test('images and developer messages map to unified parts and roles', async () => {
  await ai.responses.create({
    model: 'compat-chat',
    input: [
      { role: 'developer', content: 'dev rules' },
      { role: 'user', content: [{ type: 'input_text', text: 'what is this?' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' }] },
    ],
  });
  assert.deepEqual(lastUpstream().messages, [
    { role: 'system', content: 'dev rules' },
    { role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } }] },
  ]);
});

test('bad requests are 400 naming the field, never a 5xx; an unknown model is 404', async () => {
  const cases: [unknown, string][] = [
    [{ model: 'compat-chat' }, 'input'],
    [{ model: 'compat-chat', input: 'x', tools: [{ type: 'function' }] }, 'name'],
    [{ model: 'compat-chat', input: 'x', background: true }, 'background'],
    [{ model: 'compat-chat', input: 'x', max_output_tokens: -5 }, 'max_output_tokens'],
    [{ model: 'compat-chat', input: [{ type: 'function_call_output' }] }, 'call_id'],
    [{ model: 'compat-chat', input: [{ type: 'item_reference', id: 'msg_nope' }] }, 'msg_nope'],
  ];
  for (const [body, field] of cases) {
    const r = await post(`${stack.url}/v1/responses`, body, key);
    assertShapeA(r, 400, 'invalid_request', 'invalid_request_error', field);
  }
  const unknown = await post(`${stack.url}/v1/responses`, { model: 'no-such-model', input: 'x' }, key);
  assertShapeA(unknown, 404, 'model_not_found', 'invalid_request_error');
  assert.equal(upstream().length, 0, 'nothing reached a vendor');
});

test('billing: charged once from the usage of the translated answer; a cut stream tells the client and bills what was delivered', async () => {
  const t = await stack.token();
  const c = client(stack, t.key);
  const before = (await stack.balance(t.id))!;
  const { data, response } = await c.responses.create({ model: 'compat-chat', input: 'bill me [sim chunks=7]' }).withResponse();
  const id = response.headers.get('x-request-id')!;
  await eventually(async () => (await ledgerOf(stack, t.id, id)).length === 2);
  assert.equal(before - (await stack.balance(t.id))!, expectedCharge(price, data.usage!.input_tokens, data.usage!.output_tokens));

  const before2 = (await stack.balance(t.id))!;
  const { data: s, response: r2 } = await c.responses.create({ model: 'compat-chat', input: 'cut [sim chunks=6 cut_after=2]', stream: true }).withResponse();
  const types: string[] = [];
  for await (const e of s) types.push(e.type);
  assert.equal(types.filter((x) => x === 'response.output_text.delta').length, 2);
  assert.deepEqual(types.slice(-2), ['error', 'response.failed']);
  const id2 = r2.headers.get('x-request-id')!;
  await eventually(async () => (await ledgerOf(stack, t.id, id2)).length === 2);
  const charged = before2 - (await stack.balance(t.id))!;
  assert.ok(charged > 0, 'the vendor did the work that was delivered');
});

test('a cut stream ends with an error event and response.failed in the raw stream', async () => {
  const raw = await fetch(`${stack.url}/v1/responses`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'compat-chat', input: 'cut [sim chunks=6 cut_after=2]', stream: true }),
  });
  const names = (await raw.text()).split('\n').filter((l) => l.startsWith('event: ')).map((l) => l.slice(7));
  assert.deepEqual(names.slice(-2), ['error', 'response.failed']);
});

test('POST /v1/responses/input_tokens: the estimate billing would reserve', async () => {
  const r = await post(`${stack.url}/v1/responses/input_tokens`, { model: 'compat-chat', input: 'a'.repeat(400) }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.object, 'response.input_tokens');
  assert.ok(r.json.input_tokens >= 100 && r.json.input_tokens < 120, String(r.json.input_tokens));
});

test('Vercel AI SDK (default provider = Responses): generateText, streamText arriving incrementally, tools over several steps', async () => {
  const openai = createOpenAI({ baseURL: `${stack.url}/v1`, apiKey: key });
  const g = await generateText({ model: openai('compat-chat'), prompt: 'Say hi [sim chunks=3]' });
  assert.equal(g.text, 'tok1 tok2 tok3 ');
  assert.equal(g.usage.outputTokens, 3);
  assert.equal(g.finishReason, 'stop');

  const s = streamText({ model: openai('compat-chat'), prompt: 'Say hi [sim chunks=4 interval_ms=150]' });
  const at: number[] = [];
  const t0 = Date.now();
  let text = '';
  for await (const d of s.textStream) { at.push(Date.now() - t0); text += d; }
  assert.equal(text, 'tok1 tok2 tok3 tok4 ');
  assert.ok(at.length === 4 && at[3] - at[0] >= 250, `incremental: ${at}`);
  assert.equal((await s.usage).outputTokens, 4);

  const steps = await generateText({
    model: openai('compat-chat'), prompt: 'Weather in Paris? [sim tool_call=weather]', stopWhen: stepCountIs(2),
    tools: { weather: tool({ description: 'w', inputSchema: jsonSchema<{ location: string }>({ type: 'object', properties: { location: { type: 'string' } }, required: ['location'] }), execute: async ({ location }) => ({ location, temp: 21 }) }) },
  });
  assert.equal(steps.steps.length, 2);
  assert.deepEqual(steps.steps[0].toolCalls.map((c) => [c.toolName, c.input]), [['weather', { location: 'Paris' }]]);
  const second = lastUpstream().messages;
  assert.deepEqual(second.at(-1), { role: 'tool', tool_call_id: steps.steps[0].toolCalls[0].toolCallId, content: '{"location":"Paris","temp":21}' });
});

test('Vercel AI SDK multi-turn: the kept answer is referenced by item id and resolved from the store', async () => {
  const sent: any[] = [];
  const spy: typeof fetch = async (url, init) => { sent.push(JSON.parse(String(init?.body))); return fetch(url, init); };
  const openai = createOpenAI({ baseURL: `${stack.url}/v1`, apiKey: key, fetch: spy });
  const first = await generateText({ model: openai('compat-chat'), prompt: 'first [sim chunks=2]' });
  const messages: ModelMessage[] = [{ role: 'user', content: 'first [sim chunks=2]' }, ...first.response.messages, { role: 'user', content: 'second' }];
  const second = await generateText({ model: openai('compat-chat'), messages });
  assert.equal(second.text, 'tok1 tok2 tok3 tok4 tok5 ');
  assert.deepEqual(sent[1].input[1], { type: 'item_reference', id: (first.response.body as any).output[0].id }, 'the SDK sends a reference, not the text');
  assert.deepEqual(lastUpstream().messages.map((m: any) => [m.role, typeof m.content === 'string' ? m.content : m.content?.[0]?.text]), [
    ['user', 'first [sim chunks=2]'], ['assistant', 'tok1 tok2 '], ['user', 'second'],
  ]);
});

test('LangChain ChatOpenAI with useResponsesApi: invoke, stream, bound tools', async () => {
  const llm = new ChatOpenAI({ model: 'compat-chat', apiKey: key, configuration: { baseURL: `${stack.url}/v1` }, useResponsesApi: true, maxRetries: 0 });
  const r = await llm.invoke('Say hi [sim chunks=3]');
  assert.equal(r.text, 'tok1 tok2 tok3 ');
  assert.equal(r.usage_metadata?.output_tokens, 3);
  let streamed = '';
  let chunks = 0;
  for await (const c of await llm.stream('Say hi [sim chunks=4]')) { chunks++; streamed += c.text; }
  assert.equal(streamed, 'tok1 tok2 tok3 tok4 ');
  assert.ok(chunks >= 4, `${chunks} chunks`);
  const t = await llm.bindTools([{ type: 'function', function: { name: 'weather', description: 'w', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }]).invoke('weather? [sim tool_call=weather]');
  assert.deepEqual(t.tool_calls?.map((c) => [c.name, c.args]), [['weather', { location: 'Paris' }]]);
});

test('a Messages-native vendor serves Responses clients: both translations chained, stream and not, tools', async () => {
  const r = await ai.responses.create({ model: 'claude-sonnet-4-5', input: 'Say hi [sim chunks=3]', instructions: 'sys' });
  assert.equal(r.output_text, 'tok1 tok2 tok3 ');
  assert.equal(r.usage?.output_tokens, 3);
  const sent = stack.sim.control.requests().filter((q) => q.path === '/v1/messages').at(-1)!.body as any;
  assert.equal(sent.system, 'sys');
  assert.deepEqual(sent.messages, [{ role: 'user', content: 'Say hi [sim chunks=3]' }]);

  const s = await ai.responses.create({ model: 'claude-sonnet-4-5', input: 'weather [sim tool_call=get_weather]', tools: [weather], stream: true });
  let args = '';
  let completed: OpenAI.Responses.Response | undefined;
  for await (const e of s) {
    if (e.type === 'response.function_call_arguments.delta') args += e.delta;
    if (e.type === 'response.completed') completed = e.response;
  }
  assert.deepEqual(JSON.parse(args), { location: 'Paris' });
  assert.equal(completed?.output.find((o) => o.type === 'function_call')?.type, 'function_call');
  assert.ok((completed?.usage?.output_tokens ?? 0) > 0);
});

// ---- OpenAI's own models: the vendor speaks Responses, so the bytes pass untouched both ways ----------------------

const nativeUpstream = () => stack.sim.control.requests().filter((r) => r.path === '/v1/responses');
/** What Codex CLI sends beyond a plain turn: hosted and namespace tools, reasoning items, store: false, include, …. */
const agentBody = {
  model: 'gpt-4o-mini', stream: false, store: false, include: ['reasoning.encrypted_content'], prompt_cache_key: 'k-1',
  client_metadata: { session_id: 's-1' }, reasoning: { effort: 'low', summary: 'auto' }, text: { verbosity: 'low' }, parallel_tool_calls: true,
  tools: [weather, { type: 'namespace', name: 'ns', description: 'group', tools: [{ type: 'function', name: 'inner', parameters: { type: 'object' } }] },
    { type: 'custom', name: 'apply_patch', description: 'patch' }, { type: 'web_search', external_web_access: false }],
  input: [
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque==' },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi [sim chunks=2]' }] },
  ],
};

test('native: an OpenAI model gets the Responses body byte for byte (hosted tools, reasoning items, include, store…), key swapped, billed from usage', async () => {
  const t = await stack.token();
  const raw = JSON.stringify(agentBody, null, 1);   // odd spacing: a re-serialised body would be shorter
  const r = await fetch(`${stack.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' }, body: raw });
  const answer = await r.json() as any;
  assert.equal(r.status, 200, JSON.stringify(answer));
  assert.match(answer.id, /^resp_[A-Za-z0-9]{48}$/, 'the vendor\'s own answer, not a translation');
  assert.equal(answer.output[0].content[0].text, 'tok1 tok2 ');
  const sent = nativeUpstream().at(-1)!;
  assert.deepEqual(sent.body, agentBody);
  assert.equal(Number(sent.headers['content-length']), Buffer.byteLength(raw), 'the very bytes');
  assert.equal(sent.headers.authorization, 'Bearer sim-key');
  assert.equal(upstream().length, 0, 'nothing was translated to chat');
  const id = r.headers.get('x-request-id')!;
  await eventually(async () => (await ledgerOf(stack, t.id, id)).length === 2);
  const before = 1_000_000;
  assert.equal(before - (await stack.balance(t.id))!, expectedCharge(shippedPrice('gpt-4o-mini'), answer.usage.input_tokens, answer.usage.output_tokens));
  const line = stack.logs().find((l) => l.req_id === id || l.id === id);
  assert.ok(!line?.dropped_tools, 'nothing is dropped on the native path');
});

test('native stream: OpenAI\'s events pass as they came, usage from response.completed is billed, the answer is kept and continued', async () => {
  const t = await stack.token();
  const c = client(stack, t.key);
  const { data: s, response } = await c.responses.create({ model: 'gpt-4o-mini', input: 'stream [sim chunks=3]', stream: true }).withResponse();
  const types: string[] = [];
  let completed: OpenAI.Responses.Response | undefined;
  for await (const e of s) { types.push(e.type); if (e.type === 'response.completed') completed = e.response; }
  assert.deepEqual(types, [
    'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
    'response.output_text.delta', 'response.output_text.delta', 'response.output_text.delta',
    'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
  ]);
  assert.match(completed!.id, /^resp_[A-Za-z0-9]{48}$/);
  assert.equal(nativeUpstream().at(-1)!.body && (nativeUpstream().at(-1)!.body as any).stream_options, undefined, 'nothing added to the body');
  const id = response.headers.get('x-request-id')!;
  await eventually(async () => (await ledgerOf(stack, t.id, id)).length === 2);
  assert.equal(1_000_000 - (await stack.balance(t.id))!, expectedCharge(shippedPrice('gpt-4o-mini'), completed!.usage!.input_tokens, completed!.usage!.output_tokens));
  const kept = await c.responses.retrieve(completed!.id);
  assert.equal(kept.output_text, 'tok1 tok2 tok3 ');
  const next = await c.responses.create({ model: 'gpt-4o-mini', input: 'more', previous_response_id: completed!.id });
  assert.equal(next.status, 'completed');
  assert.equal((nativeUpstream().at(-1)!.body as any).previous_response_id, completed!.id, 'OpenAI continues its own response');
});

test('native tool calls: a namespace member and a custom tool come back as OpenAI made them', async () => {
  const r = await ai.responses.create({ ...agentBody, input: 'go [sim tool_call=inner]' } as any) as any;
  assert.deepEqual([r.output[0].type, r.output[0].name, r.output[0].namespace], ['function_call', 'inner', 'ns']);
  const s = await ai.responses.create({ ...agentBody, stream: true, input: 'go [sim tool_call=apply_patch]' } as any) as any;
  let input = '';
  for await (const e of s) if (e.type === 'response.custom_tool_call_input.delta') input += e.delta;
  assert.equal(input, 'echo Paris');
});

// ---- What agents send, on a chat-only vendor: translated, with what chat cannot carry dropped and logged --------------

test('translated: namespace members flattened and custom tools as one-string functions; hosted tools and reasoning items dropped and logged; agent fields cause no 400', async () => {
  const body = { ...agentBody, model: 'compat-chat', tools: [...agentBody.tools, { type: 'function', name: 'ns__inner', parameters: { type: 'object' } }] };
  const r = await post(`${stack.url}/v1/responses`, body, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.output[0].content[0].text, 'tok1 tok2 ');
  const up = lastUpstream();
  assert.deepEqual(up.tools.map((t: any) => t.function.name), ['get_weather', 'apply_patch', 'ns__inner', 'ns__inner__1'], 'a taken name is numbered');
  assert.deepEqual(up.tools[1].function.parameters, { type: 'object', additionalProperties: false, required: ['input'], properties: { input: { type: 'string', description: 'The tool\'s whole input, as one string' } } });
  assert.deepEqual(up.messages, [{ role: 'user', content: [{ type: 'text', text: 'hi [sim chunks=2]' }] }]);
  for (const field of ['include', 'store', 'prompt_cache_key', 'client_metadata', 'verbosity', '_dropped']) assert.ok(!(field in up), field);
  const log = await logLineOf(stack, r.headers.get('x-request-id')!);
  assert.deepEqual([log.dropped_tools, log.dropped_items], [['web_search'], ['reasoning']]);
});

test('translated: a namespace member\'s call comes back with its namespace and name, a custom tool\'s as custom_tool_call with input (stream and not), and both go back as chat tool calls', async () => {
  const body = { ...agentBody, model: 'compat-chat' };
  const r = await post(`${stack.url}/v1/responses`, { ...body, input: 'go [sim tool_call=ns__inner]' }, key);
  assert.equal(r.status, 200, r.text);
  const call = r.json.output[0];
  assert.deepEqual([call.type, call.namespace, call.name, JSON.parse(call.arguments)], ['function_call', 'ns', 'inner', { location: 'Paris' }]);
  const ns = await fetch(`${stack.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true, input: 'go [sim tool_call=ns__inner]' }) });
  const nsEvents = (await ns.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  const items = nsEvents.filter((e) => e.type === 'response.output_item.added' || e.type === 'response.output_item.done').map((e) => [e.item.type, e.item.namespace, e.item.name]);
  assert.deepEqual(items, [['function_call', 'ns', 'inner'], ['function_call', 'ns', 'inner']]);
  assert.equal(nsEvents.filter((e) => e.type === 'response.function_call_arguments.delta').map((e) => e.delta).join(''), '{"location":"Paris"}');

  const s = await fetch(`${stack.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true, input: 'go [sim tool_call=apply_patch]' }) });
  const events = (await s.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  const added = events.find((e) => e.type === 'response.output_item.added');
  assert.deepEqual([added.item.type, added.item.name, added.item.input], ['custom_tool_call', 'apply_patch', '']);
  assert.ok(!events.some((e) => e.type === 'response.function_call_arguments.delta'), 'no JSON fragments of a freeform input');
  const done = events.find((e) => e.type === 'response.custom_tool_call_input.done');
  // The simulator's arguments are {"location":"Paris"}, not {"input": …}: the input is then the arguments as they came.
  assert.equal(done.input, '{"location":"Paris"}');
  const custom = events.find((e) => e.type === 'response.output_item.done').item;
  assert.equal(custom.type, 'custom_tool_call');

  const back = await post(`${stack.url}/v1/responses`, { ...body, input: [
    { type: 'message', role: 'user', content: 'patch it' },
    { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'x' },
    { type: 'custom_tool_call', call_id: 'call_c', name: 'apply_patch', input: '*** Begin Patch' },
    { type: 'custom_tool_call_output', call_id: 'call_c', output: 'Done' },
    { type: 'function_call', call_id: 'call_n', namespace: 'ns', name: 'inner', arguments: '{}' },
    { type: 'function_call_output', call_id: 'call_n', output: 'ok' },
  ] }, key);
  assert.equal(back.status, 200, back.text);
  assert.deepEqual(lastUpstream().messages, [
    { role: 'user', content: 'patch it' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_c', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' } }] },
    { role: 'tool', tool_call_id: 'call_c', content: 'Done' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_n', type: 'function', function: { name: 'ns__inner', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_n', content: 'ok' },
  ]);
});

test('a conversation kept from another vendor continues on OpenAI translated (OpenAI does not know its ids); one OpenAI made continues untouched', async () => {
  const first = await ai.responses.create({ model: 'compat-chat', input: 'one [sim chunks=1]' });
  const second = await ai.responses.create({ model: 'gpt-4o-mini', input: 'two [sim chunks=1]', previous_response_id: first.id });
  assert.equal(second.output_text, 'tok1 ');
  assert.equal(nativeUpstream().length, 0, 'not sent untouched: OpenAI would not find the id');
  assert.deepEqual(lastUpstream().messages, [{ role: 'user', content: 'one [sim chunks=1]' }, { role: 'assistant', content: 'tok1 ' }, { role: 'user', content: 'two [sim chunks=1]' }]);
  assert.equal(lastUpstream().model, 'gpt-4o-mini');
  await ai.responses.create({ model: 'gpt-4o-mini', input: 'more [sim chunks=1]', previous_response_id: second.id });
  assert.equal(nativeUpstream().length, 0, 'a chain begun elsewhere stays translated');
  const third = await ai.responses.create({ model: 'gpt-4o-mini', input: 'three [sim chunks=1]' });
  assert.equal(nativeUpstream().length, 1);
  const fourth = await ai.responses.create({ model: 'gpt-4o-mini', input: 'four [sim chunks=1]', previous_response_id: third.id });
  assert.equal(fourth.status, 'completed');
  assert.deepEqual((nativeUpstream().at(-1)!.body as any).previous_response_id, third.id, 'OpenAI continues its own answer by id');
});
