// A vendor's 429 is back-pressure: the channel waits out its Retry-After and, with no other channel, the client gets
// the 429. Only a failure *rate* over a window with enough requests opens the breaker; a probe closes it again.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './helpers/stack.js';
import { quickTaskConfig } from './helpers/child-gateway.js';
import { post, chatUrl, assertShapeA } from './helpers/api.js';

let stack: Stack;
let key: string;
before(async () => {
  // gpt-4o has one channel for the default group (the real-vendor channel has no key here).
  stack = await startStack({ configDir: quickTaskConfig({}, [
    [['dispatch', 'breaker_min_requests'], 4], [['dispatch', 'breaker_open_ms'], 400], [['dispatch', 'breaker_window_ms'], 10_000],
  ]) });
  ({ key } = await stack.token());
});
after(() => stack.close());
beforeEach(async () => {
  await stack.gw.gateway.breakers.reset();
  stack.sim.control.clearFaults();
  stack.sim.control.clear();
});

const ask = () => post(chatUrl(stack), { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi [sim chunks=1]' }] }, key);
const upstreamCalls = () => stack.sim.control.requests().filter((r) => r.path === '/v1/chat/completions').length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a 429 with Retry-After: 1 then a 500 never takes the model down: 429s relayed, back within a second', async () => {
  stack.sim.control.addFault({ status: 429, headers: { 'retry-after': '1' }, times: 1 });
  const first = await ask();
  assertShapeA(first, 429, 'too_many_requests', 'platform_api_error');
  assert.equal(first.headers.get('retry-after'), '1');
  const during = await ask();
  assertShapeA(during, 429, 'too_many_requests', 'platform_api_error', 'rate limiting');
  assert.equal(during.headers.get('retry-after'), '1');
  assert.equal(upstreamCalls(), 1, 'the vendor is not asked again before its Retry-After');
  await sleep(1050);
  stack.sim.control.addFault({ status: 500, times: 1 });
  assert.equal((await ask()).status, 502);
  const after = await ask();
  assert.equal(after.status, 200, `one failure among few requests opens nothing: ${after.text}`);
  assert.deepEqual(stack.gw.gateway.breakers.openChannels(), []);
});

test('a failure rate at or above the threshold over the minimum of requests opens the breaker; one probe closes it', async () => {
  stack.sim.control.addFault({ status: 500 });
  for (let i = 0; i < 4; i++) assert.equal((await ask()).status, 502);
  assert.deepEqual(stack.gw.gateway.breakers.openChannels(), ['sim_openai']);
  const calls = upstreamCalls();
  assertShapeA(await ask(), 503, 'no_available_channel', 'platform_api_error');
  assert.equal(upstreamCalls(), calls, 'an open breaker sends nothing upstream');
  stack.sim.control.clearFaults();
  await sleep(450);
  assert.equal((await ask()).status, 200, 'the half-open probe goes through');
  assert.deepEqual(stack.gw.gateway.breakers.openChannels(), [], 'and closes the breaker');
});

test('failures below the minimum of requests leave the breaker closed; successes after them too', async () => {
  stack.sim.control.addFault({ status: 500, times: 3 });
  for (let i = 0; i < 3; i++) assert.equal((await ask()).status, 502);
  assert.equal((await ask()).status, 200);
  assert.equal((await ask()).status, 200);
  assert.equal((await ask()).status, 200);
  assert.deepEqual(stack.gw.gateway.breakers.openChannels(), []);
});
