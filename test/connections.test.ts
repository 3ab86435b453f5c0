// Hostile clients over raw sockets: vanishing mid-body, dribbling headers or bodies, too many connections, bodies
// that would exhaust memory, huge echoed strings, invalid UTF-8, runaway transforms. Every request ends; none pins
// the gateway.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startStack, eventually, type Stack } from './helpers/stack.js';
import { quickTaskConfig } from './helpers/child-gateway.js';
import { post, chatUrl, assertShapeA } from './helpers/api.js';
import { SseParser } from '../src/transport/sse-parser.js';
import { isPrivateAddress } from '../src/transport/safe-fetch.js';

let stack: Stack;
let port: number;
before(async () => {
  stack = await startStack({
    configDir: quickTaskConfig({}, [[['dispatch', 'transform_timeout_ms'], 30]], [
      [['server'], { header_timeout_ms: 400, body_idle_timeout_ms: 400, request_timeout_ms: 2000, keep_alive_timeout_ms: 2000, max_connections: 300, max_body_memory_bytes: 2 << 20 }],
    ]),
  });
  port = stack.gw.port;
});
after(() => stack.close());

/** A raw socket; resolves with everything it received once the server closes it (or `ms` passes). */
function raw(send: (s: Socket) => void, ms = 5000): Promise<{ text: string; closedAfter: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    let text = '';
    const s = connect(port, '127.0.0.1', () => send(s));
    s.on('data', (d) => { text += d; });
    s.on('error', () => undefined);
    const timer = setTimeout(() => s.destroy(), ms);
    s.on('close', () => { clearTimeout(timer); resolve({ text, closedAfter: Date.now() - t0 }); });
  });
}

const health = async () => {
  const t0 = Date.now();
  const r = await fetch(`${stack.url}/healthz`, { signal: AbortSignal.timeout(5000) });
  assert.equal(r.status, 200);
  return Date.now() - t0;
};

test('clients that vanish mid-body on a token-cache miss leave nothing in flight, and each is logged as 499', { timeout: 30_000 }, async () => {
  const keys = await Promise.all(Array.from({ length: 100 }, () => stack.token()));
  const before = stack.logs().filter((l) => l.msg === 'request' && l.status === 499).length;
  await Promise.all(keys.map(({ key }) => new Promise<void>((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":`);
      setImmediate(() => { s.destroy(); resolve(); });
    });
    s.on('error', () => resolve());
  })));
  await eventually(() => stack.gw.gateway.inflight === 0, 3000);
  await eventually(() => stack.logs().filter((l) => l.msg === 'request' && l.status === 499).length - before === 100, 3000);
  const metrics = await (await fetch(`${stack.url}/metrics`)).text();
  assert.match(metrics, /switchyard_client_disconnects_total \d+/);
  assert.match(metrics, /switchyard_requests_in_flight 1\b/, 'only the scrape itself');
});

test('headers dribbled byte by byte are cut at the header timeout with a 408 in Shape A', { timeout: 10_000 }, async () => {
  const r = await raw((s) => {
    s.write('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n');
    const iv = setInterval(() => { if (!s.destroyed) s.write('X-A: b\r\n'); else clearInterval(iv); }, 100);
    s.on('close', () => clearInterval(iv));
  });
  assert.match(r.text, /^HTTP\/1\.1 408 /);
  assert.match(r.text, /"code":"request_timeout"/);
  assert.ok(r.closedAfter < 2500, `cut after ${r.closedAfter} ms`);
});

test('a body paused longer than the body idle timeout gets 408; one sent at a trickle is cut by the request timeout', { timeout: 15_000 }, async () => {
  const { key } = await stack.token();
  const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n`;
  const paused = await raw((s) => s.write(`${head}{"model":"gpt-4o-mini"`));
  assert.match(paused.text, /^HTTP\/1\.1 408 /);
  assert.match(paused.text, /"code":"request_timeout"/);
  const trickle = await raw((s) => {
    s.write(head);
    const iv = setInterval(() => { if (!s.destroyed) s.write(' '); else clearInterval(iv); }, 200);
    s.on('close', () => clearInterval(iv));
  }, 8000);
  assert.match(trickle.text, /408/);
  assert.ok(trickle.closedAfter < 4000, `cut after ${trickle.closedAfter} ms`);
});

test('past max_connections a new connection gets 503 in Shape A, and the gateway keeps answering the others', { timeout: 20_000 }, async () => {
  const held: Socket[] = [];
  for (let i = 0; i < 300; i++) {
    held.push(await new Promise<Socket>((resolve) => { const s = connect(port, '127.0.0.1', () => resolve(s)); s.on('error', () => undefined); }));
  }
  try {
    const extra = await raw((s) => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
    assert.match(extra.text, /^HTTP\/1\.1 503 /);
    assert.match(extra.text, /"code":"server_busy"/);
  } finally {
    for (const s of held) s.destroy();
  }
  await eventually(async () => (await fetch(`${stack.url}/healthz`).catch(() => undefined))?.status === 200, 3000);
});

test('bodies that would pass the memory shared by all requests get 503 server_busy; the others go through', { timeout: 15_000 }, async () => {
  const { key } = await stack.token();
  // 3 × 900 KB declared while the budget is 2 MiB: the third is refused before it is read.
  const sockets = await Promise.all([0, 1, 2].map(() => new Promise<{ s: Socket; text: () => string }>((resolve) => {
    let text = '';
    const s = connect(port, '127.0.0.1', () => {
      s.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 921600\r\n\r\n{`);
      setTimeout(() => resolve({ s, text: () => text }), 150);
    });
    s.on('data', (d) => { text += d; });
    s.on('error', () => undefined);
  })));
  const busy = sockets.filter((x) => /^HTTP\/1\.1 503 /.test(x.text()));
  assert.equal(busy.length, 1, sockets.map((x) => x.text().slice(0, 40)).join(' | '));
  assert.match(busy[0].text(), /"code":"server_busy"/);
  for (const x of sockets) x.s.destroy();
  await eventually(() => stack.gw.gateway.bodies.inUse === 0, 3000);
});

test('a 12 MB model name is echoed neither in the answer nor in the log', { timeout: 20_000 }, async () => {
  const { key } = await stack.token();
  const huge = 'm'.repeat(1_900_000); // the largest a 2 MiB memory budget admits here; the bound is the same at 12 MB
  const r = await post(chatUrl(stack), { model: huge, messages: [{ role: 'user', content: 'x' }] }, key);
  assertShapeA(r, 404, 'model_not_found', 'invalid_request_error');
  assert.ok(r.text.length < 1000, `answer of ${r.text.length} bytes`);
  const line = stack.rawLogs().split('\n').find((l) => l.includes(r.headers.get('x-request-id')!) && l.includes('"msg":"request"'))!;
  assert.ok(line.length < 2000, `log line of ${line.length} bytes`);
});

test('invalid UTF-8 inside a JSON string is 400 invalid_request and never reaches the vendor', async () => {
  const { key } = await stack.token();
  stack.sim.control.clear();
  const body = Buffer.concat([Buffer.from('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"a'), Buffer.from([0xc3, 0x28]), Buffer.from('"}]}')]);
  const res = await fetch(chatUrl(stack), { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
  const r = { status: res.status, headers: res.headers, text: await res.text(), json: undefined as any };
  r.json = JSON.parse(r.text);
  assertShapeA(r, 400, 'invalid_request', 'invalid_request_error', 'UTF-8');
  assert.equal(stack.sim.control.requests().length, 0);
});

test('the SSE parser keeps a CRLF split across two reads as one line break', () => {
  const p = new SseParser(1 << 20);
  const events = [...p.push(Buffer.from('data: a\r')), ...p.push(Buffer.from('\n\r\ndata: b\r\n\r')), ...p.push(Buffer.from('\n'))];
  assert.deepEqual(events.map((e) => e.data), ['a', 'b']);
});

test('the private-address check covers IPv4-compatible, 6to4 and Teredo IPv6 forms', () => {
  for (const ip of ['::127.0.0.1', '::a00:1', '2002:7f00:1::', '2001:0:4136:e378::1', '::ffff:10.0.0.1', '169.254.169.254']) assert.ok(isPrivateAddress(ip), ip);
  for (const ip of ['8.8.8.8', '2606:4700:4700::1111']) assert.ok(!isPrivateAddress(ip), ip);
});

test('a runaway transform is stopped at its time limit while /healthz keeps answering', { timeout: 20_000 }, async () => {
  const { key } = await stack.token();
  const ch = stack.gw.gateway.runtime.channel('sim_legacy')!;
  const op = ch.operations.get('chat_completions')!;
  const saved = op.request;
  const { compileTransform } = await import('../src/transform/compile-transform.js');
  op.request = compileTransform('$map([1..2000], function($a) { $map([1..2000], function($b) { $a * $b }) })', 30);
  try {
    const t0 = Date.now();
    const runs = Array.from({ length: 5 }, () => post(chatUrl(stack), { model: 'legacy-chat', messages: [{ role: 'user', content: 'x' }] }, key));
    const pings = Array.from({ length: 5 }, () => health());
    const answers = await Promise.all(runs);
    const waits = await Promise.all(pings);
    for (const a of answers) assertShapeA(a, 400, 'invalid_request', 'invalid_request_error', 'exceeded 30 ms');
    assert.ok(Date.now() - t0 < 3000, `5 runaway transforms took ${Date.now() - t0} ms`);
    assert.ok(Math.max(...waits) < 1000, `/healthz waited ${Math.max(...waits)} ms`);
  } finally {
    op.request = saved;
  }
});
