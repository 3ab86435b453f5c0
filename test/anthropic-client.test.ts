// The official Anthropic client (@anthropic-ai/sdk) on POST /v1/messages, against a unified channel (gpt-4o-mini →
// sim_openai, translated by the anthropic_messages dialect) and a channel that speaks Messages (claude → sim_anthropic,
// bytes untouched): answers, streams, tool use, token counts, errors in Anthropic's shape, and what each path bills.
import { test as nodeTest, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startStack, type Stack } from './helpers/stack.js';
import { anthropic, billedOnce, lastUpstream, messagesSse, priceOf } from './helpers/anthropic.js';
import { logLineOf } from './helpers/api.js';

const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 20_000 }, fn);

let stack: Stack;
let key: string;

before(async () => {
  stack = await startStack({ env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } });
  ({ key } = await stack.token());
});
after(() => stack.close());
beforeEach(() => { stack.sim.control.clear(); stack.sim.control.clearFaults(); });

const tools: Anthropic.Tool[] = [{
  name: 'get_weather', description: 'Current weather for a place',
  input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
}];
/** The error body an SDK error carries. */
const bodyOf = (e: InstanceType<typeof Anthropic.APIError>) => e.error as { type: string; error: { type: string; message: string } };
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

// Each path: the model, and whether the vendor speaks Messages itself (its bytes pass untouched).
const paths = [
  { name: 'unified channel (gpt-4o-mini → sim_openai)', model: 'gpt-4o-mini', native: false },
  { name: 'Messages channel (claude-sonnet-4-5 → sim_anthropic)', model: 'claude-sonnet-4-5', native: true },
];

for (const { name, model, native } of paths) {
  /** The upstream saw the client's own body (native) or its translation to chat completions. */
  const sawBody = (sent: Record<string, unknown>) => {
    const up = lastUpstream(stack);
    if (native) {
      assert.equal(up.path, '/v1/messages');
      assert.deepEqual(up.body, sent, 'the simulator saw the client\'s own body');
      assert.equal(up.headers['x-api-key'], 'sim-key');
      assert.equal(up.headers['anthropic-version'], '2023-06-01');
    } else {
      assert.equal(up.path, '/v1/chat/completions');
    }
    return up.body as any;
  };

  test(`${name}: messages.create answers a Message (text, system)`, async () => {
    const params = { model, max_tokens: 64, system: 'You are terse.', messages: [{ role: 'user' as const, content: 'Say hello [sim chunks=3]' }] };
    const m = await anthropic(stack, key).messages.create(params);
    assert.equal(m.type, 'message');
    assert.equal(m.role, 'assistant');
    assert.equal(m.model, model);
    assert.match(m.id, /^msg_/);
    assert.deepEqual(m.content.map((b) => b.type === 'text' && b.text), ['tok1 tok2 tok3 ']);
    assert.equal(m.stop_reason, 'end_turn');
    assert.equal(m.stop_sequence, null);
    assert.equal(m.usage.input_tokens, 7); // the simulators count words: 3 of system, 4 of the message
    assert.equal(m.usage.output_tokens, 3);
    const up = sawBody(params);
    if (!native) {
      assert.deepEqual(up.messages, [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Say hello [sim chunks=3]' }]);
      assert.equal(up.max_completion_tokens, 64);
    }
  });

  test(`${name}: an image block reaches the model`, async () => {
    const params = {
      model, max_tokens: 32, messages: [{ role: 'user' as const, content: [
        { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: png } },
        { type: 'text' as const, text: 'What is this? [sim chunks=2]' }] }],
    };
    const m = await anthropic(stack, key).messages.create(params);
    assert.equal(m.usage.input_tokens, 6); // the image counts 1, the text 5 words
    const up = sawBody(params);
    if (!native) assert.deepEqual(up.messages[0].content[0], { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } });
  });

  test(`${name}: tool use round trip (tool_use answer, then tool_result)`, async () => {
    const client = anthropic(stack, key);
    const ask = { role: 'user' as const, content: 'Weather in Paris? [sim tool_call=get_weather]' };
    const first = await client.messages.create({ model, max_tokens: 128, tools, messages: [ask] });
    assert.equal(first.stop_reason, 'tool_use');
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    assert.equal(use.name, 'get_weather');
    assert.deepEqual(use.input, { location: 'Paris' });
    const params = {
      model, max_tokens: 128, tools,
      messages: [ask, { role: 'assistant' as const, content: first.content as Anthropic.ContentBlockParam[] }, { role: 'user' as const, content: [
        { type: 'tool_result' as const, tool_use_id: use.id, content: '18°C, clear' },
        { type: 'text' as const, text: 'Summarise. [sim chunks=2]' }] }],
    };
    const second = await client.messages.create(params);
    assert.equal(second.stop_reason, 'end_turn');
    assert.deepEqual(second.content.map((b) => b.type === 'text' && b.text), ['tok1 tok2 ']);
    const up = sawBody(params);
    if (!native) {
      assert.deepEqual(up.messages.slice(1).map((m: any) => m.role), ['assistant', 'tool', 'user']);
      assert.equal(up.messages[1].tool_calls[0].id, use.id);
      assert.deepEqual(up.messages[2], { role: 'tool', tool_call_id: use.id, content: '18°C, clear' });
    }
  });

  test(`${name}: messages.stream delivers text deltas as they come, and finalMessage() the whole message`, async () => {
    const stream = anthropic(stack, key).messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'pace [sim chunks=5 interval_ms=80]' }] });
    const at: number[] = [];
    let text = '';
    stream.on('text', (delta) => { at.push(performance.now()); text += delta; });
    const m = await stream.finalMessage();
    assert.equal(text, 'tok1 tok2 tok3 tok4 tok5 ');
    assert.equal(at.length, 5);
    assert.ok(at[4] - at[0] >= 250, `first→last delta spread ${Math.round(at[4] - at[0])} ms`);
    assert.deepEqual(m.content.map((b) => b.type === 'text' && b.text), [text]);
    assert.equal(m.stop_reason, 'end_turn');
    assert.equal(m.usage.input_tokens, 4);
    assert.equal(m.usage.output_tokens, 5);
  });

  test(`${name}: a streamed tool call arrives as input_json_delta`, async () => {
    const stream = anthropic(stack, key).messages.stream({ model, max_tokens: 64, tools, messages: [{ role: 'user', content: 'Weather? [sim tool_call=get_weather]' }] });
    const fragments: string[] = [];
    stream.on('inputJson', (partial) => { fragments.push(partial); });
    const m = await stream.finalMessage();
    assert.equal(fragments.join(''), '{"location":"Paris"}');
    assert.ok(fragments.length > 1, 'the input arrives in fragments');
    assert.equal(m.stop_reason, 'tool_use');
    const use = m.content[0] as Anthropic.ToolUseBlock;
    assert.equal(use.type, 'tool_use');
    assert.deepEqual(use.input, { location: 'Paris' });
  });

  test(`${name}: countTokens answers the gateway's estimate`, async () => {
    const params = { model, system: 'Be brief.', messages: [{ role: 'user' as const, content: 'How many tokens is this?' }] };
    const r = await anthropic(stack, key).messages.countTokens(params);
    const perToken = stack.gw.gateway.runtime.promptBytesPerToken;
    assert.equal(r.input_tokens, Math.ceil(Buffer.byteLength(JSON.stringify(params)) / perToken));
    assert.equal(stack.sim.control.requests().length, 0, 'no vendor is asked');
  });

  test(`${name}: Bearer and x-api-key both authenticate; errors come in Anthropic's shape and classes`, async () => {
    for (const via of ['bearer', 'x-api-key'] as const) {
      const m = await anthropic(stack, key, via).messages.create({ model, max_tokens: 8, messages: [{ role: 'user', content: 'hi [sim chunks=1]' }] });
      assert.equal(m.content.length, 1, via);
      const bad = await anthropic(stack, 'sk-wrong', via).messages.create({ model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
      assert.ok(bad instanceof Anthropic.AuthenticationError, `${via}: ${bad}`);
      assert.equal(bad.status, 401);
      assert.equal(bad.type, 'authentication_error');
      assert.equal(bodyOf(bad).type, 'error');
      assert.match(bodyOf(bad).error.message, /^Invalid API key \(request id: req_/);
    }
    const client = anthropic(stack, key);
    const noMax = await client.messages.create({ model, messages: [{ role: 'user', content: 'hi' }] } as never).catch((e) => e);
    assert.ok(noMax instanceof Anthropic.BadRequestError, String(noMax));
    assert.equal(noMax.type, 'invalid_request_error');
    assert.match(bodyOf(noMax).error.message, /max_tokens/);
    const unknown = await client.messages.create({ model: `${model}-nope`, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
    assert.ok(unknown instanceof Anthropic.NotFoundError, String(unknown));
    assert.equal(unknown.type, 'not_found_error');
    // The vendor's own refusal keeps its status, in Anthropic's shape.
    const refused = await client.messages.create({ model, max_tokens: 8, messages: [{ role: 'user', content: 'x [sim status=400]' }] }).catch((e) => e);
    assert.ok(refused instanceof Anthropic.BadRequestError, String(refused));
    assert.equal(refused.type, 'invalid_request_error');
    assert.deepEqual(Object.keys(bodyOf(refused)).sort(), ['error', 'type']);
  });

  test(`${name}: an error event in the stream reaches the client as Anthropic's error event`, async () => {
    const stream = anthropic(stack, key).messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'x [sim chunks=5 error_after=1]' }] });
    const err = await stream.finalMessage().catch((e) => e);
    assert.ok(err instanceof Anthropic.APIError, String(err));
    assert.equal(bodyOf(err).type, 'error');
    assert.equal(err.type, native ? 'overloaded_error' : 'api_error');
  });

  test(`${name}: charged once from the reported usage, streamed or not`, async () => {
    const price = priceOf(model);
    const t = await stack.token();
    const messages = [{ role: 'user' as const, content: `${'w '.repeat(299)}[sim chunks=400]` }];
    const before = (await stack.balance(t.id))!;
    const { data, response } = await anthropic(stack, t.key).messages.create({ model, max_tokens: 1024, messages }).withResponse();
    const id = response.headers.get('x-request-id')!;
    await billedOnce(stack, t.id, id, before, price, data.usage.input_tokens, data.usage.output_tokens);
    assert.deepEqual([data.usage.input_tokens, data.usage.output_tokens], [301, 400]);
    const mid = (await stack.balance(t.id))!;
    const s = await anthropic(stack, t.key).messages.create({ model, max_tokens: 1024, messages, stream: true }).withResponse();
    for await (const _ of s.data) { /* drain */ }
    await billedOnce(stack, t.id, s.response.headers.get('x-request-id')!, mid, price, 301, 400);
  });

  test(`${name}: a cut stream ends with Anthropic's error event and bills what was delivered`, async () => {
    const price = priceOf(model);
    const t = await stack.token();
    const before = (await stack.balance(t.id))!;
    const body = { model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi [sim chunks=5 cut_after=2]' }] };
    const { events, id } = await messagesSse(stack, t.key, body);
    assert.deepEqual(events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text), ['tok1 ', 'tok2 ']);
    const last = events.at(-1)!;
    assert.equal(last.event, 'error');
    assert.deepEqual(last.data, { type: 'error', error: { type: 'api_error', message: 'upstream stream ended unexpectedly' } });
    assert.ok(!events.some((e) => e.event === 'message_stop'));
    const log = await logLineOf(stack, id);
    assert.equal(log.usage_estimated, true);
    // Native: the prompt message_start reported, one token per event delivered (start, block start, ping, 2 deltas).
    // Translated: the prompt estimate, one token per vendor chunk delivered (role, 2 words).
    const perToken = stack.gw.gateway.runtime.promptBytesPerToken;
    const expected = native ? [4, 5] : [Math.ceil(Buffer.byteLength(JSON.stringify(body)) / perToken), 3];
    assert.deepEqual([log.usage.prompt_tokens, log.usage.completion_tokens], expected);
    await billedOnce(stack, t.id, id, before, price, expected[0], expected[1]);
  });
}

test('a long agent conversation (2000 turns of tool use) is translated within the dialect\'s request time limit', async () => {
  const turns: Anthropic.MessageParam[] = [{ role: 'user', content: 'start' }];
  for (let i = 1; i <= 2000; i++) {
    turns.push(i % 2
      ? { role: 'assistant', content: [{ type: 'text', text: 'checking' }, { type: 'tool_use', id: `toolu_${i}`, name: 'get_weather', input: { location: `city ${i}` } }] }
      : { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i - 1}`, content: 'sunny' }, { type: 'text', text: 'go on' }] });
  }
  turns.push({ role: 'assistant', content: [{ type: 'text', text: 'done?' }] }, { role: 'user', content: 'summarise [sim chunks=2]' });
  const m = await anthropic(stack, key).messages.create({ model: 'gpt-4o-mini', max_tokens: 16, tools, messages: turns });
  assert.deepEqual(m.content.map((b) => b.type === 'text' && b.text), ['tok1 tok2 ']);
  // The whole conversation arrived (sim_openai counts text words): start, 1000 × checking, 1000 × (sunny + go on), done?, summarise …
  assert.equal(m.usage.input_tokens, 1 + 1000 + 1000 * 3 + 1 + 3);
});

test('what Claude-style agents send beyond a plain turn reaches a chat vendor: server tools and earlier thinking dropped and logged, client tools as functions, cache_control and thinking left out', async () => {
  const body = {
    model: 'gpt-4o-mini', max_tokens: 64, thinking: { type: 'enabled', budget_tokens: 1024 },
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
    tools: [
      { ...tools[0], cache_control: { type: 'ephemeral' } },
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      { type: 'bash_20250124', name: 'bash' },
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'look it up', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, { type: 'text', text: 'ok' }] },
      { role: 'user', content: 'go on [sim chunks=2]' },
    ],
  };
  const r = await fetch(`${stack.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify(body) });
  const m = await r.json() as any;
  assert.equal(r.status, 200, JSON.stringify(m));
  assert.deepEqual(m.content, [{ type: 'text', text: 'tok1 tok2 ' }]);
  const up = lastUpstream(stack).body as any;
  assert.deepEqual(up.tools.map((t: any) => t.function.name), ['get_weather', 'bash', 'str_replace_based_edit_tool']);
  assert.deepEqual(up.tools[1].function.parameters.properties.command, { type: 'string' });
  assert.deepEqual(up.messages, [
    { role: 'system', content: 'You are terse.' }, { role: 'user', content: [{ type: 'text', text: 'look it up' }] },
    { role: 'assistant', content: 'ok' }, { role: 'user', content: 'go on [sim chunks=2]' },
  ]);
  assert.equal(JSON.stringify(up).includes('cache_control') || JSON.stringify(up).includes('thinking') || '_dropped' in up, false);
  const log = await logLineOf(stack, r.headers.get('request-id') ?? r.headers.get('x-request-id')!);
  assert.deepEqual([log.dropped_tools, log.dropped_blocks], [['web_search_20250305'], ['thinking']]);

  const computer = await fetch(`${stack.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, tools: [{ type: 'computer_20250124', name: 'computer', display_width_px: 1024, display_height_px: 768 }] }) });
  assert.equal(computer.status, 400, 'a client tool with no schema the gateway knows cannot be offered: refused, naming it');
  assert.match(((await computer.json()) as any).error.message, /computer_20250124/);
});
