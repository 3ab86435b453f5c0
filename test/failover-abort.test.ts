// Failover across channels before the first byte, client aborts reaching the upstream, cut streams, and secret-free logs.
import { test as nodeTest, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startStack, fixture, eventually, type Stack } from './helpers/stack.js';
import { client, post, chatUrl, assertShapeA, ledgerOf, logLineOf, sseData } from './helpers/api.js';
import { closedPortUrl } from './helpers/ports.js';

// A stuck stream fails its test (and the after hook still closes the stack) instead of hanging the run.
const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 20_000 }, fn);

let stack: Stack;
let key: string;
let tokenId: string;
const clientKeys: string[] = [];
let abortedRequest: { id: string; charged: number; prompt: number } | undefined;

before(async () => {
  stack = await startStack({ configDir: fixture('failover'), env: { CLOSED_PORT_URL: await closedPortUrl() } });
  ({ key, id: tokenId } = await stack.token());
  clientKeys.push(key);
});
after(() => stack.close());
beforeEach(async () => {
  // Each case starts with every channel closed-circuit: breakers opened by the previous case's faults are forgotten.
  await stack.gw.gateway.breakers.reset();
  stack.sim.control.clearFaults();
  stack.sim.control.clear();
  stack.sim.control.resetStats();
});

const user = (content: string) => [{ role: 'user' as const, content }];
const upstreamKeys = () => stack.sim.control.requests().map((r) => r.headers.authorization);

test('healthy: the priority-10 channel answers in one attempt', async () => {
  const { data, request_id } = await client(stack, key).chat.completions.create({ model: 'gpt-4o-mini', messages: user('hi') }).withResponse();
  assert.equal(data.choices[0].message.content, 'tok1 tok2 tok3 tok4 tok5 ');
  const log = await logLineOf(stack, request_id!);
  assert.equal(log.channel, 'chan_a');
  assert.equal(log.attempts.length, 1);
  assert.deepEqual(upstreamKeys(), ['Bearer key-a']);
});

for (const status of [503, 0, 429]) {
  test(`fault ${status} on key-a: the request succeeds via key-b and the log shows two attempts`, async () => {
    stack.sim.control.addFault({ key: 'key-a', status });
    const { data, request_id } = await client(stack, key).chat.completions.create({ model: 'gpt-4o-mini', messages: user('hi [sim chunks=2]') }).withResponse();
    assert.equal(data.choices[0].message.content, 'tok1 tok2 ');
    assert.deepEqual(upstreamKeys(), ['Bearer key-a', 'Bearer key-b']);
    const log = await logLineOf(stack, request_id!);
    assert.equal(log.status, 200);
    assert.equal(log.channel, 'chan_b');
    assert.equal(log.attempts.length, 2);
    assert.equal(log.attempts[0].channel, 'chan_a');
    if (status === 0) assert.match(log.attempts[0].error, /^network: /);
    else assert.equal(log.attempts[0].status, status);
    assert.equal(log.attempts[1].channel, 'chan_b');
    assert.equal(log.attempts[1].status, 200);
  });
}

test('fault 503 on key-a: a stream fails over too and arrives whole', async () => {
  stack.sim.control.addFault({ key: 'key-a', status: 503 });
  const s = await client(stack, key).chat.completions.create({ model: 'gpt-4o-mini', messages: user('hi [sim chunks=3]'), stream: true });
  let text = '';
  for await (const c of s) text += c.choices[0]?.delta.content ?? '';
  assert.equal(text, 'tok1 tok2 tok3 ');
  assert.deepEqual(upstreamKeys(), ['Bearer key-a', 'Bearer key-b']);
});

const exhausted: [number, number, string, string][] = [
  [503, 502, 'upstream_error', 'Upstream failed: HTTP 503 (2 upstream attempts)'],
  [0, 502, 'upstream_error', 'Upstream failed: network error (2 upstream attempts)'],
  [429, 429, 'too_many_requests', 'Upstream is rate limiting (2 upstream attempts)'],
];
for (const [fault, status, code, message] of exhausted) {
  test(`fault ${fault} on both keys → ${status} ${code} in Shape A, balance refunded`, async () => {
    stack.sim.control.addFault({ key: 'key-a', status: fault });
    stack.sim.control.addFault({ key: 'key-b', status: fault });
    const before = await stack.balance(tokenId);
    const r = await post(chatUrl(stack), { model: 'gpt-4o-mini', messages: user('hi') }, key);
    const id = assertShapeA(r, status, code, 'platform_api_error', message);
    if (fault === 429) assert.equal(r.headers.get('retry-after'), '1');
    assert.deepEqual(upstreamKeys(), ['Bearer key-a', 'Bearer key-b']);
    await eventually(async () => (await ledgerOf(stack, tokenId, id)).length === 2);
    assert.deepEqual((await ledgerOf(stack, tokenId, id)).map((e) => e.kind), ['reserve', 'refund']);
    assert.equal(await stack.balance(tokenId), before);
  });
}

test('connection refused on the first channel fails over to the next', async () => {
  const { data, request_id } = await client(stack, key).chat.completions.create({ model: 'refused-model', messages: user('hi [sim chunks=1]') }).withResponse();
  assert.equal(data.choices[0].message.content, 'tok1 ');
  assert.equal(data.model, 'refused-model');
  const log = await logLineOf(stack, request_id!);
  assert.equal(log.channel, 'chan_backup');
  assert.equal(log.attempts.length, 2);
  assert.equal(log.attempts[0].channel, 'chan_dead');
  assert.match(log.attempts[0].error, /^connect: /);
  assert.deepEqual(upstreamKeys(), ['Bearer sim-key']);
});

test('client abort mid-stream aborts the upstream and bills once for what was delivered', async () => {
  const t = await stack.token({ quota: 10_000 });
  clientKeys.push(t.key);
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: user('long [sim chunks=50 interval_ms=50]'), stream: true });
  const { requestId, received } = await new Promise<{ requestId: string; received: number }>((resolve, reject) => {
    const req = request(chatUrl(stack), { method: 'POST', headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => {
        text += c;
        const n = sseData(text).length;
        if (n >= 3) { req.destroy(); resolve({ requestId: String(res.headers['x-request-id']), received: n }); }
      });
    });
    req.on('error', (e) => { if (!req.destroyed) reject(e); });
    req.end(body);
  });
  await eventually(() => stack.sim.control.stats().streams_aborted === 1);
  assert.equal(stack.sim.control.stats().streams_completed, 0);
  await eventually(async () => (await ledgerOf(stack, t.id, requestId)).length === 2);
  const entries = await ledgerOf(stack, t.id, requestId);
  assert.deepEqual(entries.map((e) => e.kind), ['reserve', 'settle']);
  // No upstream usage arrived: the bill is the prompt estimate (4 bytes a token) plus one token per relayed event,
  // at one unit per token in this fixture.
  const charged = entries[0].amount + entries[1].amount;
  const delivered = charged - Math.ceil(Buffer.byteLength(body) / 4);
  assert.ok(delivered >= received && delivered < 20, `billed for ${delivered} events, ${received} received`);
  assert.equal(await stack.balance(t.id), 10_000 - charged);
  abortedRequest = { id: requestId, charged, prompt: Math.ceil(Buffer.byteLength(body) / 4) };
});

test('the access log of an aborted stream records outcome client_gone and the charge', async () => {
  assert.ok(abortedRequest, 'needs the abort test above');
  const log = await logLineOf(stack, abortedRequest.id);
  assert.equal(log.aborted, true);
  assert.equal(log.outcome, 'client_gone');
  assert.equal(log.usage_estimated, true);
  assert.equal(log.usage?.prompt_tokens, abortedRequest.prompt);
  assert.equal(log.charged, abortedRequest.charged);
});

test('client abort before the upstream answered: the upstream call is cancelled and the reservation refunded', async () => {
  const t = await stack.token({ quota: 10_000 });
  clientKeys.push(t.key);
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: user('slow [sim first_byte_ms=400]'), stream: true });
  const req = request(chatUrl(stack), { method: 'POST', headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' } });
  req.on('error', () => {});
  req.end(body);
  await eventually(() => stack.sim.control.requests().length === 1); // the upstream call is in flight
  req.destroy();
  await new Promise((r) => setTimeout(r, 600)); // past the upstream's first byte
  assert.equal(stack.sim.control.stats().streams_started, 0, 'the upstream request should have been cancelled');
  // A request's reservation reaches the ledger once it closes (write-behind), with its refund.
  const moves = async () => (await stack.gw.store.quota.entries(t.id)).filter((e) => e.kind !== 'topup');
  await eventually(async () => (await moves()).length === 2, 1500);
  assert.deepEqual((await moves()).map((e) => e.kind), ['reserve', 'refund']);
  assert.equal(await stack.balance(t.id), 10_000);
});

test('aborting the openai client stream (AbortController) also cancels the upstream', async () => {
  const ac = new AbortController();
  const s = await client(stack, key).chat.completions.create(
    { model: 'gpt-4o-mini', messages: user('long [sim chunks=50 interval_ms=50]'), stream: true }, { signal: ac.signal },
  );
  let n = 0;
  try {
    for await (const _ of s) if (++n === 2) ac.abort();
  } catch (e) {
    assert.equal((e as Error).name, 'APIUserAbortError'); // the client may end quietly or throw its abort error
  }
  await eventually(() => stack.sim.control.stats().streams_aborted === 1);
  assert.equal(n, 2);
});

async function rawStream(content: string): Promise<{ events: string[]; id: string }> {
  const res = await fetch(chatUrl(stack), {
    method: 'POST', signal: AbortSignal.timeout(5000),
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: user(content), stream: true }),
  });
  assert.equal(res.status, 200);
  return { events: sseData(await res.text()), id: res.headers.get('x-request-id')! };
}

test('upstream cut mid-stream: the client gets a final error event, then [DONE]', async () => {
  const { events, id } = await rawStream('cut [sim cut_after=2]');
  assert.equal(events.length, 5, events.join('\n'));
  assert.deepEqual(events.slice(1, 3).map((e) => JSON.parse(e).choices[0].delta.content), ['tok1 ', 'tok2 ']);
  assert.deepEqual(JSON.parse(events[3]), {
    error: { message: 'upstream stream ended unexpectedly', type: 'platform_api_error', param: '', code: 'bad_response_body' },
  });
  assert.equal(events[4], '[DONE]');
  const log = await logLineOf(stack, id);
  assert.equal(log.outcome, 'upstream_cut');
  await eventually(async () => (await ledgerOf(stack, tokenId, id)).length === 2);
  assert.deepEqual((await ledgerOf(stack, tokenId, id)).map((e) => e.kind), ['reserve', 'settle']);
});

test('upstream error event mid-stream: relayed once, then [DONE], no gateway error added', async () => {
  const { events } = await rawStream('boom [sim error_after=1]');
  assert.equal(events.length, 4, events.join('\n'));
  assert.equal(JSON.parse(events[1]).choices[0].delta.content, 'tok1 ');
  assert.equal(JSON.parse(events[2]).error.message, 'upstream exploded');
  assert.equal(events[3], '[DONE]');
});

test('no log line contains a client key or a channel key', async () => {
  const raw = stack.rawLogs();
  assert.ok(stack.logs().filter((l) => l.msg === 'request').length >= 10);
  for (const secret of [...clientKeys, 'sim-key', 'key-a', 'key-b', 'key-c']) {
    assert.equal(raw.includes(secret), false, `log contains ${secret}`);
  }
});

test('circuit breaker: a channel failing repeatedly is skipped, then probed and closed again on success', async () => {
  const breakers = stack.gw.gateway.breakers;
  stack.sim.control.addFault({ key: 'key-a', status: 500 });
  for (let i = 0; i < 5; i++) assert.equal((await post(chatUrl(stack), { model: 'gpt-4o-mini', messages: user('hi') }, key)).status, 200);
  assert.deepEqual(breakers.openChannels(), ['chan_a']);
  stack.sim.control.clear();
  assert.equal((await post(chatUrl(stack), { model: 'gpt-4o-mini', messages: user('hi') }, key)).status, 200);
  assert.ok(!upstreamKeys().includes('Bearer key-a'), 'the open channel gets no traffic');
  stack.sim.control.clearFaults();
  // The cool-down is over: here and in the store, whose record of the opening expires with it (else the breakers'
  // sync, every 2 s, could bring the opening back from the store before the probe).
  await stack.gw.store.kv('breakers').delete('chan_a');
  (breakers as any).states.get('chan_a').openUntil = Date.now() - 1;
  assert.equal((await post(chatUrl(stack), { model: 'gpt-4o-mini', messages: user('hi') }, key)).status, 200);
  assert.deepEqual(breakers.openChannels(), [], 'the probe succeeded and closed the breaker');
});

test('Retry-After on a 429 skips that channel for that long: back-pressure, not a failure (its breaker stays closed)', async () => {
  stack.sim.control.addFault({ key: 'key-a', status: 429, headers: { 'retry-after': '30' }, times: 1 });
  assert.equal((await post(chatUrl(stack), { model: 'gpt-4o-mini', messages: user('hi') }, key)).status, 200);
  const breakers = stack.gw.gateway.breakers;
  assert.deepEqual(breakers.openChannels(), []);
  assert.ok(breakers.throttledFor(['chan_a'])! > 25_000);
  stack.sim.control.clear();
  assert.equal((await post(chatUrl(stack), { model: 'gpt-4o-mini', messages: user('hi') }, key)).status, 200);
  assert.ok(!upstreamKeys().includes('Bearer key-a'), 'the throttled channel gets no traffic until its Retry-After');
});
