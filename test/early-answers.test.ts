// Connections after an answer given before the request's body arrived, and bodies too slow on average: a client
// that trickles, keyless or not, holds its connection for a bounded time only, and a client whose request was read
// whole keeps its keep-alive connection. Raw sockets that ignore the gateway's end of the connection, as an
// attacker's would; the server's own count of open connections says when it let go.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startStack, type Stack } from './helpers/stack.js';
import { quickTaskConfig } from './helpers/child-gateway.js';

const linger = { linger_ms: 1500, linger_idle_ms: 300 };
let stack: Stack;
let port: number;
before(async () => {
  stack = await startStack({
    configDir: quickTaskConfig({}, [], [
      [['server'], { body_idle_timeout_ms: 5000, request_timeout_ms: 20_000, min_body_rate: 1000, min_body_rate_grace_ms: 500, ...linger }],
    ]),
  });
  port = stack.gw.port;
});
after(() => stack.close());

const connections = () => new Promise<number>((resolve, reject) => stack.gw.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

interface Trickle { text: string; answeredMs: number; releasedMs: number }

/**
 * Sends `head` and then one body byte every `everyMs` on a socket that ignores the gateway's end; resolves once the
 * gateway holds no connection any more (`releasedMs`), or after `maxMs`.
 */
async function trickle(head: string, everyMs: number, maxMs = 8000): Promise<Trickle> {
  await waitFor(async () => (await connections()) === 0, 5000);
  const t0 = Date.now();
  let text = '';
  let answeredMs = -1;
  const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => s.write(head));
  s.on('data', (d) => { text += d; if (answeredMs < 0) answeredMs = Date.now() - t0; });
  s.on('error', () => undefined);
  const iv = setInterval(() => { if (s.writable) s.write(' '); }, everyMs);
  try {
    await waitFor(async () => answeredMs >= 0, 5000);
    await waitFor(async () => (await connections()) === 0, maxMs);
    return { text, answeredMs, releasedMs: Date.now() - t0 };
  } finally {
    clearInterval(iv);
    s.destroy();
  }
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('not in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const chatHead = (extra = '', length = 100_000) =>
  `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n${extra}Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`;

test('a keyless client trickling its body gets 401 with Connection: close at once, and is let go when it pauses', { timeout: 15_000 }, async () => {
  const r = await trickle(chatHead(), 1000);
  assert.match(r.text, /^HTTP\/1\.1 401 /);
  assert.match(r.text, /\r\nconnection: close\r\n/i);
  assert.match(r.text, /"code":"invalid_api_key"/);
  assert.ok(r.answeredMs < 500, `answered after ${r.answeredMs} ms`);
  assert.ok(r.releasedMs < linger.linger_idle_ms + 700, `held ${r.releasedMs} ms; a pause of ${linger.linger_idle_ms} ms ends the linger`);
});

test('one that never pauses is let go when the linger time is up, whatever it sends', { timeout: 15_000 }, async () => {
  const r = await trickle(chatHead(), 50);
  assert.match(r.text, /^HTTP\/1\.1 401 /);
  assert.ok(r.releasedMs >= linger.linger_ms - 100 && r.releasedMs < linger.linger_ms + 800, `held ${r.releasedMs} ms, linger ${linger.linger_ms} ms`);
});

test('an open route answered before a trickled body is let go the same way', { timeout: 15_000 }, async () => {
  const r = await trickle('GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n', 50);
  assert.match(r.text, /^HTTP\/1\.1 200 /);
  assert.match(r.text, /\r\nconnection: close\r\n/i);
  assert.ok(r.releasedMs < linger.linger_ms + 800, `held ${r.releasedMs} ms`);
});

test('a body too large for its route, sent at full speed, gets its whole 413 before the connection closes', { timeout: 15_000 }, async () => {
  const { key } = await stack.token();
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const text = await new Promise<string>((resolve) => {
    let got = '';
    const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
      s.write(chatHead(`Authorization: Bearer ${key}\r\n`, 50 << 20));
      const pump = () => { while (s.writable && s.write(chunk)); };
      s.on('drain', pump);
      pump();
    });
    s.on('data', (d) => { got += d; });
    s.on('error', () => undefined);
    s.on('close', () => resolve(got));
    setTimeout(() => s.destroy(), 8000);
  });
  assert.match(text, /^HTTP\/1\.1 413 /);
  assert.match(text, /\r\nconnection: close\r\n/i);
  const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
  assert.equal(body.error.code, 'request_too_large');
});

/** Sends each request on one socket after the previous answer; resolves with the answers' heads. */
function keepAlive(requests: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const heads: string[] = [];
    let buf = '';
    const s = connect(port, '127.0.0.1', () => s.write(requests[0]));
    s.on('data', (d) => {
      buf += d;
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        heads.push(buf.slice(0, end));
        buf = buf.slice(end + 4 + length);
        if (heads.length === requests.length) { s.destroy(); resolve(heads); return; }
        s.write(requests[heads.length]);
      }
    });
    s.on('error', reject);
    s.on('close', () => resolve(heads));
  });
}

test('a request read whole keeps its keep-alive connection, refused or not', { timeout: 15_000 }, async () => {
  const { key } = await stack.token();
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  const post = (auth: string) => `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const heads = await keepAlive([post(''), post(`Authorization: Bearer ${key}\r\n`), 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', post('Authorization: Bearer sk-sy-wrong\r\n')]);
  assert.deepEqual(heads.map((h) => h.split(' ')[1]), ['401', '200', '200', '401']);
  for (const h of heads) assert.doesNotMatch(h, /connection: close/i);
});

test('a body behind the minimum rate is cut with 408 though its pauses are short; one at a fair pace passes', { timeout: 15_000 }, async () => {
  const { key } = await stack.token();
  const slow = await trickle(chatHead(`Authorization: Bearer ${key}\r\n`, 5000), 50); // 20 B/s, pauses of 50 ms
  assert.match(slow.text, /^HTTP\/1\.1 408 /);
  assert.match(slow.text, /slower than 1000 bytes per second/);
  assert.ok(slow.answeredMs >= 450 && slow.answeredMs < 1500, `cut after ${slow.answeredMs} ms (grace 500 ms)`);
  assert.ok(slow.releasedMs - slow.answeredMs < 500, 'a body too slow is not lingered for');

  const body = Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hi ${'x'.repeat(1800)}` }] }));
  const fair = await new Promise<string>((resolve) => {
    let got = '';
    const s = connect(port, '127.0.0.1', async () => {
      s.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      for (let i = 0; i < body.length; i += 200) { // 2,000 B/s in pieces of 200 bytes
        s.write(body.subarray(i, i + 200));
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    s.on('data', (d) => { got += d; if (/\r\n\r\n[\s\S]*\}$/.test(got)) s.destroy(); });
    s.on('error', () => undefined);
    s.on('close', () => resolve(got));
  });
  assert.match(fair, /^HTTP\/1\.1 200 /);
});

test('a multipart upload behind the minimum rate is cut with 408 too', { timeout: 15_000 }, async () => {
  const { key } = await stack.token();
  const part = '--b\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n'; // then the prompt, a byte at a time
  const r = await trickle(`POST /v1/videos HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 5000\r\n\r\n${part}`, 50);
  assert.match(r.text, /^HTTP\/1\.1 408 /);
  assert.match(r.text, /slower than 1000 bytes per second/);
});
