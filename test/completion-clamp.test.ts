// A completion limit above the model's `max_output_tokens` (a coding agent's default of 32000 on a 16384 model) is
// lowered to the maximum: what is reserved, what the vendor gets, said in `x-switchyard-clamped` and the access line;
// for every dialect's field. A model with `over_limit: refuse` keeps the 400; bad numbers are 400 in both modes.
import { test as nodeTest, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { eventually, startStack, type Stack } from './helpers/stack.js';
import { client, ledgerOf, logLineOf, post } from './helpers/api.js';
import { anthropic, lastUpstream } from './helpers/anthropic.js';
import { quickTaskConfig } from './helpers/child-gateway.js';
import { readCompletionLimit, withClamped } from '../src/billing/completion-limit.js';
import { GatewayError } from '../src/http/errors.js';

const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 20_000 }, fn);

let stack: Stack;
let strict: Stack; // legacy-chat (max_output_tokens 4096) set to `over_limit: refuse`
let key: string;
let id: string;
let ai: OpenAI;

before(async () => {
  stack = await startStack({ env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } });
  strict = await startStack({ configDir: quickTaskConfig({}, [[['models', 'legacy-chat', 'over_limit'], 'refuse']]) });
  ({ key, id } = await stack.token({ quota: 10_000_000 }));
  ai = client(stack, key);
});
after(async () => { await stack.close(); await strict.close(); });
beforeEach(() => stack.sim.control.clear());

const messages = [{ role: 'user' as const, content: 'hi [sim chunks=3]' }];

/** The request's reserve amount and what it was charged (reserve + settle), once it settled. */
async function money(requestId: string): Promise<{ reserved: number; charged: number }> {
  await eventually(async () => (await ledgerOf(stack, id, requestId)).length >= 2);
  const [reserve, settle] = await ledgerOf(stack, id, requestId);
  assert.deepEqual([reserve.kind, settle.kind], ['reserve', 'settle']);
  return { reserved: reserve.amount, charged: reserve.amount + settle.amount };
}

/** What the same request reserves when it asks for the model's maximum itself ("16384" is as long as "32000"). */
async function reservedAtMax(field: string): Promise<number> {
  const r = await ai.chat.completions.create({ model: 'gpt-4o', messages, [field]: 16384 } as never).withResponse();
  assert.equal(r.response.headers.get('x-switchyard-clamped'), null, 'a limit at the maximum is not clamped');
  return (await money(r.response.headers.get('x-request-id')!)).reserved;
}

test('chat, non-stream: max_tokens 32000 on gpt-4o (16384) is sent and reserved as 16384, with a header and a log field', async () => {
  const atMax = await reservedAtMax('max_tokens');
  const { data, response } = await ai.chat.completions.create({ model: 'gpt-4o', messages, max_tokens: 32000 }).withResponse();
  assert.equal(data.choices[0].message.content, 'tok1 tok2 tok3 ');
  assert.equal(response.headers.get('x-switchyard-clamped'), 'max_tokens=32000;to=16384');
  assert.equal((lastUpstream(stack).body as { max_tokens: number }).max_tokens, 16384, 'the simulator saw the clamped value');
  const requestId = response.headers.get('x-request-id')!;
  const { reserved, charged } = await money(requestId);
  assert.equal(reserved, atMax, 'reserved exactly as for max_tokens 16384');
  assert.ok(charged > 0 && charged <= reserved);
  assert.equal((await logLineOf(stack, requestId)).clamped, 'max_tokens=32000;to=16384');
});

test('chat, stream: max_completion_tokens 32000 is clamped the same way; the header comes with the event stream', async () => {
  const atMax = await reservedAtMax('max_completion_tokens');
  const { data, response } = await ai.chat.completions.create({ model: 'gpt-4o', messages, max_completion_tokens: 32000, stream: true }).withResponse();
  let text = '';
  for await (const c of data) text += c.choices[0]?.delta.content ?? '';
  assert.equal(text, 'tok1 tok2 tok3 ');
  assert.equal(response.headers.get('x-switchyard-clamped'), 'max_completion_tokens=32000;to=16384');
  assert.equal((lastUpstream(stack).body as { max_completion_tokens: number }).max_completion_tokens, 16384);
  const { reserved, charged } = await money(response.headers.get('x-request-id')!);
  assert.equal(reserved, atMax);
  assert.ok(charged > 0 && charged <= reserved);
});

test('both fields above the maximum: both are lowered and both named; a huge whole number is clamped too', async () => {
  const r = await post(`${stack.url}/v1/chat/completions`, { model: 'gpt-4o', messages, max_tokens: 2 ** 31 - 1, max_completion_tokens: 20000 }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('x-switchyard-clamped'), 'max_completion_tokens=20000;to=16384, max_tokens=2147483647;to=16384');
  const up = lastUpstream(stack).body as Record<string, number>;
  assert.deepEqual([up.max_tokens, up.max_completion_tokens], [16384, 16384]);
});

test('a limit at or under the maximum passes unchanged and without a header', async () => {
  const { response } = await ai.chat.completions.create({ model: 'gpt-4o', messages, max_tokens: 100 }).withResponse();
  assert.equal(response.headers.get('x-switchyard-clamped'), null);
  assert.equal((lastUpstream(stack).body as { max_tokens: number }).max_tokens, 100);
});

test('Responses client: max_output_tokens 32000 becomes the chat vendor\'s max_completion_tokens 16384, and 16384 on a native Responses vendor', async () => {
  const { data, response } = await ai.responses.create({ model: 'compat-chat', input: 'hi [sim chunks=2]', max_output_tokens: 32000 }).withResponse();
  assert.equal(data.status, 'completed');
  assert.equal(response.headers.get('x-switchyard-clamped'), 'max_output_tokens=32000;to=16384');
  assert.equal((lastUpstream(stack).body as { max_completion_tokens: number }).max_completion_tokens, 16384);
  const native = await ai.responses.create({ model: 'gpt-4o-mini', input: 'hi [sim chunks=2]', max_output_tokens: 32000 }).withResponse();
  assert.equal(native.response.headers.get('x-switchyard-clamped'), 'max_output_tokens=32000;to=16384');
  const up = lastUpstream(stack);
  assert.equal(up.path, '/v1/responses');
  assert.equal((up.body as { max_output_tokens: number }).max_output_tokens, 16384, 'the untouched body was rewritten for the limit only');
});

test('Messages client: max_tokens above the model is clamped, on a translated and on an untouched (Messages) vendor', async () => {
  const claude = anthropic(stack, key);
  const translated = await claude.messages.create({ model: 'gpt-4o-mini', max_tokens: 32000, messages }).withResponse();
  assert.equal(translated.response.headers.get('x-switchyard-clamped'), 'max_tokens=32000;to=16384');
  assert.equal((lastUpstream(stack).body as { max_completion_tokens: number }).max_completion_tokens, 16384);
  const stream = await claude.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100000, messages, stream: true }).withResponse();
  for await (const _ of stream.data) { /* drain */ }
  assert.equal(stream.response.headers.get('x-switchyard-clamped'), 'max_tokens=100000;to=64000');
  const up = lastUpstream(stack);
  assert.equal(up.path, '/v1/messages');
  assert.equal((up.body as { max_tokens: number }).max_tokens, 64000, 'the untouched body was rewritten for the limit only');
  assert.deepEqual((up.body as { messages: unknown }).messages, messages);
});

test('bad limits are 400 naming the field in clamp mode too, before anything is reserved', async () => {
  const { key: k, id: account } = await stack.token({ quota: 1_000_000 });
  for (const [field, value] of [['max_tokens', 0], ['max_tokens', -1], ['max_tokens', 1.5], ['max_completion_tokens', 2 ** 31],
    ['max_tokens', 1e20], ['max_tokens', 'lots'], ['max_tokens', '32e3'], ['max_completion_tokens', true]] as const) {
    const r = await post(`${stack.url}/v1/chat/completions`, { model: 'gpt-4o', messages, [field]: value }, k);
    assert.equal(r.status, 400, `${field}: ${JSON.stringify(value)} → ${r.status} ${r.text}`);
    assert.ok(r.json.error.message.includes(`\`${field}\``), r.json.error.message);
    assert.equal(r.headers.get('x-switchyard-clamped'), null);
  }
  const r = await post(`${stack.url}/v1/responses`, { model: 'gpt-4o-mini', input: 'x', max_output_tokens: 0 }, k);
  assert.equal(r.status, 400);
  assert.match(r.json.error.message, /`max_output_tokens`/);
  assert.equal(await stack.balance(account), 1_000_000, 'nothing was reserved');
});

test('over_limit: refuse keeps the 400 naming the field and the model\'s bound; within it the request passes', async () => {
  const { key: k, id: account } = await strict.token({ quota: 1_000_000 });
  const r = await post(`${strict.url}/v1/chat/completions`, { model: 'legacy-chat', messages, max_tokens: 32000 }, k);
  assert.equal(r.status, 400, r.text);
  assert.equal(r.json.error.code, 'invalid_request');
  assert.match(r.json.error.message, /^`max_tokens` must be a whole number of tokens from 1 to 4096 /);
  assert.equal(r.headers.get('x-switchyard-clamped'), null);
  assert.equal(await strict.balance(account), 1_000_000);
  const ok = await post(`${strict.url}/v1/chat/completions`, { model: 'legacy-chat', messages, max_tokens: 4096 }, k);
  assert.equal(ok.status, 200, ok.text);
  // The other models of that config still clamp.
  const other = await post(`${strict.url}/v1/chat/completions`, { model: 'gpt-4o-mini', messages, max_tokens: 32000 }, k);
  assert.equal(other.status, 200, other.text);
  assert.equal(other.headers.get('x-switchyard-clamped'), 'max_tokens=32000;to=16384');
});

test('the mechanism is the route\'s field list: a nested field (Gemini\'s generationConfig.maxOutputTokens) is lowered in a copy', () => {
  const model = { max_output_tokens: 8192, price: {} };
  const paths = [['generationConfig', 'maxOutputTokens']];
  const body = { contents: [], generationConfig: { temperature: 0.2, maxOutputTokens: 65536 } };
  const limit = readCompletionLimit(paths, model, body);
  assert.deepEqual(limit, { tokens: 8192, clamped: [{ field: 'generationConfig.maxOutputTokens', asked: 65536, to: 8192 }] });
  assert.deepEqual(withClamped(body, limit.clamped), { contents: [], generationConfig: { temperature: 0.2, maxOutputTokens: 8192 } });
  assert.equal(body.generationConfig.maxOutputTokens, 65536, 'the parsed body is not changed in place');
  assert.deepEqual(readCompletionLimit(paths, model, { generationConfig: { maxOutputTokens: 100 } }), { tokens: 100, clamped: [] });
  assert.deepEqual(readCompletionLimit(paths, model, { generationConfig: {} }), { tokens: undefined, clamped: [] });
  assert.throws(() => readCompletionLimit(paths, { ...model, over_limit: 'refuse' }, body),
    (e: unknown) => e instanceof GatewayError && e.message === '`generationConfig.maxOutputTokens` must be a whole number of tokens from 1 to 8192');
  assert.throws(() => readCompletionLimit(paths, model, { generationConfig: { maxOutputTokens: '8k' } }), /`generationConfig\.maxOutputTokens`/);
});
