// The relay's mixed path: events translated at once are written at once; an event whose translation waits (a
// transform that went to jsonata) holds the upstream, and it, the rest of its chunk and chunks read meanwhile follow
// in order; a translation that throws cuts the stream. Driven with an in-memory upstream and response.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from '../src/transport/http-client.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { Abort } from '../src/http/abort.js';
import { relaySse, type OnEvent } from '../src/transport/sse-relay.js';

function rig(onEvent: OnEvent) {
  const upstream = new PassThrough();
  const written: string[] = [];
  const res = { write: (s: string) => { written.push(s); return true; }, once: () => res } as unknown as ServerResponse;
  const end = relaySse(upstream as unknown as UpstreamResponse, res, { maxEventBytes: 65536, idleMs: 5000, onEvent, signal: new Abort().signal });
  return { upstream, written, end };
}

const ev = (n: number) => `data: ${n}\n\n`;

test('events stay in order when some translations wait and others do not', async () => {
  // Every third event waits a little; the others answer at once.
  const { upstream, written, end } = rig((e) => {
    const n = Number(e.data);
    return n % 3 === 0 ? sleep(5).then(() => `<${n}>`) : `<${n}>`;
  });
  let sent = '';
  for (let i = 1; i <= 30; i++) {
    sent += ev(i);
    if (i % 4 === 0) { upstream.write(sent); sent = ''; await sleep(1); }
  }
  upstream.end(sent);
  assert.equal(await end, 'eof');
  assert.equal(written.join(''), Array.from({ length: 30 }, (_, i) => `<${i + 1}>`).join(''));
});

test('a chunk translated at once is written in one piece, without a promise', async () => {
  let calls = 0;
  const { upstream, written, end } = rig((e) => { calls++; return `[${e.data}]`; });
  upstream.write(ev(1) + ev(2) + ev(3));
  assert.deepEqual(written, ['[1][2][3]'], 'written synchronously, before any await');
  upstream.end();
  assert.equal(await end, 'eof');
  assert.equal(calls, 3);
});

test('a translation that throws, or whose promise fails, cuts the stream after what came before', async () => {
  const a = rig((e) => { if (e.data === '2') throw new Error('boom'); return `[${e.data}]`; });
  a.upstream.write(ev(1) + ev(2) + ev(3));
  assert.equal(await a.end, 'upstream_cut');
  assert.equal(a.written.join(''), '[1]');
  const b = rig((e) => (e.data === '2' ? Promise.reject(new Error('boom')) : `[${e.data}]`));
  b.upstream.write(ev(1) + ev(2) + ev(3));
  assert.equal(await b.end, 'upstream_cut');
  assert.equal(b.written.join(''), '[1]');
});
