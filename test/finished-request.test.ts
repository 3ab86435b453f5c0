// One serializer makes both logs of a finished request (src/finished-request.ts): over a thousand
// contexts of every shape (a seeded generator: refusals, failovers, streams cut, usage by class, odd charge rates,
// client strings with quotes, NUL, newlines and non-ASCII, dropped tools), its access line is byte for byte the one
// the access log wrote before, and its row is the one the request log stored for the record it built (a record of
// the schema's fields, which reads back as that record).
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { newContext, type RequestContext } from '../src/pipeline/context.js';
import { finishedRequest } from '../src/finished-request.js';
import { recordOfRow, rowOf } from '../src/request-log/log-columns.js';
import { projectRoot, schemaRegistry } from '../src/config/load-config.js';
import { referenceLine, referenceRecord } from './helpers/two-logs-reference.js';
import { seededRandom } from './helpers/seeded-random.js';

const random = seededRandom;

const odd = ['gpt-4o-mini', 'a "quoted" \\ model', 'nul\0inside', 'line\nbreak\ttab', 'ünïcödé 日本語 🚀', 'x'.repeat(300), '\ud800lone', ''];

function context(rnd: () => number): { ctx: RequestContext; res: ServerResponse } {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const maybe = <T>(v: T, p = 0.5) => (rnd() < p ? v : undefined);
  const ctx = newContext(pick(['POST', 'GET', 'DELETE']), pick(['/v1/chat/completions', '/v1/videos/task_1?x=1', `/v1beta/models/${pick(odd)}:generateContent?key=k`]));
  ctx.route = maybe({ id: pick(['chat_completions', 'responses', 'videos_create']), policy: 'chat' }, 0.9) as RequestContext['route'];
  ctx.token = maybe({ id: `tok_${Math.floor(rnd() * 1e6).toString(16)}`, user: pick(['alice', 'b"ob', 'carol\0']), group: pick(['default', 'vip']) }, 0.8) as RequestContext['token'];
  ctx.model = maybe(pick(odd), 0.85);
  ctx.channel = maybe(pick(['sim_openai', 'azure_east']), 0.7);
  const attempt = () => ({ channel: pick(['sim_openai', 'azure_east']), ...(rnd() < 0.7 ? { status: pick([200, 429, 502]) } : { error: pick(['upstream_timeout', 'network: "reset"']) }), ms: Math.round(rnd() * 1e5) / 100 });
  ctx.attempts = Array.from({ length: Math.floor(rnd() * 3) }, attempt);
  ctx.usage = maybe({ prompt_tokens: Math.floor(rnd() * 5000), completion_tokens: Math.floor(rnd() * 900),
    ...(rnd() < 0.4 ? { details: { cached: Math.floor(rnd() * 100), reasoning: Math.floor(rnd() * 50), input_audio: pick([0, 3]) } } : {}),
    ...(rnd() < 0.2 ? { seconds: Math.round(rnd() * 900) / 10 } : {}) }, 0.7);
  ctx.usageEstimated = pick([undefined, true, false]);
  ctx.reserved = maybe(Math.floor(rnd() * 1e5), 0.7);
  ctx.charged = maybe(Math.floor(rnd() * 1e5), 0.6);
  ctx.uncharged = maybe(Math.floor(rnd() * 100), 0.2);
  if (rnd() < 0.6) {
    const line = () => ({ item: pick(['input', 'output', 'cached_input', 'second']), quantity: Math.floor(rnd() * 5000), rate: pick([150, 0.15, 1 / 3, 2.5e-7, 1234.5678901]), units: rnd() * 10 });
    ctx.charge = { total: ctx.charged ?? 0, lines: Array.from({ length: Math.floor(rnd() * 4) }, line), tier: maybe(200_000, 0.2),
      chose: maybe({ service_tier: 'priority', n: 2, stream: true }, 0.2), ...(rnd() < 0.3 ? { classes: { input: 10, cached_input: 5, cache_write: 2 } } : {}) };
  }
  ctx.errorCode = maybe(pick(['model_not_found', 'upstream_error', 'client_gone']), 0.3);
  ctx.clamped = maybe('max_tokens', 0.1);
  ctx.reason = maybe(pick(['no such model in channels.yaml `models`', 'r'.repeat(600), 'a "reason"\nwith a line']), 0.3);
  ctx.outcome = maybe(pick(['done', 'client_gone', 'upstream_cut']), 0.3);
  ctx.addedMs = maybe(rnd() * 3, 0.7);
  ctx.firstByteMs = maybe(rnd() * 100, 0.7);
  ctx.units = maybe(pick([1, 2.5]), 0.1);
  ctx.task = maybe(`task_${Math.floor(rnd() * 1e6)}`, 0.1);
  ctx.logStatus = maybe(pick([499, 502]), 0.1);
  ctx.responseModel = maybe(pick(odd), 0.5);
  if (rnd() < 0.15) ctx.dropped = { tools: ['web_search', 'code "interp"'], ...(rnd() < 0.5 ? { reasoning: ['rs_1'] } : {}) };
  const res = { statusCode: pick([200, 400, 401, 404, 429, 502]), writableFinished: rnd() < 0.9,
    req: rnd() < 0.9 ? { socket: { remoteAddress: pick(['127.0.0.1', '::ffff:10.0.0.7', undefined]) } } : undefined } as unknown as ServerResponse;
  return { ctx, res };
}

test('the access line and the row of 1,000 contexts of every shape are those of the two builders they replace', () => {
  const validate = schemaRegistry(projectRoot).get('request-record.response.json');
  const rnd = random(38);
  let now = 1_800_000_000_000;
  const clock = mock.method(Date, 'now', () => now);
  const perf = mock.method(performance, 'now', () => 5000.123456);
  try {
    for (let i = 0; i < 1000; i++) {
      const { ctx, res } = context(rnd);
      ctx.started = 1000 + rnd() * 3000;
      now += 7;
      const { line, row } = finishedRequest(ctx, res, true, true);
      assert.equal(line, referenceLine(ctx, res), `line ${i}`);
      const record = referenceRecord(ctx, res);
      assert.deepEqual(row, rowOf(record), `row ${i}`);
      assert.deepEqual(recordOfRow(row!), JSON.parse(JSON.stringify(recordOfRow(rowOf(record)))), `the row reads back as the record (${i})`);
      assert.ok(validate(recordOfRow(row!)), JSON.stringify(validate.errors));
    }
  } finally {
    clock.mock.restore();
    perf.mock.restore();
  }
});

test('only what is asked for is made: the line alone, the row alone', () => {
  const { ctx, res } = context(random(1));
  const lineOnly = finishedRequest(ctx, res, true, false);
  assert.ok(lineOnly.line);
  assert.equal(lineOnly.row, undefined);
  const rowOnly = finishedRequest(ctx, res, false, true);
  assert.ok(rowOnly.row);
  assert.equal(rowOnly.line, undefined);
});
