// POST /v1/moderations through the official openai client: a string, an array, omni's text and image parts, the model
// the vendor received; free at OpenAI, so charged 0 (an explicit price of 0, reserved and settled at 0), yet every
// call is in the request log and counts toward the group's request rate limit (429 past it).
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { loggedRecords, startStack, type Stack } from './helpers/stack.js';
import { quickTaskConfig } from './helpers/child-gateway.js';
import { client, post, assertShapeA, ledgerOf } from './helpers/api.js';

let stack: Stack;
// The default group may make 3 requests a minute (the rate-limit test's); vip tokens are for everything else.
before(async () => { stack = await startStack({ configDir: quickTaskConfig({}, [[['groups', 'default', 'rate_limit'], { requests: 3, window_s: 60 }]]) }); });
after(async () => { await stack.close(); });
beforeEach(() => stack.sim.control.clear());

const vip = () => stack.token({ group: 'vip' });

const recordsOf = (requestId: string) => loggedRecords(stack, requestId);

test('a string: omni-moderation-latest answers, charged 0 (reserved 0, settled 0), and the request log has it', async () => {
  const { key, id } = await vip();
  const before = (await stack.balance(id))!;
  const { data, response } = await client(stack, key).moderations.create({ model: 'omni-moderation-latest', input: 'I will hurt you [sim flag=violence,harassment/threatening]' }).withResponse();
  assert.equal(data.model, 'omni-moderation-2024-09-26');
  assert.match(data.id, /^modr-/);
  assert.equal(data.results.length, 1);
  const [r] = data.results;
  assert.equal(r.flagged, true);
  assert.equal(r.categories.violence, true);
  assert.equal(r.categories['harassment/threatening'], true);
  assert.equal(r.categories.hate, false);
  assert.ok(r.category_scores.violence > 0.9);
  assert.deepEqual(r.category_applied_input_types.violence, ['text']);
  assert.equal(await stack.balance(id), before, 'free');
  const requestId = response.headers.get('x-request-id')!;
  const entries = await ledgerOf(stack, id, requestId);
  assert.deepEqual(entries.map((e) => [e.kind, e.amount]), [['reserve', 0], ['settle', 0]], 'priced at 0, not unpriced');
  const [rec] = await recordsOf(requestId);
  assert.equal(rec.route, 'moderations');
  assert.equal(rec.model, 'omni-moderation-latest');
  assert.equal(rec.channel, 'sim_openai');
  assert.equal(rec.status, 200);
  assert.equal(rec.reserved, 0);
  assert.equal(rec.charged, 0);
  const sent = stack.sim.control.requests().find((q) => q.path === '/v1/moderations')!;
  assert.equal(sent.headers.authorization, 'Bearer sim-key', 'the channel\'s key, never the client\'s');
});

test('an array of strings (one result each), no model (omni-moderation-latest, named to the vendor), text-moderation-latest, omni\'s text and image parts', async () => {
  const { key } = await vip();
  const ai = client(stack, key);
  const many = await ai.moderations.create({ input: ['a kind word', 'a cruel word [sim flag=harassment]'] });
  assert.deepEqual(many.results.map((x) => x.flagged), [false, true]);
  assert.deepEqual(stack.sim.control.requests().at(-1)!.body, { input: ['a kind word', 'a cruel word [sim flag=harassment]'], model: 'omni-moderation-latest' }, 'the vendor gets the model priced');

  const text = await ai.moderations.create({ model: 'text-moderation-latest', input: 'hello' });
  assert.equal(text.model, 'text-moderation-007');
  assert.equal(text.results[0].categories.violence, false);
  assert.ok(!('illicit' in text.results[0].categories), 'text-moderation has no illicit categories');

  const parts = await ai.moderations.create({
    model: 'omni-moderation-latest',
    input: [{ type: 'text', text: 'look at this [sim flag=violence/graphic]' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }],
  });
  assert.equal(parts.results.length, 1, 'one result for the parts together');
  assert.equal(parts.results[0].categories['violence/graphic'], true);
  assert.deepEqual(parts.results[0].category_applied_input_types['violence/graphic'], ['text', 'image']);
  assert.deepEqual(parts.results[0].category_applied_input_types.hate, ['text']);
});

test('the group\'s request rate limit applies: the 4th in the window is refused with 429, logged, and charged nothing', async () => {
  const { key, id } = await stack.token();
  const ai = client(stack, key);
  for (let i = 0; i < 3; i++) await ai.moderations.create({ input: `message ${i}` });
  const refused = await ai.moderations.create({ input: 'one more' }).withResponse().catch((e: unknown) => e);
  assert.ok(refused instanceof OpenAI.RateLimitError, String(refused));
  assert.equal(refused.status, 429);
  assert.equal((refused.error as any).code, 'too_many_requests');
  assert.ok(Number(refused.headers?.get('retry-after')) >= 1);
  assert.equal(stack.sim.control.requests().length, 3, 'the refused one never reached the vendor');
  const [rec] = await recordsOf(refused.headers!.get('x-request-id')!);
  assert.equal(rec.status, 429);
  assert.equal(rec.route, 'moderations');
  assert.equal(rec.error_code, 'too_many_requests');
  assert.equal(await stack.balance(id), 1_000_000);
});

test('invalid bodies are 400 naming the field; other models are not moderation models; a vendor error is relayed', async () => {
  const { key } = await vip();
  const url = `${stack.url}/v1/moderations`;
  const cases: [unknown, string][] = [
    [{}, 'input'],
    [{ input: 42 }, 'input'],
    [{ input: [] }, 'input'],
    [{ input: [{ type: 'audio', audio: 'x' }] }, 'input'],
    [{ input: [{ type: 'image_url', image_url: {} }] }, 'input'],
    [{ input: 'a', model: '' }, 'model'],
    [{ input: 'a', user: 'u' }, 'user'],
  ];
  for (const [body, field] of cases) assertShapeA(await post(url, body, key), 400, 'invalid_request', 'invalid_request_error', field);
  assertShapeA(await post(url, { input: 'a', model: 'gpt-4o-mini' }, key), 404, 'model_not_found', 'invalid_request_error');
  assert.equal(stack.sim.control.requests().length, 0);
  await assert.rejects(client(stack, key).moderations.create({ input: 'x [sim status=500]' }), (e: unknown) => e instanceof OpenAI.APIError && e.status === 502);
});
