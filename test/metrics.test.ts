// Observability: the added-latency header on proxied answers and the Prometheus metrics they feed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './helpers/stack.js';

let stack: Stack;
before(async () => { stack = await startStack(); });
after(async () => { await stack.close(); });

// The upstream waits far longer than the gateway's own work can take on a loaded machine (a cold first request included):
// an added time below it shows the wait was left out, with no bet on how fast the machine is.
const upstreamWaitMs = 600;
const chat = (key: string, stream: boolean) => fetch(`${stack.url}/v1/chat/completions`, {
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: `hi [sim chunks=2 first_byte_ms=${upstreamWaitMs}]` }] }),
});

test('proxied answers carry x-switchyard-added-ms, excluding the upstream wait', async () => {
  const { key } = await stack.token();
  for (const stream of [false, true]) {
    const res = await chat(key, stream);
    await res.text();
    const added = Number(res.headers.get('x-switchyard-added-ms'));
    assert.ok(Number.isFinite(added) && added >= 0, `header present (stream=${stream})`);
    assert.ok(added < upstreamWaitMs, `the simulator's ${upstreamWaitMs} ms first-byte delay is not counted (got ${added} ms)`);
  }
});

test('/metrics exposes request counts, added latency and quota movements', async () => {
  const { key } = await stack.token();
  await (await chat(key, false)).text();
  const text = await (await fetch(`${stack.url}/metrics`)).text();
  assert.match(text, /switchyard_requests_total\{route="chat_completions",channel="sim_openai",status="200"\} \d+/);
  assert.match(text, /switchyard_added_latency_seconds_count\{route="chat_completions"\} \d+/);
  assert.match(text, /switchyard_upstream_duration_seconds_bucket\{route="chat_completions",channel="sim_openai",le="[\d.]+"\}/);
  assert.match(text, /switchyard_quota_units_total\{kind="charged"\} \d+/);
  assert.match(text, /switchyard_streams_in_flight 0/);
  assert.match(text, /switchyard_tasks_open \d+/);
});

test('histogram buckets are cumulative and +Inf equals the count, in Prometheus text', async () => {
  const { FastHistogram } = await import('../src/metrics/fast-metrics.js');
  const set: InstanceType<typeof FastHistogram>[] = [];
  const h = new FastHistogram('t_seconds', 'test', ['route'], [0.1, 1], set);
  const c = h.child('r"x');
  for (const v of [0.05, 0.5, 0.5, 5, Number.NaN]) c.observe(v);
  const text = h.render();
  for (const line of ['# TYPE t_seconds histogram', 't_seconds_bucket{route="r\\"x",le="0.1"} 1', 't_seconds_bucket{route="r\\"x",le="1"} 3',
    't_seconds_bucket{route="r\\"x",le="+Inf"} 4', 't_seconds_sum{route="r\\"x"} 6.05', 't_seconds_count{route="r\\"x"} 4']) {
    assert.ok(text.includes(line), `${line} in\n${text}`);
  }
});
