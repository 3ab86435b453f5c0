// The reverse direction: the official openai client on /v1/chat/completions with a claude model, served by a channel
// that speaks Anthropic's Messages API (sim_anthropic), translated by the vendor side of the anthropic_messages dialect.
import { test as nodeTest, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { startStack, type Stack } from './helpers/stack.js';
import { client, logLineOf } from './helpers/api.js';
import { billedOnce, lastUpstream, priceOf } from './helpers/anthropic.js';

const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 20_000 }, fn);

let stack: Stack;
let ai: OpenAI;
const model = 'claude-haiku-4-5';

before(async () => {
  stack = await startStack({ env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } });
  ai = client(stack, (await stack.token()).key);
});
after(() => stack.close());
beforeEach(() => stack.sim.control.clear());

const tools: OpenAI.ChatCompletionFunctionTool[] = [{
  type: 'function', function: { name: 'get_weather', description: 'Current weather for a place', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
}];

test('non-stream: a chat.completion from a Messages vendor, its request in Messages form (system, max_tokens the model\'s)', async () => {
  const r = await ai.chat.completions.create({ model, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello [sim chunks=3]' }] });
  assert.equal(r.object, 'chat.completion');
  assert.equal(r.model, model);
  assert.ok(Math.abs(r.created - Date.now() / 1000) < 60, `created ${r.created}`);
  assert.equal(r.choices[0].message.content, 'tok1 tok2 tok3 ');
  assert.equal(r.choices[0].finish_reason, 'stop');
  assert.deepEqual([r.usage?.prompt_tokens, r.usage?.completion_tokens, r.usage?.total_tokens], [6, 3, 9]);
  const up = lastUpstream(stack);
  assert.equal(up.path, '/v1/messages');
  assert.equal(up.headers['x-api-key'], 'sim-key');
  assert.equal(up.headers['anthropic-version'], '2023-06-01');
  assert.equal(up.headers.authorization, undefined);
  // No limit in the request: the model's max_output_tokens, which is what billing reserved.
  assert.deepEqual(up.body, { model, system: 'Be brief.', messages: [{ role: 'user', content: 'Say hello [sim chunks=3]' }], max_tokens: 64000 });
});

test('non-stream with a tool: tool_calls with JSON arguments, finish_reason tool_calls; the round trip sends tool_result blocks', async () => {
  const ask: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'Weather in Paris? [sim tool_call=get_weather]' };
  const r = await ai.chat.completions.create({ model, tools, tool_choice: 'auto', max_completion_tokens: 200, messages: [ask] });
  const call = r.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
  assert.equal(r.choices[0].finish_reason, 'tool_calls');
  assert.equal(r.choices[0].message.content, null);
  assert.equal(call.type, 'function');
  assert.equal(call.function.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.function.arguments), { location: 'Paris' });
  assert.deepEqual((lastUpstream(stack).body as any).tools, [{ name: 'get_weather', description: 'Current weather for a place', input_schema: tools[0].function.parameters }]);
  const next = await ai.chat.completions.create({
    model, tools, max_completion_tokens: 200,
    messages: [ask, r.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '18°C, clear' }, { role: 'user', content: 'Summarise. [sim chunks=2]' }],
  });
  assert.equal(next.choices[0].message.content, 'tok1 tok2 ');
  const sent = (lastUpstream(stack).body as any).messages;
  assert.deepEqual(sent.map((m: any) => m.role), ['user', 'assistant', 'user', 'user']);
  assert.deepEqual(sent[1].content, [{ type: 'tool_use', id: call.id, name: 'get_weather', input: { location: 'Paris' } }]);
  assert.deepEqual(sent[2].content, [{ type: 'tool_result', tool_use_id: call.id, content: '18°C, clear' }]);
});

test('stream: chunks arrive as the vendor sends them, with the finish_reason and no usage unless asked', async () => {
  const s = await ai.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'pace [sim chunks=4 interval_ms=80]' }] });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  const at: number[] = [];
  for await (const c of s) { chunks.push(c); if (c.choices[0]?.delta.content) at.push(performance.now()); }
  assert.equal(chunks[0].choices[0].delta.role, 'assistant');
  assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'tok1 tok2 tok3 tok4 ');
  assert.ok(at[3] - at[0] >= 180, `first→last content chunk spread ${Math.round(at[3] - at[0])} ms`);
  assert.equal(chunks.at(-1)!.choices[0].finish_reason, 'stop');
  assert.equal(chunks.filter((c) => c.usage).length, 0);
  assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === model));
});

test('stream with a tool and include_usage: tool_calls deltas (id and name, then argument fragments), usage on the last chunk', async () => {
  const s = await ai.chat.completions.create({
    model, tools, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Weather? [sim tool_call=get_weather]' }],
  });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const c of s) chunks.push(c);
  const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
  assert.equal(calls[0].index, 0);
  assert.match(calls[0].id!, /^toolu_/);
  assert.equal(calls[0].function?.name, 'get_weather');
  assert.ok(calls.length > 2, 'the arguments arrive in fragments');
  assert.equal(calls.map((c) => c.function?.arguments ?? '').join(''), '{"location":"Paris"}');
  const last = chunks.at(-1)!;
  assert.equal(last.choices[0].finish_reason, 'tool_calls');
  assert.deepEqual(last.choices[0].delta, {});
  assert.deepEqual([last.usage?.prompt_tokens, last.usage?.completion_tokens], [3, 5]);
});

test('charged once from the vendor\'s usage, streamed or not; a cut stream ends in an error event and bills what was delivered', async () => {
  const price = priceOf(model);
  const t = await stack.token();
  const own = client(stack, t.key);
  const messages = [{ role: 'user' as const, content: `${'w '.repeat(299)}[sim chunks=400]` }];
  let before = (await stack.balance(t.id))!;
  const plain = await own.chat.completions.create({ model, messages }).withResponse();
  await billedOnce(stack, t.id, plain.request_id!, before, price, 301, 400);
  before = (await stack.balance(t.id))!;
  const streamed = await own.chat.completions.create({ model, messages, stream: true }).withResponse();
  for await (const _ of streamed.data) { /* drain */ }
  await billedOnce(stack, t.id, streamed.request_id!, before, price, 301, 400);
  before = (await stack.balance(t.id))!;
  const cut = await own.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi [sim chunks=5 cut_after=2]' }] }).withResponse();
  const err = await (async () => { for await (const _ of cut.data) { /* until the error */ } })().catch((e) => e);
  assert.match(String(err), /upstream stream ended unexpectedly/);
  const log = await logLineOf(stack, cut.request_id!);
  assert.equal(log.usage_estimated, true);
  // The prompt estimate, one token per vendor event delivered (start, block start, ping, 2 deltas).
  assert.equal(log.usage.completion_tokens, 5);
  await billedOnce(stack, t.id, cut.request_id!, before, price, log.usage.prompt_tokens, 5);
});

test('a long agent conversation (2000 turns of tool use) is translated within the dialect\'s request time limit', async () => {
  const turns: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'start' }];
  for (let i = 1; i <= 2000; i++) {
    turns.push(i % 2
      ? { role: 'assistant', content: 'checking', tool_calls: [{ id: `toolu_${i}`, type: 'function', function: { name: 'get_weather', arguments: `{"location":"city ${i}"}` } }] }
      : { role: 'tool', tool_call_id: `toolu_${i - 1}`, content: 'sunny' });
  }
  turns.push({ role: 'user', content: 'summarise [sim chunks=2]' });
  const r = await ai.chat.completions.create({ model, tools, messages: turns });
  assert.equal(r.choices[0].message.content, 'tok1 tok2 ');
  // The whole conversation arrived, every tool_use answered by the tool_result right after it (sim_anthropic checks
  // that) and counted: start, 1000 × (checking + tool_use block), 1000 tool_result blocks, summarise …
  assert.equal(r.usage?.prompt_tokens, 1 + 1000 * 2 + 1000 + 3);
});

test('temperature and top_p together: only temperature reaches the Messages vendor, which refuses the two as Anthropic does', async () => {
  const r = await ai.chat.completions.create({ model, temperature: 0.7, top_p: 0.95, max_completion_tokens: 20, messages: [{ role: 'user', content: 'Say hello [sim chunks=2]' }] });
  assert.equal(r.choices[0].message.content, 'tok1 tok2 ');
  const sent = lastUpstream(stack).body as any;
  assert.deepEqual([sent.temperature, 'top_p' in sent], [0.7, false]);
  const alone = await ai.chat.completions.create({ model, top_p: 0.5, max_completion_tokens: 20, messages: [{ role: 'user', content: 'Say hello' }] });
  assert.ok(alone.choices[0].message.content);
  assert.deepEqual([(lastUpstream(stack).body as any).top_p, 'temperature' in (lastUpstream(stack).body as any)], [0.5, false], 'top_p alone is sent');
  // The simulator's Messages endpoint answers both together with Anthropic's 400, so a regression in the dialect fails here.
  const refused = await fetch(`${stack.sim.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sim-key', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 20, temperature: 0.7, top_p: 0.95, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(refused.status, 400);
  assert.deepEqual((await refused.json() as any).error, { type: 'invalid_request_error', message: 'temperature and top_p cannot both be specified for this model. Please use only one.' });
});
