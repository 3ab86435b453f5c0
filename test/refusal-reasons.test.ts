// Every refusal the gateway makes on its own puts its reason in the access line, with the setting that changes it;
// the client's error keeps the contract's shape and never carries an internal address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, eventually, fixture, type Stack } from './helpers/stack.js';
import { call, fastTasks, waitFinal } from './helpers/video.js';
import { post, chatUrl, assertShapeA } from './helpers/api.js';
import { compileTransform } from '../src/transform/compile-transform.js';

let stack: Stack;
let key: string;
before(async () => {
  stack = await startStack();
  fastTasks(stack);
  ({ key } = await stack.token({ quota: 10_000_000 }));
});
after(() => stack.close());

/** The access line of the request whose id the answer carries. */
async function accessLine(id: string | null): Promise<Record<string, any>> {
  let line: Record<string, any> | undefined;
  await eventually(() => Boolean(line = stack.logs().find((l) => l.msg === 'request' && l.req_id === id)));
  return line!;
}

async function completedVidu(prompt: string): Promise<string> {
  const sub = await call(stack, key, 'POST', '/v1/video/generations', { model: 'viduq1', prompt: `${prompt} [sim polls=0]` });
  assert.equal(sub.status, 200, sub.text);
  await waitFinal(stack, key, `/v1/videos/${sub.json.id}`);
  return sub.json.id;
}

test('a result URL on a private address: the line names the address and private_network; the client hears neither', { timeout: 20_000 }, async () => {
  const id = await completedVidu('private');
  const port = new URL(stack.sim.url).port;
  const channel = stack.gw.gateway.runtime.channel('sim_vidu')!;
  channel.privateNetwork = false;
  try {
    const literal = await call(stack, key, 'GET', `/v1/videos/${id}/content`);
    assertShapeA({ ...literal, json: literal.json }, 502, 'bad_response', 'platform_api_error', 'copy_response_body_failed: the result file is at an address this gateway does not fetch from');
    assert.doesNotMatch(literal.text, /127\.0\.0\.1|private_network/);
    const line = await accessLine(literal.headers.get('x-request-id'));
    assert.equal(line.error_code, 'bad_response');
    assert.equal(line.reason, 'the result URL of channel sim_vidu: 127.0.0.1 is a private address; the channel setting private_network (channel sim_vidu) allows private addresses');
    // A name that resolves to one is refused at connect time, naming the address it resolved to.
    const rec = (await stack.gw.gateway.tasks.get(id))!;
    await stack.gw.gateway.tasks.save({ ...rec, result_urls: [`http://localhost:${port}/files/x.mp4`] });
    const named = await call(stack, key, 'GET', `/v1/videos/${id}/content`);
    assert.equal(named.status, 502);
    assert.doesNotMatch(named.text, /127\.0\.0\.1|::1|localhost/);
    assert.match((await accessLine(named.headers.get('x-request-id'))).reason, /^the result URL of channel sim_vidu: localhost resolves to a private address \((127\.0\.0\.1|::1)\); the channel setting private_network \(channel sim_vidu\) allows private addresses$/);
  } finally {
    channel.privateNetwork = true;
  }
});

test('a result file that answers 404: the client hears the status, the line which source said it', { timeout: 20_000 }, async () => {
  const id = await completedVidu('gone');
  const rec = (await stack.gw.gateway.tasks.get(id))!;
  await stack.gw.gateway.tasks.save({ ...rec, result_urls: [`${stack.sim.url}/files/no-such-file.mp4`] });
  const r = await call(stack, key, 'GET', `/v1/videos/${id}/content`);
  assertShapeA(r, 502, 'bad_response', 'platform_api_error', "copy_response_body_failed: the vendor's result file answered HTTP 404");
  assert.equal((await accessLine(r.headers.get('x-request-id'))).reason, 'the result URL of channel sim_vidu answered HTTP 404');
});

test('a request transform over its time limit: 400 to the client, the limit\'s setting in the line', async () => {
  const op = stack.gw.gateway.runtime.channel('sim_legacy')!.operations.get('chat_completions')!;
  const saved = op.request;
  op.request = compileTransform('$map([1..2000], function($a) { $map([1..2000], function($b) { $a * $b }) })', 30);
  try {
    const r = await post(chatUrl(stack), { model: 'legacy-chat', messages: [{ role: 'user', content: 'x' }] }, key);
    assertShapeA(r, 400, 'invalid_request', 'invalid_request_error', 'exceeded 30 ms');
    assert.equal((await accessLine(r.headers.get('x-request-id'))).reason, 'the request transform of channel sim_legacy failed: JSONata: evaluation exceeded 30 ms; dispatch.transform_timeout_ms sets the limit');
  } finally {
    op.request = saved;
  }
});

test('an answer transform over its time limit: 502 bad_response_body (never a 500), the setting in the line', async () => {
  const op = stack.gw.gateway.runtime.channel('sim_legacy')!.operations.get('chat_completions')!;
  const saved = op.response;
  op.response = compileTransform('$map([1..2000], function($a) { $map([1..2000], function($b) { $a * $b }) })', 30);
  try {
    const r = await post(chatUrl(stack), { model: 'legacy-chat', messages: [{ role: 'user', content: 'x' }] }, key);
    assertShapeA(r, 502, 'bad_response_body', 'platform_api_error', 'it cannot be translated');
    const line = await accessLine(r.headers.get('x-request-id'));
    assert.equal(line.reason, 'a transform of route chat_completions (channel sim_legacy): JSONata: evaluation exceeded 30 ms; dispatch.transform_timeout_ms sets the limit');
  } finally {
    op.response = saved;
  }
});

test('a vendor answer over the route\'s max_response_bytes, a body over max_body_bytes, a rate limit: each names its setting', async () => {
  const route = stack.gw.gateway.runtime.routes.find((r) => r.id === 'chat_completions')!;
  const limits = route.limits;
  route.limits = { ...limits, maxResponseBytes: 64 };
  try {
    const r = await post(chatUrl(stack), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }, key);
    assertShapeA(r, 502, 'bad_response_body', 'platform_api_error', 'exceeds 64 bytes');
    assert.equal((await accessLine(r.headers.get('x-request-id'))).reason, 'the answer of channel sim_openai (HTTP 200) is over 64 bytes (limits.max_response_bytes of route chat_completions)');
  } finally {
    route.limits = limits;
  }
  const big = await post(chatUrl(stack), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(limits.maxBodyBytes) }] }, key);
  assert.equal(big.status, 413);
  assert.equal((await accessLine(big.headers.get('x-request-id'))).reason, `body over ${limits.maxBodyBytes} bytes: limits.max_body_bytes of route chat_completions (else routes.yaml defaults.max_body_bytes)`);
  const group = stack.gw.gateway.runtime.groups.get('vip')!;
  const saved = group.rate_limit;
  group.rate_limit = { requests: 1, window_s: 60 };
  try {
    const { key: vip } = await stack.token({ group: 'vip' });
    const ask = () => post(chatUrl(stack), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }, vip);
    assert.equal((await ask()).status, 200);
    const limited = await ask();
    assert.equal(limited.status, 429);
    assert.equal((await accessLine(limited.headers.get('x-request-id'))).reason, 'rate limit of group vip (groups.vip.rate_limit)');
  } finally {
    group.rate_limit = saved;
  }
});

test('a model no enabled channel serves: the line says which channels have it and why each is left out', async () => {
  const missing = await post(chatUrl(stack), { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }, key);
  assert.equal(missing.status, 404);
  assert.equal((await accessLine(missing.headers.get('x-request-id'))).reason, 'no such model in channels.yaml `models`');
  // A config whose one channel waits for an unset variable.
  const off = await startStack({ configDir: fixture('env-unset') });
  try {
    const { key: k } = await off.token();
    const r = await post(chatUrl(off), { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }, k);
    assertShapeA(r, 404, 'model_not_found', 'invalid_request_error');
    let line: Record<string, any> | undefined;
    await eventually(() => Boolean(line = off.logs().find((l) => l.msg === 'request' && l.req_id === r.headers.get('x-request-id'))));
    assert.equal(line!.reason, 'no enabled channel of group default serves it (sim: disabled (enabled: false, or an unset variable))');
  } finally {
    await off.close();
  }
});

test('a callback to a private address is abandoned with the setting that allows it in the log', { timeout: 20_000 }, async () => {
  const hits: string[] = [];
  const hook: Server = createServer((req, res) => { hits.push(req.url ?? ''); res.end('ok'); });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const settings = stack.gw.gateway.runtime.callbacks;
  const attempts = settings.max_attempts;
  settings.max_attempts = 1;
  try {
    const url = `http://localhost:${(hook.address() as AddressInfo).port}/hook?token=client-secret`;
    const r = await call(stack, key, 'POST', '/art/submit/imagine', { prompt: 'hooked [sim polls=0]', notifyHook: url });
    assert.equal(r.status, 200, r.text);
    await eventually(() => stack.logs().some((l) => l.msg === 'callback abandoned'), 10_000);
    const line = stack.logs().find((l) => l.msg === 'callback abandoned')!;
    assert.match(line.outcome, /^refused: localhost resolves to a private address \((127\.0\.0\.1|::1)\); callbacks\.allow_private_networks allows private addresses$/);
    assert.equal(line.host, `localhost:${(hook.address() as AddressInfo).port}`);
    assert.doesNotMatch(JSON.stringify(line), /client-secret/, 'the query of a callback URL is never logged');
    assert.deepEqual(hits, []);
  } finally {
    settings.max_attempts = attempts;
    hook.close();
  }
});

test('connections refused before a request are counted by reason and logged at most once a period', async () => {
  const { RefusedConnections } = await import('../src/http/refused-connections.js');
  const lines: [Record<string, unknown>, string][] = [];
  const refused = new RefusedConnections({ warn: (o: Record<string, unknown>, m: string) => lines.push([o, m]) } as never, 50);
  for (let i = 0; i < 1000; i++) refused.note('connections over server.max_connections (10)');
  refused.note('malformed HTTP request');
  assert.equal(lines.length, 0, 'nothing is written per connection');
  await new Promise((r) => setTimeout(r, 120));
  assert.deepEqual(lines, [[{ refused: { 'connections over server.max_connections (10)': 1000, 'malformed HTTP request': 1 } }, 'connections refused before a request']]);
});
