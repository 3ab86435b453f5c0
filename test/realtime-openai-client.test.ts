// The official `openai` package's Realtime WebSocket client through the gateway, which serves TLS itself here (that
// client dials wss:// only): a whole voice turn (audio in, server VAD, a function call answered, audio out), charged
// from each response.done at the model's prices; and a client secret minted with the same package opening a session.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { Agent } from 'undici';
import { startStack, eventually } from './helpers/stack.js';
import { makeTestCerts } from './helpers/tls-certs.js';
import { pcmBytes } from '../simulator/server.js';

const certs = makeTestCerts();
const ca = readFileSync(certs.ca);
const stack = await startStack({ env: { SWITCHYARD_TLS_CERT: certs.serverCert, SWITCHYARD_TLS_KEY: certs.serverKey } });
const dispatcher = new Agent({ connect: { ca } });
after(async () => { await stack.close(); await dispatcher.close(); });

const openaiFor = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${stack.url}/v1`, maxRetries: 0, fetchOptions: { dispatcher } as any });
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const weather = { type: 'function' as const, name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

const seen = new WeakMap<OpenAIRealtimeWS, any[]>();

/** Resolves with the first event of `type` not yet taken, seen before or after the call (or rejects on an error event). */
function next(rt: OpenAIRealtimeWS, type: string): Promise<any> {
  const events = seen.get(rt)!;
  const i = events.findIndex((e) => e.type === type || e.type === 'error');
  if (i >= 0) {
    const [e] = events.splice(i, 1);
    return e.type === 'error' ? Promise.reject(new Error(JSON.stringify(e.error))) : Promise.resolve(e);
  }
  return new Promise((resolve, reject) => {
    const on = (e: any) => {
      if (e.type !== type && e.type !== 'error') return;
      rt.off('event', on);
      events.splice(events.indexOf(e), 1);
      if (e.type === 'error') reject(new Error(JSON.stringify(e.error)));
      else resolve(e);
    };
    rt.on('event', on);
  });
}

/** Opens a session; every event is kept from the first, since the vendor's first may come with the upgrade's answer. */
async function open(apiKey: string, model = 'gpt-realtime-2.1'): Promise<OpenAIRealtimeWS> {
  const rt = new OpenAIRealtimeWS({ model, options: { ca } }, openaiFor(apiKey));
  const events: any[] = [];
  seen.set(rt, events);
  rt.on('event', (e: any) => events.push(e));
  rt.on('error', () => undefined); // asserted through next()
  await new Promise<void>((resolve, reject) => { rt.socket.once('open', () => resolve()); rt.socket.once('error', reject); });
  return rt;
}

function closeOf(rt: OpenAIRealtimeWS): Promise<number> {
  return new Promise((r) => rt.socket.once('close', (code) => r(code)));
}

test('a voice turn with a function call over wss://, charged from each response.done', async () => {
  assert.match(stack.url, /^https:/);
  const { key, id } = await stack.token({ quota: 1_000_000 });
  const rt = await open(key);
  const created = await next(rt, 'session.created');
  assert.equal(created.session.model, 'gpt-realtime-2.1');
  rt.send({
    type: 'session.update',
    session: {
      type: 'realtime', tools: [weather], tool_choice: 'auto',
      instructions: `Answer about the weather [sim tool_call=get_weather tool_args=${b64({ city: 'Paris' })}]`,
      audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 200 } } },
    },
  });
  await next(rt, 'session.updated');
  // Two seconds of speech in 100 ms frames; the vendor's VAD hears it stop, commits it and answers on its own.
  const speech = pcmBytes(2);
  for (let at = 0; at < speech.length; at += 4800) rt.send({ type: 'input_audio_buffer.append', audio: speech.subarray(at, at + 4800).toString('base64') });
  await next(rt, 'input_audio_buffer.committed');
  const call = await next(rt, 'response.function_call_arguments.done');
  assert.equal(call.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
  const first = await next(rt, 'response.done');
  rt.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: call.call_id, output: '{"temp_c":21}' } });
  rt.send({ type: 'response.create' });
  const audio: Buffer[] = [];
  const onAudio = (e: any) => { if (e.type === 'response.output_audio.delta') audio.push(Buffer.from(e.delta, 'base64')); };
  rt.on('event', onAudio);
  const second = await next(rt, 'response.done');
  assert.ok(audio.length > 0 && Buffer.concat(audio).length > 0, 'the answer came as audio');
  const closed = closeOf(rt);
  rt.close();
  await closed;

  const usages = [first.response.usage, second.response.usage];
  assert.ok(usages[0].input_token_details.audio_tokens > 0, 'the spoken turn was billed as audio in');
  let rec: Record<string, any> | undefined;
  await eventually(() => { rec = stack.logs().find((l) => l.msg === 'request' && l.token_id === id && l.route === 'realtime'); return rec !== undefined; });
  assert.equal(rec!.status, 101);
  assert.equal(rec!.outcome, 'done');
  // Per million: text in $4 (cached $0.40), audio in $32 (cached $0.40), text out $24, audio out $64.
  const cost = usages.reduce((n, u) => {
    const i = u.input_token_details;
    const c = i.cached_tokens_details ?? { text_tokens: 0, audio_tokens: 0 };
    return n + (i.text_tokens - c.text_tokens) * 4000 + c.text_tokens * 400 + (i.audio_tokens - c.audio_tokens) * 32000 + c.audio_tokens * 400
      + u.output_token_details.text_tokens * 24000 + u.output_token_details.audio_tokens * 64000;
  }, 0) / 1e6;
  assert.equal(rec!.charged, Math.ceil(cost - 1e-9));
  assert.equal(await stack.balance(id), 1_000_000 - rec!.charged, 'every hold given back, only the charge kept');
  assert.ok(rec!.charged <= rec!.reserved);
});

test('a client secret minted with the openai package opens a session pinned to its model and settings', async () => {
  const { key, id } = await stack.token({ quota: 1_000_000 });
  const secret = await openaiFor(key).realtime.clientSecrets.create({
    expires_after: { anchor: 'created_at', seconds: 60 },
    session: { type: 'realtime', model: 'gpt-realtime-2.1-mini', instructions: 'Be brief' },
  });
  assert.match(secret.value, /^ek_/);
  assert.ok(secret.expires_at > Date.now() / 1000 && secret.expires_at <= Date.now() / 1000 + 61);
  assert.equal(secret.session.type, 'realtime');

  const rt = await open(secret.value, 'gpt-realtime-2.1-mini');
  await next(rt, 'session.created');
  const updated = await next(rt, 'session.updated');
  assert.equal(updated.session.instructions, 'Be brief', 'the settings the secret was minted with');
  rt.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] } });
  rt.send({ type: 'response.create' });
  await next(rt, 'response.done');
  const closed = closeOf(rt);
  rt.close();
  await closed;
  await eventually(async () => (await stack.balance(id))! < 1_000_000, 3000);

  // The secret names its model: another is refused; and the secret itself cannot mint more or call other routes.
  const other = new OpenAIRealtimeWS({ model: 'gpt-realtime-2.1', options: { ca } }, openaiFor(secret.value));
  const refused = await new Promise<number>((r) => other.socket.once('unexpected-response', (_req, res) => r(res.statusCode!)));
  assert.equal(refused, 403);
  const mint = await openaiFor(secret.value).realtime.clientSecrets.create({ session: { type: 'realtime' } }).then(() => 0, (e) => e.status);
  assert.equal(mint, 401);
  const chat = await openaiFor(secret.value).chat.completions.create({ model: 'gpt-6', messages: [{ role: 'user', content: 'hi' }] }).then(() => 0, (e) => e.status);
  assert.equal(chat, 401);
});
