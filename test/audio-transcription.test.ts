// POST /v1/audio/transcriptions and /translations through the gateway with the official `openai` package: a real
// WAV (plain and streamed), every response format, priced from the upload's length before anything is reserved and
// charged what the vendor reports (seconds for whisper-1, tokens for the gpt-4o models); bad files refused with 400.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { toFile } from 'openai';
import { startStack } from './helpers/stack.js';
import { lastRecord as lastRecordOf, tokenClient } from './helpers/token-client.js';
import { mp3Bytes, wavBytes } from '../simulator/server.js';

const stack = await startStack();
after(() => stack.close());

const client = (quota?: number) => tokenClient(stack, quota);
const lastRecord = (id: string) => lastRecordOf(stack, id);

const wav = (seconds: number, rate = 16000) => toFile(wavBytes(seconds, rate), 'speech.wav', { type: 'audio/wav' });

test('whisper-1 on a 95-second WAV: the text, and 95 seconds at $0.006 a minute', async () => {
  const { id, openai } = await client();
  const r = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await wav(95) });
  assert.equal(typeof r.text, 'string');
  assert.ok(r.text.length > 0);
  const rec = await lastRecord(id);
  assert.equal(rec.usage.seconds, 95);
  assert.equal(rec.charged, Math.ceil(95 * 0.1), '0.1 units a second');
  assert.equal(rec.reserved, Math.ceil(95 * 0.1), 'reserved from the header: the same 95 seconds');
  assert.equal(await stack.balance(id), 1_000_000 - 10);
});

test('every response format comes back as the vendor wrote it', async () => {
  const { openai } = await client();
  const srt = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await wav(5), response_format: 'srt' });
  assert.match(String(srt), /^1\r?\n00:00:00,000 --> /);
  const vtt = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await wav(5), response_format: 'vtt' });
  assert.match(String(vtt), /^WEBVTT/);
  const text = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await wav(5), response_format: 'text' });
  assert.equal(typeof text, 'string');
  const verbose = await openai.audio.transcriptions.create({ model: 'whisper-1', file: await wav(5), response_format: 'verbose_json', timestamp_granularities: ['word', 'segment'] });
  assert.equal(verbose.duration, 5);
  assert.ok(Array.isArray(verbose.segments) && verbose.segments.length > 0);
  assert.ok(Array.isArray(verbose.words) && verbose.words.length > 0, 'the repeated timestamp_granularities[] fields reached the vendor');
});

test('gpt-4o-transcribe streamed: transcript.text.delta events, a done with usage, charged by its tokens', async () => {
  const { id, openai } = await client();
  const stream = await openai.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await wav(30), stream: true });
  const types: string[] = [];
  let done: any;
  for await (const ev of stream) {
    types.push(ev.type);
    if (ev.type === 'transcript.text.done') done = ev;
  }
  assert.ok(types.filter((t) => t === 'transcript.text.delta').length > 1);
  assert.equal(types.at(-1), 'transcript.text.done');
  const u = done.usage;
  assert.ok(u.input_tokens > 0 && u.output_tokens > 0);
  const rec = await lastRecord(id);
  assert.equal(rec.usage.prompt_tokens, u.input_tokens);
  // $2.50 per million tokens in, $10 out.
  assert.equal(rec.charged, Math.ceil((u.input_tokens * 2500 + u.output_tokens * 10000) / 1e6));
});

test('translation of an MP3 to English', async () => {
  const { id, openai } = await client();
  const r = await openai.audio.translations.create({ model: 'whisper-1', file: await toFile(mp3Bytes(12), 'talk.mp3', { type: 'audio/mpeg' }) });
  assert.ok(r.text.length > 0);
  const rec = await lastRecord(id);
  assert.equal(rec.route, 'audio_translations');
  assert.equal(rec.charged, Math.ceil(12 * 0.1));
});

test('refused with 400 before anything is reserved: not audio, over the vendor limit, longer than the model takes', async () => {
  const { id, openai } = await client();
  const before = stack.sim.control.audioRequests().length;
  const cases: [() => Promise<unknown>, RegExp][] = [
    [async () => openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(Buffer.from('not audio at all, just text'), 'a.wav') }), /file/],
    [async () => openai.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(Buffer.alloc(26 * 1024 * 1024 - 4096, 1), 'big.wav') }), /file/],
    [async () => openai.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await wav(1500, 8000) }), /file|seconds|1400/],
    [async () => openai.audio.transcriptions.create({ model: 'whisper-1', file: await wav(2), response_format: 'mp3' as any }), /response_format/],
  ];
  for (const [call, names] of cases) {
    const err: any = await call().then(() => undefined, (e) => e);
    assert.equal(err?.status, 400, String(err?.message));
    assert.match(JSON.stringify(err.error), names);
  }
  assert.equal(stack.sim.control.audioRequests().length, before, 'the vendor never saw them');
  assert.equal(await stack.balance(id), 1_000_000);
});
