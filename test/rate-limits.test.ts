// Rate limits end to end: requests per sliding window shared by every gateway on the store (here two on one SQLite
// file, as cluster workers are), OpenAI's x-ratelimit-* headers, and tokens per minute counted from billed usage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, until, type Stack } from './helpers/stack.js';
import { GatewayError } from '../src/http/errors.js';
import { windowSpec } from '../src/store/rate-window.js';
import { quickTaskConfig } from './helpers/child-gateway.js';
import { post, chatUrl, assertShapeA } from './helpers/api.js';

let stack: Stack;
let peer: Stack;
before(async () => {
  stack = await startStack({
    configDir: quickTaskConfig({}, [
      [['groups', 'default', 'rate_limit'], { requests: 10, window_s: 2 }],
      [['groups', 'vip', 'rate_limit'], { requests: 1000, window_s: 60 }],
      [['groups', 'vip', 'tokens_per_minute'], 40],
    ]),
  });
  peer = await stack.peer();
});
after(async () => { await peer.close(); await stack.close(); });

const models = (s: Stack, key: string) => fetch(`${s.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });

test('admitted requests carry x-ratelimit-* headers; the refused one gets 429 with Retry-After', async () => {
  const { key } = await stack.token();
  const remaining: number[] = [];
  let refused: Response | undefined;
  for (let i = 0; i < 11 && !refused; i++) {
    const r = await models(stack, key);
    if (r.status === 429) { refused = r; break; }
    await r.arrayBuffer();
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-ratelimit-limit-requests'), '10');
    assert.match(r.headers.get('x-ratelimit-reset-requests')!, /^(\d+ms|\d+(\.\d)?s)$/);
    remaining.push(Number(r.headers.get('x-ratelimit-remaining-requests')));
  }
  assert.deepEqual(remaining, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  assert.ok(refused, 'the 11th request in the window is refused');
  const retry = Number(refused.headers.get('retry-after'));
  assert.ok(retry >= 1 && retry <= 3, `retry-after ${retry}`);
  assert.equal(refused.headers.get('x-ratelimit-remaining-requests'), '0');
  const body = await refused.json();
  assert.equal(body.error.code, 'too_many_requests');
  assert.match(body.error.message, /10 requests per 2 s/);
});

test('two gateways on one store, hammered across many window edges: no 2 s span admits more than 10', { timeout: 20_000 }, async () => {
  const { key } = await stack.token();
  // Each admission happened somewhere between its request's send and its answer's arrival; only admissions whose
  // whole intervals fit in one 2 s span are surely within it, so a slow machine cannot fake an excess.
  const admitted: { sent: number; got: number }[] = [];
  const until = Date.now() + 4500;
  await Promise.all([stack, peer, stack, peer].map(async (s) => {
    while (Date.now() < until) {
      const sent = Date.now();
      const r = await models(s, key);
      await r.arrayBuffer();
      if (r.status === 200) admitted.push({ sent, got: Date.now() });
      else assert.equal(r.status, 429);
    }
  }));
  let most = 0;
  for (const a of admitted) {
    const within = admitted.filter((b) => b.sent >= a.sent && b.got - a.sent < 2000).length;
    most = Math.max(most, within);
  }
  assert.ok(most <= 10, `${most} admitted within 2 s`);
  assert.ok(admitted.length >= 20, `only ${admitted.length} admitted in 4.5 s at 10 per 2 s`);
});

const hello = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi [sim chunks=2]' }] };

/**
 * The answer is sent before its settle counts the tokens: waits until this gateway counts `n` for the token (its
 * `x-ratelimit-remaining-tokens` of the next request), rather than for a guess of how long a settle takes.
 */
async function counted(s: Stack, id: string, n: number): Promise<void> {
  await until(`the gateway counts ${n} tokens`, async () => {
    try {
      const state = await s.gw.gateway.limiter.checkTokens(`{${id}}:t`, 40);
      return state.limit - state.remaining >= n;
    } catch (err) {
      return err instanceof GatewayError && err.status === 429; // all 40 counted
    }
  }, 10_000, 5);
}

/** The token's usage as the store's window counts it: what another gateway reads. */
async function inStore(id: string): Promise<number> {
  const [w] = await stack.gw.store.rates.slide([{ key: `{${id}}:t`, spec: windowSpec(60_000), give: 0, giveBucket: 0, add: 0, take: 0, limit: 40 }]);
  return w.total;
}

test('tokens per minute: counted from billed usage when a request settles; requests in flight finish; then 429', { timeout: 20_000 }, async () => {
  const { key, id } = await stack.token({ group: 'vip' });
  const first = await post(chatUrl(stack), hello, key);
  assert.equal(first.status, 200, first.text);
  const used = first.json.usage.prompt_tokens + first.json.usage.completion_tokens;
  assert.ok(used > 0 && used < 20, `a request uses ${used} tokens`);
  assert.equal(first.headers.get('x-ratelimit-limit-tokens'), '40');
  assert.equal(first.headers.get('x-ratelimit-remaining-tokens'), '40');
  let total = used;
  await counted(stack, id, total);
  while (total + used < 40) {
    const r = await post(chatUrl(stack), hello, key);
    assert.equal(r.status, 200, r.text);
    assert.equal(Number(r.headers.get('x-ratelimit-remaining-tokens')), 40 - total);
    total += used;
    await counted(stack, id, total);
  }
  // Under the limit at admission: all three are admitted, and each counts when it settles.
  const inFlight = await Promise.all([0, 1, 2].map(() => post(chatUrl(stack), hello, key)));
  assert.deepEqual(inFlight.map((r) => r.status), [200, 200, 200]);
  // A gateway sends what it billed every 250 ms: the other one can see it once the store has it.
  await until('the store has the billed tokens', async () => (await inStore(id)) >= total + 3 * used, 10_000, 20);
  const refused = await post(chatUrl(peer), hello, key); // so the other gateway sees the usage too
  assertShapeA(refused, 429, 'too_many_requests', 'platform_api_error', 'Token rate limit reached: 40 tokens per minute');
  const retry = Number(refused.headers.get('retry-after'));
  assert.ok(retry >= 55 && retry <= 63, `retry-after ${retry}`);
  assert.equal(refused.headers.get('x-ratelimit-remaining-tokens'), '0');
  // Routes that reach no vendor spend no tokens and are not refused for them.
  assert.equal((await models(stack, key)).status, 200);
  // A token's own limit replaces its group's.
  await stack.gw.gateway.tokens.update(id, { tokens_per_minute: 10_000 });
  await peer.gw.gateway.tokens.update(id, { tokens_per_minute: 10_000 }); // drops the peer's cached record at once
  const raised = await post(chatUrl(peer), hello, key);
  assert.equal(raised.status, 200, raised.text);
  assert.equal(raised.headers.get('x-ratelimit-limit-tokens'), '10000');
});
