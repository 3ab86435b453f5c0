// Simulator chaos through the gateway (chat): mid-stream cuts and errors, slow first bytes, 429 everywhere, malformed SSE and JSON.
import { test as nodeTest, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, fixture, eventually, type Stack } from './helpers/stack.js';
import { chatUrl, assertShapeA, ledgerOf, logLineOf, sseData, type RawReply } from './helpers/api.js';

// Every test has a hard deadline: a stream that never ends fails its test instead of hanging the run.
const test = (name: string, fn: () => Promise<void>) => nodeTest(name, { timeout: 15_000 }, fn);

let stack: Stack;
let key: string;
let tokenId: string;
const QUOTA = 1_000_000;

before(async () => {
  stack = await startStack({ configDir: fixture('chaos') });
  ({ key, id: tokenId } = await stack.token({ quota: QUOTA }));
});
after(() => stack.close());
beforeEach(async () => {
  // Each case starts with every channel's circuit closed: openings caused by the previous case's faults are forgotten.
  await stack.gw.gateway.breakers.reset();
  stack.sim.control.clearFaults();
  stack.sim.control.clear();
  stack.sim.control.resetStats();
});

const MODELS = ['gpt-4o-mini', 'legacy-chat']; // unified relay, and a channel with a chunk transform
const contentOf = (events: string[]) => events.map((e) => { try { return JSON.parse(e).choices?.[0]?.delta?.content ?? ''; } catch { return ''; } }).join('');
const gatewayCut = { error: { message: 'upstream stream ended unexpectedly', type: 'platform_api_error', param: '', code: 'bad_response_body' } };

/** One chat call with a deadline; the raw body and its size (the prompt estimate is a quarter of it). */
async function chat(model: string, content: string, stream: boolean): Promise<RawReply & { events: string[]; id: string; bytes: number; ms: number }> {
  const raw = JSON.stringify({ model, stream, messages: [{ role: 'user', content }] });
  const t0 = Date.now();
  const res = await fetch(chatUrl(stack), {
    method: 'POST', body: raw, signal: AbortSignal.timeout(8000), headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json, events: sseData(text), id: res.headers.get('x-request-id')!, bytes: Buffer.byteLength(raw), ms: Date.now() - t0 };
}

/** The request's two ledger entries once both landed: how it was closed and what it cost in the end. */
async function billed(requestId: string): Promise<{ close: string; charged: number }> {
  await eventually(async () => (await ledgerOf(stack, tokenId, requestId)).length === 2);
  const [reserve, close] = await ledgerOf(stack, tokenId, requestId);
  assert.equal(reserve.kind, 'reserve');
  assert.ok(reserve.amount > 0);
  return { close: close.kind, charged: reserve.amount + close.amount };
}

for (const model of MODELS) {
  test(`${model}: upstream cut mid-stream → the chunks delivered, one final error event, then [DONE]; billed estimate + delivered events`, async () => {
    const r = await chat(model, 'cut [sim cut_after=2]', true);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    assert.equal(contentOf(r.events), 'tok1 tok2 ', r.text);
    assert.equal(r.events.length, 5, r.text); // role chunk, tok1, tok2, the gateway's error, [DONE]
    assert.deepEqual(JSON.parse(r.events[3]), gatewayCut);
    assert.equal(r.events[4], '[DONE]');
    assert.equal((await logLineOf(stack, r.id)).outcome, 'upstream_cut');
    // No usage arrived: the prompt estimate (4 bytes a token) plus one token per delivered event, at 1 unit a token.
    assert.deepEqual(await billed(r.id), { close: 'settle', charged: Math.ceil(r.bytes / 4) + 3 });
  });

  test(`${model}: upstream error event mid-stream → relayed once, then [DONE], no gateway error added`, async () => {
    const r = await chat(model, 'boom [sim error_after=1]', true);
    assert.equal(r.status, 200);
    assert.equal(r.events.length, 4, r.text); // role chunk, tok1, the upstream's error, [DONE]
    assert.equal(contentOf(r.events), 'tok1 ');
    assert.equal(JSON.parse(r.events[2]).error.message, 'upstream exploded');
    assert.equal(r.events.filter((e) => e.includes('"error"')).length, 1, r.text);
    assert.equal(r.events[3], '[DONE]');
    assert.deepEqual(await billed(r.id), { close: 'settle', charged: Math.ceil(r.bytes / 4) + 3 });
    // The documented stream outcomes are done, client_gone, upstream_cut, upstream_error, idle_timeout.
    assert.equal((await logLineOf(stack, r.id)).outcome, 'upstream_error');
  });

  test(`${model}: malformed non-stream JSON → 502 bad_response_body and a full refund`, async () => {
    const before = await stack.balance(tokenId);
    const r = await chat(model, 'x [sim malformed=1]', false);
    assertShapeA(r, 502, 'bad_response_body', 'platform_api_error', 'Bad upstream response body: upstream body is not valid JSON');
    assert.equal(stack.sim.control.requests().length, 1, 'a 200 with a broken body is not retried elsewhere');
    assert.deepEqual(await billed(r.id), { close: 'refund', charged: 0 });
    assert.equal(await stack.balance(tokenId), before);
  });
}

test('gpt-4o-mini (unified relay): a malformed SSE event is relayed verbatim and the stream goes on to [DONE], billed by usage', async () => {
  const r = await chat('gpt-4o-mini', 'bad [sim chunks=3 malformed=1]', true);
  assert.equal(r.status, 200);
  assert.equal(r.events[1], '{not json', r.text);
  assert.equal(contentOf(r.events), 'tok1 tok2 tok3 ');
  assert.equal(r.events.filter((e) => e.includes('"error"')).length, 0, r.text);
  assert.equal(r.events.at(-1), '[DONE]');
  const log = await logLineOf(stack, r.id);
  assert.equal(log.outcome, 'done');
  assert.ok(!log.usage_estimated);
  // The upstream's usage: 4 prompt words (the directive counts), 3 completion tokens.
  assert.deepEqual(await billed(r.id), { close: 'settle', charged: 4 + 3 });
});

test('legacy-chat (chunk transform): a malformed SSE event is dropped and the stream goes on to [DONE], billed by usage', async () => {
  const r = await chat('legacy-chat', 'bad [sim chunks=3 malformed=1]', true);
  assert.equal(r.status, 200);
  assert.ok(r.events.every((e) => e === '[DONE]' || JSON.parse(e).model === 'legacy-chat'), r.text);
  assert.equal(contentOf(r.events), 'tok1 tok2 tok3 ');
  assert.equal(r.events.filter((e) => e.includes('"error"')).length, 0, r.text);
  assert.equal(r.events.at(-1), '[DONE]');
  assert.equal((await logLineOf(stack, r.id)).outcome, 'done');
  assert.deepEqual(await billed(r.id), { close: 'settle', charged: 4 + 3 });
});

for (const stream of [false, true]) {
  test(`slow first byte on the first channel (stream=${stream}): fails over after first_byte_ms and the client never notices`, async () => {
    stack.sim.control.addFault({ key: 'key-a', status: 503, delay_ms: 3000, times: 1 });
    const r = await chat('gpt-4o-mini', 'slow [sim chunks=2]', stream);
    assert.equal(r.status, 200, r.text);
    assert.equal(stream ? contentOf(r.events) : r.json.choices[0].message.content, 'tok1 tok2 ');
    assert.ok(r.ms >= 400 && r.ms < 2500, `answered after ${r.ms} ms`);
    const log = await logLineOf(stack, r.id);
    assert.equal(log.channel, 'chan_b');
    assert.deepEqual(log.attempts.map((a: { channel: string }) => a.channel), ['chan_a', 'chan_b']);
    assert.match(log.attempts[0].error, /^timeout: no response within 400 ms/);
    assert.equal(log.attempts[1].status, 200);
    assert.deepEqual(await billed(r.id), { close: 'settle', charged: 3 + 2 });
  });

  test(`slow first byte on every channel (stream=${stream}): 504 upstream_timeout before any byte, full refund`, async () => {
    const before = await stack.balance(tokenId);
    const r = await chat('gpt-4o-mini', 'slow [sim first_byte_ms=3000]', stream);
    assertShapeA(r, 504, 'upstream_timeout', 'platform_api_error', 'Upstream timed out (2 upstream attempts)');
    assert.ok(r.ms >= 800 && r.ms < 2500, `answered after ${r.ms} ms`);
    assert.deepEqual(stack.sim.control.requests().map((q) => q.headers.authorization), ['Bearer key-a', 'Bearer key-b']);
    assert.deepEqual(await billed(r.id), { close: 'refund', charged: 0 });
    assert.equal(await stack.balance(tokenId), before);
  });

  test(`429 with Retry-After on every channel (stream=${stream}): 429 too_many_requests with retry-after, full refund`, async () => {
    for (const k of ['key-a', 'key-b']) stack.sim.control.addFault({ key: k, status: 429, headers: { 'retry-after': '17' } });
    const r = await chat('gpt-4o-mini', 'busy', stream);
    assertShapeA(r, 429, 'too_many_requests', 'platform_api_error', 'Upstream is rate limiting (2 upstream attempts)');
    assert.equal(r.headers.get('retry-after'), '17');
    assert.deepEqual(stack.sim.control.requests().map((q) => q.headers.authorization), ['Bearer key-a', 'Bearer key-b']);
    assert.deepEqual(await billed(r.id), { close: 'refund', charged: 0 });
  });
}

test('a first-byte bound changed at runtime applies to the next request', async () => {
  const chan = stack.gw.gateway.runtime.channels.find((c) => c.id === 'chan_a')!;
  const saved = chan.timeouts;
  chan.timeouts = { ...saved, first_byte_ms: 150 };
  try {
    const r = await chat('gpt-4o-mini', 'hi [sim first_byte_ms=300 chunks=1]', false);
    assert.equal(r.status, 200, r.text);
    const log = await logLineOf(stack, r.id);
    assert.match(log.attempts[0].error, /^timeout: no response within 150 ms/);
    assert.equal(log.channel, 'chan_b');
  } finally {
    chan.timeouts = saved;
  }
});
