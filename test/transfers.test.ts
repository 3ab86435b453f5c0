// Large bodies both ways: uploads stream to the vendor from disk in bounded memory; a download the vendor cuts (or
// stalls past the channel's idle_ms) is cut for the client (never a hang) and logged as a 502; a vendor's result
// URL on a private address is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, eventually, type Stack } from './helpers/stack.js';
import { call, fastTasks, waitFinal } from './helpers/video.js';
import { quickTaskConfig, spawnGateway } from './helpers/child-gateway.js';
import { openStore } from '../src/store/open-store.js';
import { TokenStore } from '../src/store/token-store.js';

let stack: Stack;
let key: string;
before(async () => {
  stack = await startStack();
  fastTasks(stack);
  ({ key } = await stack.token({ quota: 10_000_000 }));
});
after(() => stack.close());

async function completedVidu(prompt: string): Promise<string> {
  const sub = await call(stack, key, 'POST', '/v1/video/generations', { model: 'viduq1', prompt: `${prompt} [sim polls=0]` });
  assert.equal(sub.status, 200, sub.text);
  await waitFinal(stack, key, `/v1/videos/${sub.json.id}`);
  return sub.json.id;
}

test('a download the vendor cuts mid-file ends for the client at once, and is logged as a 502', { timeout: 20_000 }, async () => {
  const cutter: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(10 << 20) });
    res.write(Buffer.alloc(1 << 20));
    setTimeout(() => res.socket?.destroy(), 50);
  });
  await new Promise<void>((r) => cutter.listen(0, '127.0.0.1', r));
  try {
    const t0 = Date.now();
    const outcome = await downloadFrom(await completedVidu('cut'), cutter);
    assert.equal(outcome.status, 200);
    assert.equal(outcome.complete, false, 'the client sees the cut');
    assert.ok(outcome.bytes >= 1 << 20 && outcome.bytes < 10 << 20);
    assert.ok(Date.now() - t0 < 3000, `ended after ${Date.now() - t0} ms`);
    await eventually(() => stack.logs().some((l) => l.msg === 'request' && l.route === 'videos_content' && l.status === 502 && l.outcome === 'upstream_cut'));
  } finally {
    cutter.close();
  }
});

test('a download the vendor stalls mid-file is cut after the channel\'s idle_ms, and is logged as a 502 with the reason', { timeout: 20_000 }, async () => {
  const staller: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(10 << 20) });
    res.write(Buffer.alloc(1 << 20)); // then nothing, with the connection left open
  });
  await new Promise<void>((r) => staller.listen(0, '127.0.0.1', r));
  const channel = stack.gw.gateway.runtime.channel('sim_vidu')!;
  const idleMs = channel.timeouts.idle_ms;
  channel.timeouts.idle_ms = 400;
  try {
    const t0 = Date.now();
    const outcome = await downloadFrom(await completedVidu('stall'), staller);
    const took = Date.now() - t0;
    assert.equal(outcome.status, 200);
    assert.equal(outcome.complete, false, 'the client sees the cut');
    assert.equal(outcome.bytes, 1 << 20);
    assert.ok(took >= 400 && took < 5000, `ended after ${took} ms`);
    await eventually(() => stack.logs().some((l) => l.msg === 'request' && l.route === 'videos_content' && l.status === 502
      && l.outcome === 'upstream_cut' && /no bytes for 400 ms \(the channel's timeouts.idle_ms\)/.test(String(l.reason))));
  } finally {
    channel.timeouts.idle_ms = idleMs;
    staller.closeAllConnections();
    staller.close();
  }
});

test('a result URL on a private address is never fetched unless the channel trusts its network', { timeout: 20_000 }, async () => {
  const id = await completedVidu('private');
  const channel = stack.gw.gateway.runtime.channel('sim_vidu')!;
  channel.privateNetwork = false;
  try {
    stack.sim.control.clear();
    const r = await call(stack, key, 'GET', `/v1/videos/${id}/content`);
    assert.equal(r.status, 502, r.text);
    assert.equal(r.json.error.code, 'bad_response');
    assert.equal(stack.sim.control.requests().filter((q) => q.path.startsWith('/files/')).length, 0, 'no connection to the private address');
  } finally {
    channel.privateNetwork = true;
  }
  assert.equal((await call(stack, key, 'GET', `/v1/videos/${id}/content`)).status, 200, 'trusted again: served');
});

const peakRss = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

test('concurrent large multipart uploads stream to the vendor in bounded memory', { timeout: 120_000 }, async () => {
  const uri = `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-upload-')), 'store.sqlite')}`;
  const store = await openStore(uri, { quotaFlushMs: 0 });
  const { key: k } = await new TokenStore(store, 0).create({ group: 'default', quota: 10_000_000 });
  await store.close();
  const gw = await spawnGateway({ SWITCHYARD_STORE: uri, SWITCHYARD_SIM_URL: stack.sim.url, SWITCHYARD_CONFIG_DIR: quickTaskConfig() });
  try {
    const base = peakRss(gw.proc.pid!);
    const file = Buffer.alloc(40 << 20, 7);
    file.write('\x89PNG\r\n\x1a\n', 0, 'latin1');
    const upload = async () => {
      const form = new FormData();
      form.append('model', 'sora-2');
      form.append('prompt', 'from a picture [sim polls=50]');
      form.append('input_reference', new Blob([new Uint8Array(file)], { type: 'image/png' }), 'ref.png');
      const res = await fetch(`${gw.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${k}` }, body: form });
      return { status: res.status, text: await res.text() };
    };
    const answers = await Promise.all(Array.from({ length: 5 }, upload));
    for (const a of answers) assert.equal(a.status, 200, a.text.slice(0, 300));
    const upstream = stack.sim.control.requests().filter((q) => q.path === '/v1/videos' && q.method === 'POST');
    assert.ok(upstream.length >= 5);
    const growth = peakRss(gw.proc.pid!) - base;
    console.log(`5 concurrent 40 MB uploads: gateway peak RSS grew by ${(growth / 2 ** 20).toFixed(0)} MiB (buffered whole they would take over 1 GiB)`);
    assert.ok(growth < 150 * 2 ** 20, `peak RSS grew by ${(growth / 2 ** 20).toFixed(0)} MiB`);
  } finally {
    await gw.kill();
  }
});

test('a multipart part without a name, or named __proto__, is a 400 (it once threw out of the parser)', { timeout: 20_000 }, async () => {
  const parts = [
    'content-disposition: form-data\r\n\r\nsora-2',
    'content-disposition: form-data; filename="a.png"\r\ncontent-type: image/png\r\n\r\nPNG',
    'content-disposition: form-data; name="__proto__"; filename="a.png"\r\ncontent-type: image/png\r\n\r\nPNG',
  ];
  for (const part of parts) {
    const body = `--b\r\ncontent-disposition: form-data; name="model"\r\n\r\nsora-2\r\n--b\r\n${part}\r\n--b--\r\n`;
    const r = await fetch(`${stack.url}/v1/videos`, { method: 'POST', body, headers: { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=b' } });
    const j = await r.json() as { error: { code: string; message: string } };
    assert.equal(r.status, 400, JSON.stringify(j));
    assert.equal(j.error.code, 'invalid_request');
    assert.match(j.error.message, /needs a name/);
  }
  assert.equal((await fetch(`${stack.url}/healthz`)).status, 200);
});

test('a JSON body shaped like an upload never makes the gateway read a file of its own disk (found: it uploaded any path named)', { timeout: 20_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-forged-'));
  const secret = join(dir, 'secret.txt');
  writeFileSync(secret, 'the-operators-secret');
  const forged = { filename: 'a.png', content_type: 'image/png', size: 20, path: secret };
  for (const [path, body] of [
    ['/v1/images/edits', { model: 'gpt-image-2', prompt: 'x', image: forged }],
    ['/v1/images/edits', { model: 'gpt-image-2', prompt: 'x', image: [forged, forged] }],
    ['/v1/videos', { model: 'sora-2', prompt: 'x', input_reference: forged }],
  ] as const) {
    const before = stack.sim.control.requests().length;
    const r = await fetch(`${stack.url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
    assert.ok(r.status < 500, `${path}: ${r.status}`);
    for (const sent of stack.sim.control.requests().slice(before)) assert.ok(!String(sent.body).includes('the-operators-secret'), `${path}: the file reached the vendor`);
  }
});

/** A finished task's content, its result file served by `origin`: what the client got and whether it ended whole. */
async function downloadFrom(id: string, origin: Server): Promise<{ status: number; bytes: number; complete: boolean }> {
  const rec = (await stack.gw.gateway.tasks.get(id))!;
  await stack.gw.gateway.tasks.save({ ...rec, result_urls: [`http://127.0.0.1:${(origin.address() as AddressInfo).port}/v.mp4`] });
  return new Promise((resolve) => {
    let bytes = 0;
    request(`${stack.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.on('data', (d: Buffer) => { bytes += d.length; });
      res.on('end', () => resolve({ status: res.statusCode!, bytes, complete: true }));
      res.on('error', () => resolve({ status: res.statusCode!, bytes, complete: false }));
    }).end();
  });
}
