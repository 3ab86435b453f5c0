// OpenTelemetry beyond one request: a task's polls are spans of their own linked to its submit, also when another
// gateway process (here: the restarted one) polls it; the default protobuf encoding at a traces endpoint of its own,
// flushed on a graceful stop; and with no endpoint set, no tracing at all (no header reaches the vendor).
import { test as nodeTest } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startStack, eventually } from './helpers/stack.js';
import { startOtlpReceiver, SpanKind } from './helpers/otlp-receiver.js';
import { fastTasks, call, waitFinal } from './helpers/video.js';

const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 30_000 }, fn);
const hex = (n: number) => randomBytes(n).toString('hex');

test('a task poll is a span of its own, linked to the submit, though another process polls it', async () => {
  const receiver = await startOtlpReceiver();
  const stack = await startStack({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '20' } });
  try {
    const { key } = await stack.token();
    const traceId = hex(16);
    const sub = await call(stack, key, 'POST', '/v1/videos', { model: 'sora-2', prompt: 'traced [sim polls=1]', seconds: '4' }, { traceparent: `00-${traceId}-${hex(8)}-01` });
    assert.equal(sub.status, 200, sub.text);
    // The submitting process stops before the task's first poll is due; the next one polls it from the store.
    await stack.restartGateway();
    fastTasks(stack);
    await waitFinal(stack, key, `/v1/videos/${sub.json.id}`);

    // Polls may overlap (the poller's, and the read-through refresh of the client's own GETs): one can still be
    // reading its answer when another has made the task final, so the wait is for a span of every poll sent.
    const sentPolls = () => stack.sim.control.requests().filter((r) => r.method === 'GET' && r.path.includes('/v1/videos/'));
    const spanOf = (r: ReturnType<typeof sentPolls>[number]) => String(r.headers.traceparent).split('-').slice(1, 3);
    let submit: ReturnType<typeof receiver.spans>[number] | undefined;
    await eventually(async () => {
      await stack.gw.gateway.tracing!.flush();
      submit = receiver.spans().find((s) => s.traceId === traceId && s.kind === SpanKind.CLIENT);
      const linked = receiver.spans().filter((s) => s.links.some((l) => l.spanId === submit?.spanId));
      return submit !== undefined && linked.length > 0 && sentPolls().every((r) => {
        const [trace, span] = spanOf(r);
        return linked.some((p) => p.traceId === trace && p.spanId === span);
      });
    }, 5000);
    assert.equal(submit!.attributes['gen_ai.request.model'], 'sora-2');
    assert.equal(submit!.attributes['gen_ai.operation.name'], 'generate_content');
    const polls = receiver.spans().filter((s) => s.links.some((l) => l.spanId === submit!.spanId));
    for (const poll of polls) {
      assert.match(poll.name, /^task poll /);
      assert.equal(poll.kind, SpanKind.CLIENT);
      assert.equal(poll.parentSpanId, undefined, 'a root span of its own');
      assert.notEqual(poll.traceId, traceId);
      assert.deepEqual(poll.links[0], { traceId, spanId: submit!.spanId, attributes: { 'switchyard.task.id': sub.json.id } });
      assert.equal(poll.attributes['switchyard.task.id'], sub.json.id);
      assert.equal(poll.attributes['http.response.status_code'], 200);
      assert.ok(poll.end > 0n);
    }
    assert.ok(sentPolls().length >= 1);
    for (const r of sentPolls()) {
      const [trace, span] = spanOf(r);
      assert.ok(polls.some((p) => p.traceId === trace && p.spanId === span), `a poll request carries its poll span: ${r.headers.traceparent}`);
    }

    // The download reaches the vendor's content path as a client span of the download's own trace.
    const downloadTrace = hex(16);
    stack.sim.control.clear();
    const content = await fetch(`${stack.url}/v1/videos/${sub.json.id}/content`, { headers: { authorization: `Bearer ${key}`, traceparent: `00-${downloadTrace}-${hex(8)}-01` } });
    assert.equal(content.status, 200);
    await content.arrayBuffer();
    await eventually(async () => {
      await stack.gw.gateway.tracing!.flush();
      return receiver.spans().some((s) => s.traceId === downloadTrace && s.kind === SpanKind.SERVER);
    }, 5000);
    const spans = receiver.spans().filter((s) => s.traceId === downloadTrace);
    const answer = spans.find((s) => s.name === 'answer')!;
    const fetched = spans.find((s) => s.name === 'task content')!;
    assert.equal(fetched.parentSpanId, answer.spanId);
    assert.equal(fetched.kind, SpanKind.CLIENT);
    assert.equal(fetched.attributes['http.response.status_code'], 200);
    const [got] = stack.sim.control.requests();
    assert.equal(got.headers.traceparent, `00-${downloadTrace}-${fetched.spanId}-01`);
    assert.equal(spans.find((s) => s.kind === SpanKind.SERVER)!.attributes['http.route'], '/v1/videos/{id}/content');
  } finally {
    await stack.close();
    await receiver.close();
  }
});

test('the default protobuf encoding, at a traces endpoint of its own, is flushed by a graceful stop', async () => {
  const receiver = await startOtlpReceiver();
  const stack = await startStack({ env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/custom/traces`, OTEL_BSP_SCHEDULE_DELAY: '600000' } });
  try {
    const { key, id } = await stack.token();
    const r = await call(stack, key, 'POST', '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 200, r.text);
    assert.equal(receiver.exports().length, 0, 'batched: nothing exported yet');
    const t0 = Date.now();
    await stack.gw.shutdown(1000);
    assert.ok(Date.now() - t0 < 3000);
    const [sent] = receiver.exports();
    assert.equal(sent?.path, '/custom/traces');
    assert.equal(sent.contentType, 'application/x-protobuf');
    const raw = sent.body.toString('latin1');
    for (const s of ['POST /v1/chat/completions', 'authenticate', 'dispatch', 'gen_ai.request.model', 'gen_ai.usage.output_tokens', id]) assert.ok(raw.includes(s), s);
    assert.ok(!raw.includes(key) && !raw.includes('sim-key'));
  } finally {
    await stack.sim.close();
    await receiver.close();
  }
});

test('not sampled (OTEL_TRACES_SAMPLER=always_off): nothing exported, yet the vendor still gets the trace id, flagged unsampled', async () => {
  const receiver = await startOtlpReceiver();
  const stack = await startStack({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'always_off' } });
  try {
    const { key } = await stack.token();
    const traceId = hex(16);
    const r = await call(stack, key, 'POST', '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { traceparent: `00-${traceId}-${hex(8)}-01` });
    assert.equal(r.status, 200);
    await stack.gw.gateway.tracing!.flush();
    assert.equal(receiver.spans().length, 0);
    const [sent] = stack.sim.control.requests();
    assert.match(String(sent.headers.traceparent), new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
  } finally {
    await stack.close();
    await receiver.close();
  }
});

test('a collector that is down costs requests nothing: answered, the failure logged, the stop still bounded', async () => {
  const dead = await startOtlpReceiver();
  const url = dead.url;
  await dead.close(); // nothing listens there now
  const stack = await startStack({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_BSP_SCHEDULE_DELAY: '20', OTEL_EXPORTER_OTLP_TIMEOUT: '500' } });
  try {
    const { key } = await stack.token();
    const t0 = Date.now();
    const r = await call(stack, key, 'POST', '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 200);
    assert.ok(Date.now() - t0 < 2000);
    await eventually(() => stack.logs().some((l) => String(l.msg).startsWith('opentelemetry:')), 5000);
    const t1 = Date.now();
    await stack.gw.shutdown(200);
    assert.ok(Date.now() - t1 < 2500, `stopped in ${Date.now() - t1} ms`);
  } finally {
    await stack.sim.close();
  }
});

test('unset, nothing traces: no tracer, and no trace context reaches the vendor', async () => {
  const env = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('OTEL_')).map((k) => [k, '']));
  const stack = await startStack({ env });
  try {
    assert.equal(stack.gw.gateway.tracing, undefined);
    const { key } = await stack.token();
    const r = await call(stack, key, 'POST', '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { traceparent: `00-${hex(16)}-${hex(8)}-01` });
    assert.equal(r.status, 200);
    const [sent] = stack.sim.control.requests();
    assert.equal(sent.headers.traceparent, undefined);
    assert.equal(sent.headers.tracestate, undefined);
  } finally {
    await stack.close();
  }
});
