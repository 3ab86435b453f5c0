// The simulator's OpenAI Realtime WebSocket driven directly with `ws`: keys in the header or the browser subprotocol,
// session.created first, session.update, the GA event sequence of a response with its usage (cached reads included),
// directed function calls, input audio, in-band refusals, minted client secrets, the session and message limits, the
// control plane's view and close() ending open sockets.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { type Simulator, type SimulatorOptions, pcmBytes, startSimulator } from '../simulator/server.js';
import { realtimeStoreOf } from '../simulator/realtime/store.js';

let sim: Simulator;
before(async () => { sim = await startSimulator(); });
after(() => sim.close());

const AUTH = { authorization: 'Bearer sim-key' };

function shut(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => ws.terminate(), 200);
    ws.once('close', () => { clearTimeout(timer); resolve(); });
    if (ws.readyState === WebSocket.OPEN) ws.close(1000);
    else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
  });
}

/**
 * Opens a socket (closed again in t.after); every event is kept in order. until(type) answers the events from the last
 * one taken up to and including the next of `type`, rejecting after `ms` or when the socket closes first.
 */
function connect(t: TestContext, opts: { query?: string; headers?: Record<string, string>; protocols?: string[]; on?: Simulator } = {}) {
  const base = (opts.on ?? sim).url.replace(/^http/, 'ws');
  const ws = new WebSocket(`${base}/v1/realtime${opts.query ?? '?model=gpt-realtime'}`, opts.protocols ?? [], { headers: opts.headers ?? AUTH });
  const events: any[] = [];
  let cursor = 0;
  let wake = (): void => {};
  ws.on('error', () => {});
  ws.on('message', (d) => { events.push(JSON.parse(String(d))); wake(); });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => { resolve({ code, reason: String(reason) }); wake(); }));
  t.after(() => shut(ws));
  const until = async (type: string, ms = 2000): Promise<any[]> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const i = events.findIndex((e, k) => k >= cursor && e.type === type);
      if (i >= 0) return events.slice(cursor, (cursor = i + 1));
      const seen = events.slice(cursor).map((e) => e.type).join(', ');
      if (ws.readyState === WebSocket.CLOSED) throw new Error(`socket closed before ${type} (after: ${seen})`);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${type} within ${ms} ms (after: ${seen})`)), Math.max(0, deadline - Date.now()));
        wake = () => { clearTimeout(timer); resolve(); };
      });
    }
  };
  const next = async (type: string, ms?: number): Promise<any> => (await until(type, ms)).at(-1);
  return { ws, events, closed, until, next, send: (e: object) => ws.send(JSON.stringify(e)) };
}
type Client = ReturnType<typeof connect>;

async function eventually(check: () => boolean, ms = 1000): Promise<void> {
  for (const end = Date.now() + ms; !check(); await new Promise((r) => setTimeout(r, 10))) if (Date.now() > end) assert.fail('condition not met in time');
}

async function startOwn(t: TestContext, opts: SimulatorOptions): Promise<Simulator> {
  const own = await startSimulator(opts);
  t.after(() => own.close());
  return own;
}

const say = (c: Client, text: string) => c.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
const recordOf = (id: string, on = sim) => on.control.realtimeSessions().find((r) => r.id === id);

test('Bearer key: session.created comes first, session.update answers session.updated, bad events answer error', async (t) => {
  const c = connect(t);
  const created = await c.next('session.created');
  assert.equal(c.events[0].type, 'session.created');
  assert.equal(c.ws.protocol, '');
  const s = created.session;
  assert.deepEqual({ type: s.type, model: s.model, voice: s.audio.output.voice }, { type: 'realtime', model: 'gpt-realtime', voice: 'marin' });
  assert.match(s.id, /^sess_/);
  assert.deepEqual(s.audio.input.format, { type: 'audio/pcm', rate: 24000 });
  assert.equal(s.audio.input.turn_detection.type, 'server_vad');
  c.send({ type: 'session.update', session: { type: 'realtime', instructions: 'Be brief.', output_modalities: ['text'] } });
  const { session: u } = await c.next('session.updated');
  assert.deepEqual({ instructions: u.instructions, modalities: u.output_modalities, id: u.id }, { instructions: 'Be brief.', modalities: ['text'], id: s.id });
  c.send({ type: 'session.update', event_id: 'evt_1', session: { instructions: 'no type' } });
  const err = await c.next('error');
  assert.deepEqual(err.error, { type: 'invalid_request_error', code: 'missing_required_parameter', message: "Missing required parameter: 'session.type'.", param: 'session.type', event_id: 'evt_1' });
  c.ws.send('not json');
  assert.equal((await c.next('error')).error.code, 'invalid_json');
  c.send({ type: 'response.dance' });
  assert.equal((await c.next('error')).error.param, 'type');
  assert.equal(c.ws.readyState, WebSocket.OPEN, 'errors keep the session open');
});

test('browser form: the key in the openai-insecure-api-key subprotocol, answered with `realtime`', async (t) => {
  const c = connect(t, { headers: {}, protocols: ['realtime', 'openai-insecure-api-key.sim-key'] });
  const { session } = await c.next('session.created');
  assert.equal(c.ws.protocol, 'realtime');
  assert.deepEqual((({ key, keyKind }) => ({ key, keyKind }))(recordOf(session.id)!), { key: 'sim-key', keyKind: 'api_key' });
});

test('text turn: item + response.create play the GA event sequence, response.done carries usage, later turns read cache', async (t) => {
  const c = connect(t);
  const { session } = await c.next('session.created');
  const instructions = words(session.instructions);
  say(c, 'Hello there, how are you?');
  const added = await c.until('conversation.item.done');
  assert.deepEqual(added.map((e) => e.type), ['conversation.item.added', 'conversation.item.done']);
  c.send({ type: 'response.create' });
  const seq = await c.until('response.done');
  const deltas = Array.from({ length: 5 }, () => ['response.output_audio.delta', 'response.output_audio_transcript.delta']).flat();
  assert.deepEqual(seq.map((e) => e.type), [
    'response.created', 'response.output_item.added', 'conversation.item.added', 'response.content_part.added', ...deltas,
    'response.output_audio.done', 'response.output_audio_transcript.done', 'response.content_part.done',
    'conversation.item.done', 'response.output_item.done', 'response.done',
  ]);
  for (const e of seq.filter((x) => x.type === 'response.output_audio.delta')) assert.equal(Buffer.from(e.delta, 'base64').length, 4800, '100 ms of PCM16 at 24 kHz');
  const done = seq.at(-1).response;
  assert.equal(done.status, 'completed');
  assert.equal(done.output[0].content[0].type, 'output_audio');
  assert.equal(done.output[0].content[0].transcript, seq.filter((e) => e.type === 'response.output_audio_transcript.delta').map((e) => e.delta).join(''));
  const u1 = done.usage;
  assert.deepEqual(u1.output_token_details, { text_tokens: 5, audio_tokens: 10 });
  assert.deepEqual(u1.input_token_details, {
    text_tokens: instructions + 5, audio_tokens: 0, image_tokens: 0, cached_tokens: 0, cached_tokens_details: { text_tokens: 0, audio_tokens: 0, image_tokens: 0 },
  });
  assert.equal(u1.total_tokens, u1.input_tokens + u1.output_tokens);
  assert.ok((await c.next('rate_limits.updated')).rate_limits[0].remaining > 0);

  // The whole conversation is input again; what the first response left (its input and output) is read from cache in 64s.
  say(c, 'And again?');
  c.send({ type: 'response.create' });
  const u2 = (await c.next('response.done')).response.usage;
  assert.equal(u2.input_token_details.text_tokens, instructions + 5 + 5 + 2);
  assert.equal(u2.input_token_details.audio_tokens, 10, 'the assistant audio is input now');
  const cached = u2.input_token_details.cached_tokens;
  assert.ok(cached > 0 && cached % 64 === 0, `cached ${cached}`);
  assert.equal(cached, Math.floor((instructions + 10) / 64) * 64);
  assert.equal(u2.input_token_details.cached_tokens_details.text_tokens + u2.input_token_details.cached_tokens_details.audio_tokens, cached);
  const { responses, total_tokens, cached_tokens } = recordOf(session.id)!.usage;
  assert.deepEqual({ responses, total_tokens, cached_tokens }, { responses: 2, total_tokens: u1.total_tokens + u2.total_tokens, cached_tokens: cached });
});

test('function call: [sim tool_call=NAME] on a declared tool streams its arguments; the output then gets an answer', async (t) => {
  const c = connect(t);
  await c.next('session.created');
  const tool = { type: 'function', name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { location: { type: 'string' } } } };
  c.send({ type: 'session.update', session: { type: 'realtime', tools: [tool], output_modalities: ['text'] } });
  await c.next('session.updated');
  say(c, 'Weather in Paris? [sim tool_call=get_weather]');
  c.send({ type: 'response.create' });
  const seq = await c.until('response.done');
  const args = seq.filter((e) => e.type === 'response.function_call_arguments.delta').map((e) => e.delta);
  const doneArgs = seq.find((e) => e.type === 'response.function_call_arguments.done');
  assert.deepEqual({ deltas: args.length, joined: args.join(''), done: doneArgs.arguments }, { deltas: 5, joined: '{"location":"Paris"}', done: '{"location":"Paris"}' });
  const call = seq.at(-1).response.output[0];
  assert.deepEqual({ type: call.type, name: call.name, status: call.status, arguments: call.arguments }, { type: 'function_call', name: 'get_weather', status: 'completed', arguments: '{"location":"Paris"}' });
  assert.match(call.call_id, /^call_/);
  assert.equal(doneArgs.call_id, call.call_id);
  c.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: call.call_id, output: '{"temperature":21}' } });
  c.send({ type: 'response.create' });
  const answer = await c.until('response.done');
  assert.equal(answer.filter((e) => e.type === 'response.output_text.delta').length, 5);
  const msg = answer.at(-1).response.output[0];
  assert.deepEqual({ type: msg.type, part: msg.content[0].type }, { type: 'message', part: 'output_text' });
});

test('input audio: append PCM then commit makes a user item, transcribed and billed at 10 tokens a second', async (t) => {
  const c = connect(t);
  const { session } = await c.next('session.created');
  c.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: null, transcription: { model: 'whisper-1' } } } } });
  assert.equal((await c.next('session.updated')).session.audio.input.turn_detection, null);
  c.send({ type: 'input_audio_buffer.commit' });
  assert.equal((await c.next('error')).error.code, 'input_audio_buffer_commit_empty');
  const pcm = pcmBytes(1);
  for (let i = 0; i < 4; i++) c.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(i * 12000, (i + 1) * 12000).toString('base64') });
  c.send({ type: 'input_audio_buffer.commit' });
  const committed = await c.until('input_audio_buffer.committed');
  assert.ok(!committed.some((e) => e.type === 'input_audio_buffer.speech_started'), 'no VAD when turn_detection is null');
  const id = committed.at(-1).item_id;
  const item = (await c.next('conversation.item.done')).item;
  assert.deepEqual({ id: item.id, role: item.role, type: item.content[0].type }, { id, role: 'user', type: 'input_audio' });
  const { transcript, usage: sttUsage } = await c.next('conversation.item.input_audio_transcription.completed');
  assert.deepEqual({ transcript, sttUsage }, { transcript: 'Transcribed 1 second of audio.', sttUsage: { type: 'duration', seconds: 1 } });
  c.send({ type: 'response.create' });
  const usage = (await c.next('response.done')).response.usage;
  assert.equal(usage.input_token_details.audio_tokens, 10);
  assert.equal(recordOf(session.id)!.inputAudioSeconds, 1);
});

test('server VAD: appends then silence give speech_started/stopped, a commit and a response of their own', async (t) => {
  const c = connect(t);
  await c.next('session.created');
  c.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 30 } } } } });
  await c.next('session.updated');
  c.send({ type: 'input_audio_buffer.append', audio: pcmBytes(0.5).toString('base64') });
  const seq = await c.until('response.done');
  const types = seq.map((e) => e.type);
  assert.deepEqual(types.slice(0, 3), ['input_audio_buffer.speech_started', 'input_audio_buffer.speech_stopped', 'input_audio_buffer.committed']);
  assert.deepEqual([seq[0].audio_start_ms, seq[1].audio_end_ms, seq[2].item_id], [0, 500, seq[0].item_id]);
  assert.ok(types.includes('response.created'));
  assert.equal(seq.at(-1).response.usage.input_token_details.audio_tokens, 5);
});

test('a wrong or missing key is refused in band: error event, then close 3000; no model: close 4000', async (t) => {
  const before = sim.control.realtimeSessions().length;
  const attempts: Record<string, string>[] = [{ authorization: 'Bearer sk-wrong-0123456789' }, {}];
  for (const headers of attempts) {
    const c = connect(t, { headers });
    const err = await c.next('error');
    assert.equal(err.error.code, 'invalid_api_key');
    assert.ok(!err.error.message.includes('sk-wrong-0123456789'), 'the key is masked');
    assert.deepEqual(await c.closed, { code: 3000, reason: 'invalid_request_error.invalid_api_key' });
    assert.ok(!c.events.some((e) => e.type === 'session.created'));
  }
  const noModel = connect(t, { query: '' });
  assert.equal((await noModel.next('error')).error.code, 'missing_model');
  assert.deepEqual(await noModel.closed, { code: 4000, reason: 'invalid_request_error.missing_model' });
  assert.equal(sim.control.realtimeSessions().length, before, 'refused sockets make no session');
});

test('client secrets: minted with an API key, open sessions with their config until they expire', async (t) => {
  const mint = (body: unknown, key = 'sim-key') => fetch(`${sim.url}/v1/realtime/client_secrets`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const res = await mint({ expires_after: { anchor: 'created_at', seconds: 60 }, session: { type: 'realtime', model: 'gpt-realtime-mini', instructions: 'Speak like a pirate.' } });
  assert.equal(res.status, 200);
  const secret = await res.json();
  assert.match(secret.value, /^ek_/);
  assert.ok(Math.abs(secret.expires_at - (Date.now() / 1000 + 60)) < 3);
  assert.equal(secret.session.model, 'gpt-realtime-mini');

  // No ?model: the secret's session decides. The secret stays valid (reusable) until it expires.
  const a = connect(t, { query: '', headers: { authorization: `Bearer ${secret.value}` } });
  const { session } = await a.next('session.created');
  assert.deepEqual([session.model, session.instructions, recordOf(session.id)!.keyKind], ['gpt-realtime-mini', 'Speak like a pirate.', 'client_secret']);
  const b = connect(t, { headers: {}, protocols: ['realtime', `openai-insecure-api-key.${secret.value}`] });
  assert.equal((await b.next('session.created')).session.model, 'gpt-realtime-mini');

  realtimeStoreOf(sim.control).secrets.get(secret.value)!.expiresAt = Date.now() - 1; // fast-forward past expiry
  const late = connect(t, { headers: { authorization: `Bearer ${secret.value}` } });
  assert.equal((await late.next('error')).error.code, 'invalid_api_key');
  assert.equal((await late.closed).code, 3000);

  assert.equal((await mint({}, secret.value)).status, 401, 'a client secret cannot mint another');
  const short = await mint({ expires_after: { anchor: 'created_at', seconds: 5 } });
  assert.deepEqual([short.status, (await short.json()).error.code], [400, 'integer_below_min_value']);
});

test('maxSessionMs: the session ends with a session_expired error and close 1001', async (t) => {
  const own = await startOwn(t, { realtime: { maxSessionMs: 300 } });
  const started = Date.now();
  const c = connect(t, { on: own });
  const { session } = await c.next('session.created');
  const { error } = await c.next('error', 3000);
  assert.deepEqual([error.code, error.message], ['session_expired', 'Your session hit the maximum duration of 0.3 seconds.']);
  assert.equal((await c.closed).code, 1001);
  assert.ok(Date.now() - started >= 250, `expired after ${Date.now() - started} ms`);
  await eventually(() => recordOf(session.id, own)?.open === false);
  assert.equal(recordOf(session.id, own)!.closedBy, 'server');
});

test('maxMessageBytes: a bigger client message closes the socket with 1009', async (t) => {
  const own = await startOwn(t, { realtime: { maxMessageBytes: 1024 } });
  const c = connect(t, { on: own });
  const { session } = await c.next('session.created');
  c.send({ type: 'session.update', session: { type: 'realtime', instructions: 'small' } });
  await c.next('session.updated');
  c.send({ type: 'input_audio_buffer.append', audio: pcmBytes(0.05).toString('base64') }); // 2400 bytes, 3200 in base64
  assert.equal((await c.closed).code, 1009);
  await eventually(() => recordOf(session.id, own)?.open === false);
  const rec = recordOf(session.id, own)!;
  assert.deepEqual({ code: rec.closeCode, by: rec.closedBy }, { code: 1009, by: 'server' }, 'the simulator closed it, with 1009');
  assert.equal(own.control.openRealtimeSessions(), 0);
});

test('control: realtimeSessions() shows an open session, then open:false with its close after the client leaves', async (t) => {
  const c = connect(t);
  const { session } = await c.next('session.created');
  c.send({ type: 'session.update', session: { type: 'realtime', instructions: 'hi' } });
  await c.next('session.updated');
  const rec = recordOf(session.id)!;
  assert.deepEqual({ open: rec.open, model: rec.model, key: rec.key, closedAt: rec.closedAt }, { open: true, model: 'gpt-realtime', key: 'sim-key', closedAt: null });
  assert.deepEqual(rec.clientEvents, { 'session.update': 1 });
  assert.deepEqual(rec.serverEvents, { 'session.created': 1, 'session.updated': 1 });
  assert.ok(sim.control.openRealtimeSessions() >= 1);
  const view = await (await fetch(`${sim.url}/_sim/realtime`)).json();
  assert.equal(view.data.find((r: any) => r.id === session.id).open, true);
  c.ws.close(1000, 'bye');
  await c.closed;
  await eventually(() => recordOf(session.id)?.open === false);
  const closed = recordOf(session.id)!;
  assert.deepEqual({ code: closed.closeCode, reason: closed.closeReason, by: closed.closedBy }, { code: 1000, reason: 'bye', by: 'client' });
  assert.ok(closed.closedAt! >= closed.openedAt);
});

test('close(): the simulator ends its open sockets with 1001', async (t) => {
  const own = await startOwn(t, {});
  const c = connect(t, { on: own });
  const { session } = await c.next('session.created');
  await own.close();
  assert.deepEqual(await c.closed, { code: 1001, reason: 'Server shutting down' });
  const rec = recordOf(session.id, own)!;
  assert.deepEqual({ open: rec.open, by: rec.closedBy, live: own.control.openRealtimeSessions() }, { open: false, by: 'server', live: 0 });
});
