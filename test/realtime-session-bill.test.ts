// A ten-minute voice session, simulated: twenty turns of thirty seconds of speech each (server VAD off, the client
// commits), each answered in audio, the conversation growing and read back from the vendor's cache. What the gateway
// charged must be what OpenAI's published prices give for the usage the vendor reported, to the unit.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startStack, eventually } from './helpers/stack.js';
import { pcmBytes } from '../simulator/server.js';

const stack = await startStack();
after(() => stack.close());

/** gpt-realtime-2.1, USD per million tokens (developers.openai.com/api/docs/models/gpt-realtime-2.1). */
const RATES = { text: 4, cachedText: 0.4, audio: 32, cachedAudio: 0.4, image: 5, cachedImage: 0.5, textOut: 24, audioOut: 64 };

function usd(u: any): number {
  const i = u.input_token_details;
  const c = i.cached_tokens_details ?? {};
  const o = u.output_token_details;
  return ((i.text_tokens - (c.text_tokens ?? 0)) * RATES.text + (c.text_tokens ?? 0) * RATES.cachedText
    + (i.audio_tokens - (c.audio_tokens ?? 0)) * RATES.audio + (c.audio_tokens ?? 0) * RATES.cachedAudio
    + ((i.image_tokens ?? 0) - (c.image_tokens ?? 0)) * RATES.image + (c.image_tokens ?? 0) * RATES.cachedImage
    + o.text_tokens * RATES.textOut + o.audio_tokens * RATES.audioOut) / 1e6;
}

test('a ten-minute voice session is charged what the vendor price gives for its usage', { timeout: 60_000 }, async () => {
  const quota = 1_000_000;
  const { key, id } = await stack.token({ quota });
  const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v1/realtime?model=gpt-realtime-2.1`, { headers: { authorization: `Bearer ${key}` } });
  const dones: any[] = [];
  let waiting: (() => void) | undefined;
  ws.on('message', (d) => {
    const e = JSON.parse(String(d));
    if (e.type === 'response.done') { dones.push(e.response.usage); waiting?.(); }
  });
  await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
  ws.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', instructions: 'You are a helpful voice assistant [sim chunks=40 interval_ms=0]', audio: { input: { turn_detection: null } } } }));
  const speech = pcmBytes(30);
  for (let turn = 0; turn < 20; turn++) {
    for (let at = 0; at < speech.length; at += 48_000) ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: speech.subarray(at, at + 48_000).toString('base64') }));
    ws.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
    const answered = new Promise<void>((r) => { waiting = r; });
    ws.send(JSON.stringify({ type: 'response.create' }));
    await answered;
  }
  ws.close();
  await new Promise((r) => ws.once('close', r));

  let rec: Record<string, any> | undefined;
  await eventually(() => { rec = stack.logs().find((l) => l.msg === 'request' && l.route === 'realtime' && l.token_id === id); return rec !== undefined; });
  const vendorUsd = dones.reduce((n, u) => n + usd(u), 0);
  const audioIn = dones.reduce((n, u) => n + u.input_token_details.audio_tokens, 0);
  const cached = dones.reduce((n, u) => n + u.input_token_details.cached_tokens, 0);
  const audioOut = dones.reduce((n, u) => n + u.output_token_details.audio_tokens, 0);
  assert.equal(dones.length, 20);
  assert.equal(rec!.charged, Math.ceil(vendorUsd * 1000 - 1e-9), 'the session paid its exact cost, rounded up once');
  assert.equal(await stack.balance(id), quota - rec!.charged);
  assert.ok(rec!.charged <= rec!.reserved);
  console.log(`ten-minute voice session (20 turns × 30 s of speech): ${audioIn} audio tokens in (${cached} input tokens read from cache), ` +
    `${audioOut} audio tokens out; vendor price $${vendorUsd.toFixed(6)}, charged ${rec!.charged} units ($${(rec!.charged / 1000).toFixed(3)}), ` +
    `${rec!.reserved} units held over the session in all`);
});
