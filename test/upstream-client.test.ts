// The upstream client on its own, over loopback: its bounds fire on time, an abort and a dropped body reach the
// socket, read bodies leave their connections pooled, and an unread body holds back the upstream instead of memory.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Abort } from '../src/http/abort.js';
import { newPool, send, UpstreamFailure, type Target } from '../src/transport/http-client.js';
import { readLimited } from '../src/transport/read-limited.js';
import { until } from './helpers/wait.js';

interface Upstream { server: Server; url: string; sockets: Socket[]; requests: number }

async function upstream(answer: (res: ServerResponse, path: string) => void): Promise<Upstream> {
  const u = { sockets: [] as Socket[], requests: 0 } as Upstream;
  u.server = createServer((req, res) => { u.requests++; req.resume(); answer(res, req.url ?? '/'); });
  u.server.on('connection', (s: Socket) => { u.sockets.push(s); });
  u.server.listen(0, '127.0.0.1');
  await once(u.server, 'listening');
  u.url = `http://127.0.0.1:${(u.server.address() as AddressInfo).port}`;
  return u;
}

/** Whether the connection that carried the request is closed (undici may open and drop a spare one after an abort). */
async function closed(s: Socket): Promise<boolean> {
  for (let i = 0; i < 500 && !s.destroyed; i++) await sleep(10); // 5 s: a deadline, not an expected time
  return s.destroyed;
}

const servers: Server[] = [];
after(() => {
  for (const s of servers) { s.closeAllConnections(); s.close(); }
});

const pool = newPool({ connectMs: 2000 });
const target = (url: string, over: Partial<Target> = {}): Target =>
  ({ url: new URL(url), pool, method: 'GET', headers: { accept: 'application/json' }, connectMs: 2000, firstByteMs: 2000, ...over });

async function failure(p: Promise<unknown>): Promise<UpstreamFailure> {
  const err = await p.then(() => assert.fail('expected a failure'), (e: unknown) => e);
  assert.ok(err instanceof UpstreamFailure, String(err));
  return err;
}

test('a connect that hangs fails as `connect` when connect_ms is up, not on a coarse tick', async () => {
  // A name that never resolves holds the connect open, as an address that never answers would.
  const stuck = newPool({ connectMs: 150, lookup: () => undefined });
  const t0 = performance.now();
  const e = await failure(send({ ...target('http://upstream.invalid/'), pool: stuck, connectMs: 150 }));
  const ms = performance.now() - t0;
  assert.equal(e.kind, 'connect');
  assert.equal(e.message, 'connect timed out after 150 ms');
  assert.ok(ms >= 140 && ms < 450, `failed after ${ms.toFixed(0)} ms`);
});

test('no response head within first_byte_ms: `timeout` on time, and the socket is closed', async () => {
  const u = await upstream((res) => { setTimeout(() => res.end('late'), 1500); });
  servers.push(u.server);
  const t0 = performance.now();
  const e = await failure(send(target(u.url, { firstByteMs: 120 })));
  const ms = performance.now() - t0;
  assert.equal(e.kind, 'timeout');
  assert.equal(e.message, 'no response within 120 ms');
  assert.ok(ms >= 110 && ms < 400, `failed after ${ms.toFixed(0)} ms`);
  assert.ok(await closed(u.sockets[0]), 'the upstream sees the connection closed');
});

test('an abort before the head rejects at once and closes the socket', async () => {
  const u = await upstream((res) => { setTimeout(() => res.end('late'), 1500); });
  servers.push(u.server);
  const abort = new Abort();
  const p = send(target(u.url), abort.signal);
  await until('the upstream has the request', () => u.requests === 1, 10_000, 5);
  abort.abort('client_gone');
  const e = await failure(p);
  assert.equal(e.message, 'client closed the connection');
  assert.ok(await closed(u.sockets[0]));
});

test('bodies read to their end leave their connections pooled; one dropped midway closes it', async () => {
  const u = await upstream((res, path) => {
    if (path === '/small') { res.setHeader('content-type', 'application/json'); res.end('{"ok":true}'); return; }
    res.write(Buffer.alloc(64 << 10)); // and never ends
  });
  servers.push(u.server);
  for (let i = 0; i < 10; i++) {
    const r = await send(target(`${u.url}/small`));
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse((await readLimited(r, 1024)).toString()), { ok: true });
  }
  // undici frees a connection a tick after its answer ends, so a request sent at once may take a second one.
  assert.ok(u.sockets.length <= 2, `ten requests in a row, ${u.sockets.length} connections`);
  const before = new Set(u.sockets);
  const r = await send(target(`${u.url}/endless`));
  await once(r, 'data');
  const carrier = u.sockets.find((s) => s.bytesWritten > (32 << 10))!;
  r.destroy();
  assert.ok(await closed(carrier), 'the dropped body closed its connection');
  assert.ok([...before].some((s) => !s.destroyed), 'the pooled connections stay open');
});

test('an unread body holds the upstream back (backpressure), not the gateway memory', async () => {
  let written = 0;
  let full = false;
  const u = await upstream((res) => {
    const chunk = Buffer.alloc(256 << 10);
    const pump = () => {
      while (written < (256 << 20)) {
        written += chunk.length;
        if (!res.write(chunk)) { full = true; res.once('drain', pump); return; }
      }
      res.end();
    };
    pump();
  });
  servers.push(u.server);
  const r = await send(target(u.url));
  await until('the upstream had to wait', () => full, 10_000, 10);
  assert.ok(written < (32 << 20), `the upstream got ${written >> 20} MB out before it had to wait`);
  assert.ok(r.readableLength <= (1 << 20), `the body holds ${r.readableLength} bytes`);
  r.destroy();
});

test('hop-by-hop headers a config may carry are left to the pool, not refused', async () => {
  let seen: Record<string, unknown> = {};
  const u = await upstream((res) => { res.end('ok'); });
  u.server.prependListener('request', (req) => { seen = req.headers; });
  servers.push(u.server);
  const r = await send(target(u.url, { headers: { connection: 'close', 'keep-alive': '5', host: 'elsewhere', 'x-kept': 'yes' } }));
  assert.equal((await readLimited(r, 1024)).toString(), 'ok');
  assert.equal(seen['x-kept'], 'yes');
  assert.equal(seen.host, new URL(u.url).host);
});
