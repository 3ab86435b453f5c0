// A vendor that speaks Gemini (gemini-2.5-flash → sim_gemini, dialect gemini_generate on its chat operation) serving
// the other dialects' clients: OpenAI chat completions (openai package), Responses and Messages (raw and SDK),
// translated through the unified format: system instruction, function calls and responses, thoughts, streams on
// :streamGenerateContent?alt=sse, and billing from usageMetadata (thoughts billed as output).
import { test as nodeTest, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './helpers/stack.js';
import { anthropic, billedOnce, lastUpstream, messagesSse, priceOf } from './helpers/anthropic.js';
import { client, post, sseData } from './helpers/api.js';

const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 20_000 }, fn);
const model = 'gemini-2.5-flash';

let stack: Stack;
let key: string;

before(async () => {
  stack = await startStack({ env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '' } });
  ({ key } = await stack.token());
});
after(() => stack.close());
beforeEach(() => { stack.sim.control.clear(); stack.sim.control.clearFaults(); });

const tools = [{ type: 'function' as const, function: {
  name: 'get_weather', description: 'Current weather for a place',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
} }];

test('chat completions: the request becomes a GenerateContentRequest (system, sampling, limit), the answer a chat completion', async () => {
  const r = await client(stack, key).chat.completions.create({
    model, temperature: 0.3, top_p: 0.9, max_completion_tokens: 50, stop: ['zzz'],
    messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello [sim chunks=3]' }],
  });
  assert.equal(r.choices[0].message.content, 'tok1 tok2 tok3 ');
  assert.equal(r.choices[0].finish_reason, 'stop');
  assert.equal(r.model, model);
  assert.equal(r.usage?.completion_tokens, 3);
  const up = lastUpstream(stack);
  assert.equal(up.path, `/v1beta/models/${model}:generateContent`);
  assert.equal(up.headers['x-goog-api-key'], 'sim-key');
  assert.deepEqual(up.body, {
    contents: [{ role: 'user', parts: [{ text: 'Hello [sim chunks=3]' }] }],
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    generationConfig: { temperature: 0.3, topP: 0.9, maxOutputTokens: 50, stopSequences: ['zzz'] },
  });
});

test('chat completions: a request without a limit sends the model\'s reserved one; MAX_TOKENS is length', async () => {
  await client(stack, key).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  assert.equal((lastUpstream(stack).body as any).generationConfig.maxOutputTokens, 65536);
  const cut = await client(stack, key).chat.completions.create({ model, max_tokens: 2, messages: [{ role: 'user', content: 'hi [sim chunks=5]' }] });
  assert.equal(cut.choices[0].finish_reason, 'length');
});

test('chat completions: a tool call and its result round trip as functionCall and functionResponse', async () => {
  const c = client(stack, key);
  const ask = { role: 'user' as const, content: 'Weather? [sim tool_call=get_weather]' };
  const first = await c.chat.completions.create({ model, tools, messages: [ask] });
  const call = first.choices[0].message.tool_calls![0];
  assert.equal(first.choices[0].finish_reason, 'tool_calls');
  assert.equal(call.type === 'function' && call.function.name, 'get_weather');
  assert.deepEqual(call.type === 'function' && JSON.parse(call.function.arguments), { location: 'Paris' });
  assert.deepEqual((lastUpstream(stack).body as any).tools, [{ functionDeclarations: [{
    name: 'get_weather', description: 'Current weather for a place', parametersJsonSchema: tools[0].function.parameters,
  }] }]);
  const second = await c.chat.completions.create({ model, tools, messages: [ask, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"temp":21}' }] });
  assert.equal(second.choices[0].message.content, 'tok1 tok2 tok3 tok4 tok5 ');
  const sent = (lastUpstream(stack).body as any).contents;
  assert.deepEqual(sent[1], { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { location: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' }] });
  assert.deepEqual(sent[2], { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 21 } } }] });
});

test('Gemini 3: a chat client\'s tool round trip carries Google\'s stand-in thought signature (without it: Google\'s 400)', async () => {
  const c = client(stack, key);
  const m3 = 'gemini-3.1-pro-preview';
  const ask = { role: 'user' as const, content: 'Weather? [sim tool_call=get_weather]' };
  const first = await c.chat.completions.create({ model: m3, tools, messages: [ask] });
  const call = first.choices[0].message.tool_calls![0];
  const second = await c.chat.completions.create({ model: m3, tools, messages: [ask, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'Sunny' }] });
  assert.equal(second.choices[0].message.content, 'tok1 tok2 tok3 tok4 tok5 ');
  const turn = (lastUpstream(stack).body as any).contents[1];
  assert.equal(turn.parts[0].thoughtSignature, 'skip_thought_signature_validator');
  const raw = await fetch(`${stack.sim.url}/v1beta/models/${m3}:generateContent`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': 'sim-key' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'q' }] }, { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: {} } }] }] }),
  });
  assert.equal(raw.status, 400, 'the simulator refuses an unsigned call as Google does');
  assert.match(((await raw.json()) as any).error.message, /missing a thought_signature/);
});

test('chat completions stream: chunks from :streamGenerateContent?alt=sse, a tool call whole, usage when asked', async () => {
  const stream = await client(stack, key).chat.completions.create({ model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Go [sim chunks=3]' }] });
  let text = '';
  let usage;
  let finish;
  for await (const ch of stream) {
    text += ch.choices[0]?.delta?.content ?? '';
    finish = ch.choices[0]?.finish_reason ?? finish;
    usage = ch.usage ?? usage;
  }
  assert.equal(text, 'tok1 tok2 tok3 ');
  assert.equal(finish, 'stop');
  assert.equal(usage?.completion_tokens, 3);
  assert.equal(lastUpstream(stack).url, `/v1beta/models/${model}:streamGenerateContent?alt=sse`);
  const r = await post(`${stack.url}/v1/chat/completions`, { model, stream: true, tools, messages: [{ role: 'user', content: 'x [sim tool_call=get_weather]' }] }, key);
  const chunks = sseData(r.text).filter((d) => d !== '[DONE]').map((d) => JSON.parse(d));
  const calls = chunks.flatMap((ch) => ch.choices[0]?.delta?.tool_calls ?? []);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].function.name, 'get_weather');
  assert.equal(calls[0].function.arguments, '{"location":"Paris"}');
  assert.equal(chunks.find((ch) => ch.choices[0]?.finish_reason)?.choices[0].finish_reason, 'tool_calls');
  assert.equal(sseData(r.text).at(-1), '[DONE]');
});

test('thoughts: the thinking budget from reasoning_effort, thought parts as reasoning_content, billed as output', async () => {
  const { key: own, id: account } = await stack.token();
  const before = (await stack.balance(account))!;
  const r = await post(`${stack.url}/v1/chat/completions`, { model, reasoning_effort: 'low', messages: [{ role: 'user', content: 'Think [sim chunks=2 thoughts=3]' }] }, own);
  assert.equal(r.status, 200, r.text);
  const sent = lastUpstream(stack).body as any;
  assert.deepEqual(sent.generationConfig.thinkingConfig, { thinkingBudget: 1024 });
  assert.equal(r.json.usage.completion_tokens, 5, 'two words and three thought tokens');
  assert.equal(r.json.usage.completion_tokens_details.reasoning_tokens, 3);
  await billedOnce(stack, account, r.headers.get('x-request-id')!, before, priceOf(model), r.json.usage.prompt_tokens, 5);
});

test('Responses: an answer and a streamed function call from the Gemini vendor', async () => {
  const r = await post(`${stack.url}/v1/responses`, { model, instructions: 'Be brief.', input: 'Hi [sim chunks=2]' }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.output[0].content[0].text, 'tok1 tok2 ');
  assert.equal(r.json.usage.output_tokens, 2);
  assert.deepEqual((lastUpstream(stack).body as any).systemInstruction, { parts: [{ text: 'Be brief.' }] });
  const s = await post(`${stack.url}/v1/responses`, {
    model, stream: true, input: 'x [sim tool_call=get_weather]',
    tools: [{ type: 'function', name: 'get_weather', parameters: tools[0].function.parameters }],
  }, key);
  const events = sseData(s.text).map((d) => JSON.parse(d));
  const done = events.at(-1);
  assert.equal(done.type, 'response.completed');
  assert.equal(done.response.output[0].type, 'function_call');
  assert.equal(done.response.output[0].name, 'get_weather');
  assert.equal(done.response.output[0].arguments, '{"location":"Paris"}');
});

test('Messages: the Anthropic SDK on the Gemini vendor, plain and streamed, a tool_use and its tool_result', async () => {
  const a = anthropic(stack, key);
  const m = await a.messages.create({ model, max_tokens: 64, system: 'Terse.', messages: [{ role: 'user', content: 'Hi [sim chunks=3]' }] });
  assert.deepEqual(m.content, [{ type: 'text', text: 'tok1 tok2 tok3 ' }]);
  assert.equal(m.stop_reason, 'end_turn');
  assert.equal((lastUpstream(stack).body as any).generationConfig.maxOutputTokens, 64);
  const atools = [{ name: 'get_weather', input_schema: tools[0].function.parameters as any }];
  const ask = { role: 'user' as const, content: 'Weather? [sim tool_call=get_weather]' };
  const first = await a.messages.create({ model, max_tokens: 64, tools: atools, messages: [ask] });
  assert.equal(first.stop_reason, 'tool_use');
  const use = first.content.find((b) => b.type === 'tool_use')!;
  assert.ok(use.type === 'tool_use');
  await a.messages.create({ model, max_tokens: 64, tools: atools, messages: [ask, { role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny' }] }] });
  assert.deepEqual((lastUpstream(stack).body as any).contents[2].parts, [{ functionResponse: { name: 'get_weather', response: { result: 'Sunny' } } }]);
  const { events } = await messagesSse(stack, key, { model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Go [sim chunks=2]' }] });
  assert.deepEqual(events.map((e) => e.event), ['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
  assert.equal(events.at(-2)!.data.usage.output_tokens, 2);
});

test('a vendor error keeps its status; a cut Gemini stream is a cut for the client; n > 1 does not stream', async () => {
  const many = await post(`${stack.url}/v1/chat/completions`, { model, n: 2, stream: true, messages: [{ role: 'user', content: 'x' }] }, key);
  assert.equal(many.status, 400);
  assert.match(many.json.error.message, /`n` must be 1 when streaming/);
  const r = await post(`${stack.url}/v1/chat/completions`, { model, messages: [{ role: 'user', content: 'x [sim status=400]' }] }, key);
  assert.equal(r.status, 400);
  const s = await post(`${stack.url}/v1/chat/completions`, { model, stream: true, messages: [{ role: 'user', content: 'x [sim chunks=5 cut_after=2]' }] }, key);
  const data = sseData(s.text);
  assert.equal(data.at(-1), '[DONE]');
  assert.match(data.at(-2)!, /ended unexpectedly/);
});
