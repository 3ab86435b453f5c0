// OpenTelemetry: each request a trace exported over OTLP/HTTP to a real receiver: server span → stage spans →
// attempt spans, GenAI and HTTP attributes, no secret anywhere in the export, the client's traceparent continued to
// the vendor, failover as two attempts, cut and abandoned streams still ending every span, task polls linked to their
// submit across a restart, the protobuf encoding, the flush on stop, and nothing at all when the variables are unset.
import { test as nodeTest, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startStack, fixture, eventually, type Stack } from './helpers/stack.js';
import { startOtlpReceiver, SpanKind, type ExportedSpan, type OtlpReceiver } from './helpers/otlp-receiver.js';
import { chatUrl, sseData } from './helpers/api.js';
import { closedPortUrl } from './helpers/ports.js';

const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 30_000 }, fn);

const otelEnv = (r: OtlpReceiver, more: Record<string, string> = {}) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '20',
  OTEL_SERVICE_NAME: 'gateway-under-test', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test,team=ai%20platform',
  OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-auth=collector-secret-123', ...more,
});

let receiver: OtlpReceiver;
let stack: Stack;
let key: string;
let tokenId: string;

before(async () => {
  receiver = await startOtlpReceiver();
  stack = await startStack({ configDir: fixture('failover'), env: { ...otelEnv(receiver), CLOSED_PORT_URL: await closedPortUrl() } });
  const t = await stack.gw.gateway.tokens.create({ group: 'default', quota: 1_000_000_000, name: 'ci-bot' });
  ({ key } = t);
  tokenId = t.record.id;
});
after(async () => { await stack.close(); await receiver.close(); });
beforeEach(async () => {
  await stack.gw.gateway.breakers.reset();
  stack.sim.control.clearFaults();
  stack.sim.control.clear();
});

const hex = (n: number) => randomBytes(n).toString('hex');
const user = (content: string) => [{ role: 'user', content }];

/** A chat request carrying the client's own trace context; answers the status, the text and the trace id sent. */
async function chat(content: string, opts: { stream?: boolean; query?: string; abortAfter?: number } = {}) {
  const traceId = hex(16);
  const parent = hex(8);
  const ac = new AbortController();
  const res = await fetch(`${chatUrl(stack)}${opts.query ?? ''}`, {
    method: 'POST', signal: ac.signal,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent: `00-${traceId}-${parent}-01`, tracestate: 'client=abc' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: user(content), stream: opts.stream ?? false }),
  });
  if (opts.abortAfter === undefined) return { res, text: await res.text(), traceId, parent };
  const reader = res.body!.getReader();
  for (let n = 0; n < opts.abortAfter; n++) await reader.read();
  ac.abort();
  return { res, text: '', traceId, parent };
}

/** The spans of one trace once its server span has arrived (and every span it waits for, by count). */
async function traceOf(traceId: string, min = 1): Promise<ExportedSpan[]> {
  await eventually(async () => {
    await stack.gw.gateway.tracing!.flush();
    const spans = receiver.spans().filter((s) => s.traceId === traceId);
    return spans.length >= min && spans.some((s) => s.kind === SpanKind.SERVER);
  }, 5000);
  return receiver.spans().filter((s) => s.traceId === traceId);
}

const childrenOf = (spans: ExportedSpan[], parent: ExportedSpan) => spans.filter((s) => s.parentSpanId === parent.spanId);
const one = (spans: ExportedSpan[], name: string) => {
  const found = spans.filter((s) => s.name === name);
  assert.equal(found.length, 1, `one span ${name}: ${spans.map((s) => s.name).join(', ')}`);
  return found[0];
};

test('a chat request is one trace: the client\'s trace continued, server span → stage spans → attempt span, with GenAI, token and route attributes', async () => {
  const { res, traceId, parent } = await chat('hi', { query: '?api_key=query-secret-456' });
  assert.equal(res.status, 200);
  const spans = await traceOf(traceId, 10);
  const server = one(spans, 'POST /v1/chat/completions');
  assert.equal(server.kind, SpanKind.SERVER);
  assert.equal(server.parentSpanId, parent, 'the server span continues the client\'s traceparent');
  assert.equal(server.resource['service.name'], 'gateway-under-test');
  assert.equal(server.resource.team, 'ai platform');
  assert.equal(server.resource['deployment.environment.name'], 'test');
  assert.deepEqual(pick(server.attributes, ['http.request.method', 'http.route', 'http.response.status_code', 'url.path', 'switchyard.route',
    'switchyard.token.id', 'switchyard.token.name', 'gen_ai.operation.name', 'gen_ai.request.model', 'gen_ai.response.model', 'gen_ai.provider.name']), {
    'http.request.method': 'POST', 'http.route': '/v1/chat/completions', 'http.response.status_code': 200, 'url.path': '/v1/chat/completions',
    'switchyard.route': 'chat_completions', 'switchyard.token.id': tokenId, 'switchyard.token.name': 'ci-bot', 'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.response.model': 'gpt-4o-mini', 'gen_ai.provider.name': 'chat',
  });
  assert.ok(Number(server.attributes['gen_ai.usage.input_tokens']) > 0);
  assert.equal(server.attributes['gen_ai.usage.output_tokens'], 5);

  const stages = childrenOf(spans, server).map((s) => s.name);
  assert.deepEqual(stages, ['authenticate', 'rate_limit', 'read_request', 'resolve_model', 'price', 'reserve', 'dispatch', 'respond', 'settle'],
    'a span per stage that did work, in order (no recall: nothing continued; no relay_error: the vendor answered 200)');
  const dispatch = one(spans, 'dispatch');
  const [attempt] = childrenOf(spans, dispatch);
  assert.equal(childrenOf(spans, dispatch).length, 1);
  assert.equal(attempt.name, 'chat gpt-4o-mini');
  assert.equal(attempt.kind, SpanKind.CLIENT);
  assert.deepEqual(pick(attempt.attributes, ['gen_ai.operation.name', 'gen_ai.request.model', 'gen_ai.provider.name', 'gen_ai.system', 'http.request.method', 'http.response.status_code', 'server.address', 'switchyard.channel', 'gen_ai.usage.output_tokens']), {
    'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.provider.name': 'chat', 'gen_ai.system': 'chat',
    'http.request.method': 'POST', 'http.response.status_code': 200, 'server.address': '127.0.0.1', 'switchyard.channel': 'chan_a', 'gen_ai.usage.output_tokens': 5,
  });
  assert.equal(attempt.attributes['gen_ai.response.model'], 'gpt-4o-mini', 'the model the vendor\'s answer names');
  assert.match(String(attempt.attributes['url.full']), /^http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions$/);

  const [sent] = stack.sim.control.requests();
  assert.equal(sent.headers.traceparent, `00-${traceId}-${attempt.spanId}-01`, 'the vendor gets the attempt span as its parent');
  assert.equal(sent.headers.tracestate, 'client=abc', 'and the client\'s tracestate');
  for (const s of spans) assert.ok(s.end >= s.start && s.end > 0n, `${s.name} ended`);
});

test('a streamed answer: usage and the response model from the vendor\'s usage chunk, the attempt ending with the stream', async () => {
  const { res, text, traceId } = await chat('stream [sim chunks=3]', { stream: true });
  assert.equal(res.status, 200);
  assert.equal(sseData(text).at(-1), '[DONE]');
  const spans = await traceOf(traceId, 10);
  const server = one(spans, 'POST /v1/chat/completions');
  const attempt = one(spans, 'chat gpt-4o-mini');
  for (const s of [server, attempt]) {
    assert.equal(s.attributes['gen_ai.response.model'], 'gpt-4o-mini');
    assert.equal(s.attributes['gen_ai.usage.output_tokens'], 3);
    assert.equal(s.attributes['switchyard.outcome'], 'done');
  }
  assert.equal(attempt.status.code ?? 0, 0);
  assert.ok(attempt.end > one(spans, 'dispatch').end, 'the attempt lasts until the stream was relayed, past the dispatch stage');
});

test('no secret in any export: not the client key, the channel keys, the collector header or a query secret', async () => {
  await chat('secrets?', { query: '?api_key=query-secret-456' });
  await stack.gw.gateway.tracing!.flush();
  const raw = Buffer.concat(receiver.exports().map((e) => e.body)).toString('utf8');
  assert.ok(raw.includes(tokenId), 'the export is there to search');
  for (const secret of [key, key.slice(-12), 'key-a', 'key-b', 'Bearer', 'query-secret-456', 'collector-secret-123', 'authorization']) {
    assert.ok(!raw.toLowerCase().includes(secret.toLowerCase()), `the export carries ${secret}`);
  }
});

test('failover: a 503 and the channel that answered are two attempt spans, each sent with its own traceparent', async () => {
  stack.sim.control.addFault({ key: 'key-a', status: 503 });
  const { res, traceId } = await chat('fail over [sim chunks=2]');
  assert.equal(res.status, 200);
  const spans = await traceOf(traceId, 11);
  const attempts = childrenOf(spans, one(spans, 'dispatch'));
  assert.equal(attempts.length, 2);
  const [first, second] = attempts.sort((a, b) => Number(a.start - b.start));
  assert.deepEqual(pick(first.attributes, ['switchyard.channel', 'http.response.status_code', 'error.type']), { 'switchyard.channel': 'chan_a', 'http.response.status_code': 503, 'error.type': '503' });
  assert.equal(first.status.code, 2, 'the failed attempt is an error');
  assert.deepEqual(pick(second.attributes, ['switchyard.channel', 'http.response.status_code', 'http.request.resend_count']), { 'switchyard.channel': 'chan_b', 'http.response.status_code': 200, 'http.request.resend_count': 1 });
  assert.deepEqual(stack.sim.control.requests().map((r) => r.headers.traceparent), [`00-${traceId}-${first.spanId}-01`, `00-${traceId}-${second.spanId}-01`]);
  assert.equal(one(spans, 'POST /v1/chat/completions').attributes['switchyard.channel'], 'chan_b');
});

test('a connection failure is an attempt span with its kind as error.type, then the next channel', async () => {
  const traceId = hex(16);
  const res = await fetch(chatUrl(stack), {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent: `00-${traceId}-${hex(8)}-01` },
    body: JSON.stringify({ model: 'refused-model', messages: user('hi') }),
  });
  assert.equal(res.status, 200);
  const spans = await traceOf(traceId, 11);
  const attempts = childrenOf(spans, one(spans, 'dispatch')).sort((a, b) => Number(a.start - b.start));
  assert.deepEqual(attempts.map((a) => [a.attributes['switchyard.channel'], a.attributes['error.type'] ?? a.attributes['http.response.status_code']]), [['chan_dead', 'connect'], ['chan_backup', 200]]);
});

test('a stream the vendor cuts still ends every span: the attempt and the server span say upstream_cut', async () => {
  const { res, text, traceId } = await chat('cut [sim cut_after=2]', { stream: true });
  assert.equal(res.status, 200);
  assert.equal(sseData(text).at(-1), '[DONE]');
  const spans = await traceOf(traceId, 10);
  const server = one(spans, 'POST /v1/chat/completions');
  assert.equal(server.attributes['switchyard.outcome'], 'upstream_cut');
  const attempt = childrenOf(spans, one(spans, 'dispatch'))[0];
  assert.equal(attempt.attributes['error.type'], 'upstream_cut');
  assert.equal(attempt.status.code, 2);
  assert.ok(attempt.end <= server.end, 'the attempt ends within the request');
  for (const s of spans) assert.ok(s.end >= s.start && s.end > 0n, `${s.name} ended`);
});

test('a client that leaves mid-stream still ends every span (client_gone)', async () => {
  const { traceId } = await chat('leave [sim chunks=50 interval_ms=50]', { stream: true, abortAfter: 2 });
  await eventually(async () => {
    await stack.gw.gateway.tracing!.flush();
    return receiver.spans().some((s) => s.traceId === traceId && s.kind === SpanKind.SERVER);
  }, 8000);
  const spans = receiver.spans().filter((s) => s.traceId === traceId);
  const server = one(spans, 'POST /v1/chat/completions');
  assert.equal(server.attributes['http.response.status_code'], 499);
  assert.ok(childrenOf(spans, one(spans, 'dispatch')).length === 1);
  for (const name of ['respond', 'dispatch', 'chat gpt-4o-mini']) assert.ok(one(spans, name).end > 0n, `${name} ended`);
  assert.equal(stack.gw.gateway.inflight, 0);
});

test('an early refusal is a trace too: 401 with the authenticate span in error, no key recorded', async () => {
  const traceId = hex(16);
  const res = await fetch(chatUrl(stack), {
    method: 'POST', headers: { authorization: 'Bearer sk-not-a-real-key-789', 'content-type': 'application/json', traceparent: `00-${traceId}-${hex(8)}-01` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: user('hi') }),
  });
  assert.equal(res.status, 401);
  const spans = await traceOf(traceId, 2);
  const auth = one(spans, 'authenticate');
  assert.equal(auth.attributes['error.type'], 'invalid_api_key');
  const server = one(spans, 'POST /v1/chat/completions');
  assert.equal(server.attributes['http.response.status_code'], 401);
  assert.equal(server.attributes['switchyard.token.id'], undefined);
  assert.ok(!Buffer.concat(receiver.exports().map((e) => e.body)).toString('utf8').includes('sk-not-a-real-key-789'));
});

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}
