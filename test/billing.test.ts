// Billing: every request is charged exactly once at the channels.yaml price, and failures refund the whole reservation.
import { test as nodeTest, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { startStack, eventually, type Stack } from './helpers/stack.js';
import { client, post, chatUrl, assertShapeA, ledgerOf, logLineOf, expectedCharge, shippedPrice } from './helpers/api.js';

// A stuck stream fails its test (and the after hook still closes the stack) instead of hanging the run.
const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 20_000 }, fn);

let stack: Stack;
const price = shippedPrice('gpt-4o');

// 399 filler words + "[sim" + "chunks=940]" = 401 prompt words; 940 completion tokens.
// At the shipped gpt-4o prices (2500/10000) that is 10.4025 units: ceil gives 11 where round or floor give 10.
const PROMPT = 401;
const COMPLETION = 940;
const messages = [{ role: 'user' as const, content: `${'w '.repeat(399)}[sim chunks=${COMPLETION}]` }];
const CHARGE = expectedCharge(price, PROMPT, COMPLETION);

before(async () => { stack = await startStack({ env: { OPENAI_API_KEY: '' } }); });
after(() => stack.close());
afterEach(() => stack.sim.control.clearFaults());

/** Checks one request's ledger: one reserve, one close, and the net movement equals the balance change. */
async function assertBilledOnce(account: string, requestId: string, before: number, charged: number, closeKind = 'settle') {
  await eventually(async () => (await ledgerOf(stack, account, requestId)).length >= 2);
  const entries = await ledgerOf(stack, account, requestId);
  assert.deepEqual(entries.map((e) => e.kind), ['reserve', closeKind]);
  assert.deepEqual(entries.map((e) => e.entry), [`${requestId}:reserve`, `${requestId}:close`]);
  assert.ok(entries[0].amount > 0, `reserved ${entries[0].amount}`);
  const after = (await stack.balance(account))!;
  assert.equal(before - after, charged, `balance ${before} → ${after}`);
  // Ledger amounts are debits: minus their sum is the balance change.
  const net = entries.reduce((s, e) => s + e.amount, 0);
  assert.equal(after - before + net, 0, `ledger net ${net}, balance change ${after - before}`);
}

test('the token counts make the ceiling matter at the shipped gpt-4o price', () => {
  const exact = (PROMPT * price.input_per_mtok + COMPLETION * price.output_per_mtok) / 1e6;
  assert.equal(Number.isInteger(exact), false, `exact charge ${exact}`);
  assert.equal(CHARGE, Math.floor(exact) + 1);
});

test('non-stream: charged exactly once at the price of the upstream usage', async () => {
  const t = await stack.token();
  const before = (await stack.balance(t.id))!;
  const { data, request_id } = await client(stack, t.key).chat.completions.create({ model: 'gpt-4o', messages }).withResponse();
  assert.equal(data.usage?.prompt_tokens, PROMPT);
  assert.equal(data.usage?.completion_tokens, COMPLETION);
  await assertBilledOnce(t.id, request_id!, before, CHARGE);
  const log = await logLineOf(stack, request_id!);
  assert.equal(log.charged, CHARGE);
  assert.equal(log.usage_estimated, undefined);
});

async function streamCharge(includeUsage: boolean) {
  const t = await stack.token();
  const before = (await stack.balance(t.id))!;
  const { data, request_id } = await client(stack, t.key).chat.completions.create({
    model: 'gpt-4o', messages, stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
  }).withResponse();
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const c of data) chunks.push(c);
  assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('').split(' ').filter(Boolean).length, COMPLETION);
  await assertBilledOnce(t.id, request_id!, before, CHARGE);
  return chunks;
}

test('stream with include_usage: charged exactly once, usage shown to the client', async () => {
  const chunks = await streamCharge(true);
  assert.equal(chunks.at(-1)!.usage?.prompt_tokens, PROMPT);
  assert.equal(chunks.at(-1)!.usage?.completion_tokens, COMPLETION);
});

test('stream without include_usage: still charged the upstream usage exactly once', async () => {
  const chunks = await streamCharge(false);
  assert.equal(chunks.filter((c) => c.usage).length, 0);
});

test('balance after several requests is the initial quota minus the sum of the charges', async () => {
  const t = await stack.token({ quota: 5000 });
  const ai = client(stack, t.key);
  await ai.chat.completions.create({ model: 'gpt-4o', messages });
  const s = await ai.chat.completions.create({ model: 'gpt-4o', messages, stream: true });
  for await (const _ of s) { /* drain */ }
  await eventually(async () => (await stack.gw.store.quota.entries(t.id)).length === 4);
  assert.equal(await stack.balance(t.id), 5000 - 2 * CHARGE);
  const entries = await stack.gw.store.quota.entries(t.id);
  assert.equal(entries.reduce((s, e) => s + e.amount, 0), 2 * CHARGE, 'the token\'s ledger holds what its wallet paid');
});

test('upstream 500 on every key before any byte: 502 upstream_error and a full refund', async () => {
  stack.sim.control.addFault({ status: 500 });
  const t = await stack.token();
  const before = (await stack.balance(t.id))!;
  const r = await post(chatUrl(stack), { model: 'gpt-4o', messages }, t.key);
  const id = assertShapeA(r, 502, 'upstream_error', 'platform_api_error', 'Upstream failed: HTTP 500 (1 upstream attempt)');
  await assertBilledOnce(t.id, id, before, 0, 'refund');
  const s = await post(chatUrl(stack), { model: 'gpt-4o', messages, stream: true }, t.key);
  const sid = assertShapeA(s, 502, 'upstream_error', 'platform_api_error');
  await assertBilledOnce(t.id, sid, before, 0, 'refund');
});

test('upstream 400: the status is relayed in Shape A and the reservation refunded', async () => {
  const t = await stack.token();
  const before = (await stack.balance(t.id))!;
  const r = await post(chatUrl(stack), { model: 'gpt-4o', messages: [{ role: 'user', content: 'bad [sim status=400]' }] }, t.key);
  const id = assertShapeA(r, 400, 'upstream_error', 'invalid_request_error', 'Simulated error (HTTP 400).');
  await assertBilledOnce(t.id, id, before, 0, 'refund');
});

test('upstream 200 with an unusable body: 502 bad_response_body and a full refund', async () => {
  const t = await stack.token();
  const before = (await stack.balance(t.id))!;
  const r = await post(chatUrl(stack), { model: 'gpt-4o', messages: [{ role: 'user', content: 'x [sim malformed=1]' }] }, t.key);
  const id = assertShapeA(r, 502, 'bad_response_body', 'platform_api_error', 'Bad upstream response body: upstream body is not valid JSON');
  await assertBilledOnce(t.id, id, before, 0, 'refund');
  // A stream request answered with JSON instead of SSE.
  stack.sim.control.addFault({ status: 200, body: '{"id":"not-a-stream"}' });
  const s = await post(chatUrl(stack), { model: 'gpt-4o', messages, stream: true }, t.key);
  const sid = assertShapeA(s, 502, 'bad_response_body', 'platform_api_error', 'expected text/event-stream, got application/json');
  await assertBilledOnce(t.id, sid, before, 0, 'refund');
});
