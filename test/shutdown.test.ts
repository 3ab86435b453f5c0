// SIGTERM always ends within the drain deadline + 1 s, whatever the vendors do; everything cut by the deadline is told
// so (a final error event and [DONE] for a stream, a 503 for a request still waiting); downloads count as in flight.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../simulator/server.js';
import { openStore, type Store } from '../src/store/open-store.js';
import { TokenStore } from '../src/store/token-store.js';
import { quickTaskConfig, spawnGateway } from './helpers/child-gateway.js';
import { until } from './helpers/wait.js';

let sim: Simulator;
let store: Store;
let key: string;
let env: Record<string, string>;
before(async () => {
  sim = await startSimulator({ port: 0, keys: ['sim-key'] });
  const uri = `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-stop-')), 'store.sqlite')}`;
  store = await openStore(uri, { quotaFlushMs: 0 });
  ({ key } = await new TokenStore(store, 0).create({ group: 'default', quota: 10_000_000 }));
  env = { SWITCHYARD_STORE: uri, SWITCHYARD_SIM_URL: sim.url, SWITCHYARD_CONFIG_DIR: quickTaskConfig(), SWITCHYARD_DRAIN_MS: '1000', LOG_LEVEL: 'info' };
});
after(async () => { await store.close(); await sim.close(); });

const headers = () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/** Sends SIGTERM and resolves with how long the process took to exit and its "stopped" log line. */
async function stopTimed(gw: Awaited<ReturnType<typeof spawnGateway>>): Promise<{ ms: number; code: number | null; stopped: Record<string, unknown> }> {
  const t0 = Date.now();
  const code = await gw.stop();
  const ms = Date.now() - t0;
  const line = gw.output().split('\n').find((l) => l.includes('"switchyard stopped"'));
  return { ms, code, stopped: line ? JSON.parse(line) : {} };
}

/** Collects a streamed answer until the server ends or cuts it. */
function collect(url: string, path: string, body: unknown): Promise<{ status: number; text: string; complete: boolean }> {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, { method: 'POST', headers: headers() }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, complete: true }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, text, complete: false }));
    });
    req.on('error', () => resolve({ status: 0, text: '', complete: false }));
    req.end(JSON.stringify(body));
  });
}

test('a vendor poll that hangs does not hold a stop: the process exits within the deadline + 1 s', { timeout: 30_000 }, async () => {
  sim.control.clearFaults();
  const gw = await spawnGateway(env);
  const sub = await (await fetch(`${gw.url}/v1/video/generations`, { method: 'POST', headers: headers(), body: JSON.stringify({ model: 'veo3', prompt: 'hang [sim polls=5]' }) })).json() as { id: string };
  assert.ok(sub.id);
  const polls = () => sim.control.requests().filter((q) => q.path === '/v1/video/query').length;
  const before = polls();
  sim.control.addFault({ path: '/v1/video/query', status: 200, delay_ms: 60_000 });
  await until('the poller waits on the vendor', () => polls() > before, 10_000, 10);
  const { ms, code } = await stopTimed(gw);
  sim.control.clearFaults();
  console.log(`stop with a hung vendor poll: ${ms} ms (drain deadline 1000 ms)`);
  assert.equal(code, 0);
  assert.ok(ms < 2000, `stopped in ${ms} ms`);
});

test('at the deadline a stream gets a final error event and [DONE], a waiting request a 503 in Shape A', { timeout: 30_000 }, async () => {
  const gw = await spawnGateway(env);
  const stream = collect(gw.url, '/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'long [sim chunks=500 interval_ms=50]' }] });
  const waiting = collect(gw.url, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'slow [sim first_byte_ms=30000]' }] });
  const upstream = (word: string) => sim.control.requests().some((q) => JSON.stringify(q.body).includes(word));
  await until('both requests reach the vendor', () => upstream('long [sim') && upstream('slow [sim'), 10_000, 10);
  const { ms, stopped } = await stopTimed(gw);
  const [s, w] = await Promise.all([stream, waiting]);
  console.log(`stop with a stream and a waiting request open: ${ms} ms, cut ${stopped.cut}`);
  assert.ok(ms < 2000, `stopped in ${ms} ms`);
  assert.equal(stopped.drained, false);
  assert.equal(stopped.cut, 2);
  const events = s.text.split('\n\n').filter(Boolean);
  assert.equal(events.at(-1), 'data: [DONE]');
  assert.match(events.at(-2)!, /"code":"shutting_down"/);
  assert.equal(w.status, 503);
  assert.match(w.text, /"code":"shutting_down"/);
});

test('a download in flight is drained like a stream: it may finish before the deadline, and is cut at it', { timeout: 30_000 }, async () => {
  const gw = await spawnGateway(env);
  const sub = await (await fetch(`${gw.url}/v1/video/generations`, { method: 'POST', headers: headers(), body: JSON.stringify({ model: 'viduq1', prompt: 'big [sim polls=0 size_bytes=400000000]' }) })).json() as { id: string };
  for (let i = 0; i < 100; i++) {
    const t = await (await fetch(`${gw.url}/v1/videos/${sub.id}`, { headers: headers() })).json() as { status: string };
    if (t.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  let got = 0;
  const download = new Promise<boolean>((resolve) => {
    request(`${gw.url}/v1/videos/${sub.id}/content`, { headers: headers() }, (res) => {
      res.on('data', (d: Buffer) => { got += d.length; res.pause(); setTimeout(() => res.resume(), 5); }); // a slow reader
      res.on('end', () => resolve(true));
      res.on('error', () => resolve(false));
      res.on('close', () => resolve(false));
    }).end();
  });
  await until('the download is under way', () => got > 0, 10_000, 10);
  const { ms, stopped } = await stopTimed(gw);
  const finished = await download;
  console.log(`stop during a 400 MB download: ${ms} ms, ${got} bytes delivered, complete: ${finished}`);
  assert.ok(ms < 2000, `stopped in ${ms} ms`);
  assert.equal(stopped.drained, false, 'the download was in flight at the deadline');
  assert.equal(stopped.cut, 1);
  assert.equal(finished, false, 'a cut download ends short, never hangs');
});

test('after hundreds of clients vanished mid-request, a stop is immediate', { timeout: 30_000 }, async () => {
  const gw = await spawnGateway(env);
  await Promise.all(Array.from({ length: 300 }, () => new Promise<void>((resolve) => {
    const req = request(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { ...headers(), 'content-length': '5000' } });
    req.on('error', () => resolve());
    req.write('{"model":');
    setTimeout(() => { req.destroy(); resolve(); }, 5);
  })));
  // The stop is timed once the gateway has seen every client go: only the metrics request itself is in flight.
  const inFlight = async () => Number(/^switchyard_requests_in_flight (\d+)$/m.exec(await (await fetch(`${gw.url}/metrics`)).text())?.[1]);
  await until('the vanished requests are gone', async () => (await inFlight()) === 1, 10_000, 20);
  const { ms, stopped } = await stopTimed(gw);
  console.log(`stop after 300 vanished clients: ${ms} ms`);
  assert.equal(stopped.drained, true);
  assert.ok(ms < 800, `stopped in ${ms} ms`);
});
