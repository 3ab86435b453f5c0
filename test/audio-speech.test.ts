// POST /v1/audio/speech through the gateway with the official `openai` package: the audio streamed to a file as it
// comes, each format's real bytes, priced per character (tts-1) or by the tokens the vendor reports (gpt-4o-mini-tts,
// Gemini TTS decoded from its events), and refusals before anything is reserved.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { startStack } from './helpers/stack.js';
import { lastRecord as lastRecordOf, tokenClient } from './helpers/token-client.js';

const stack = await startStack();
after(() => stack.close());
const dir = mkdtempSync(join(tmpdir(), 'switchyard-speech-'));

const client = (quota?: number) => tokenClient(stack, quota);
const lastRecord = (id: string) => lastRecordOf(stack, id);

const magic: Record<string, (b: Buffer) => boolean> = {
  mp3: (b) => b.subarray(0, 3).toString('latin1') === 'ID3' || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0),
  wav: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WAVE',
  flac: (b) => b.subarray(0, 4).toString('latin1') === 'fLaC',
  opus: (b) => b.subarray(0, 4).toString('latin1') === 'OggS',
  aac: (b) => b[0] === 0xff && (b[1] & 0xf6) === 0xf0,
};

test('tts-1 streams each format to a file, first bytes before the last are made, charged per character', async () => {
  const { id, openai } = await client();
  for (const format of ['mp3', 'wav', 'flac', 'opus', 'aac', 'pcm'] as const) {
    const before = await stack.balance(id);
    const input = `${'a'.repeat(1990)} [sim seconds=2 interval_ms=40]`;
    const res = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: format });
    const file = join(dir, `speech.${format}`);
    const started = Date.now();
    let firstAt = 0;
    const body = Readable.fromWeb(res.body as any);
    body.once('data', () => { firstAt = Date.now() - started; });
    await pipeline(body, createWriteStream(file));
    const total = Date.now() - started;
    const bytes = readFileSync(file);
    if (format === 'pcm') assert.equal(bytes.length, 2 * 24000 * 2, 'two seconds of 24 kHz 16-bit mono');
    else assert.ok(magic[format](bytes), `${format} bytes look like ${format}`);
    assert.ok(firstAt < total - 40, `${format}: first byte at ${firstAt} ms of ${total} ms, not buffered whole`);
    // $15 per million characters is 0.015 units a character: the 2,020 characters of input are 30.3, paid as 31.
    assert.equal(before! - (await stack.balance(id))!, Math.ceil(input.length * 0.015));
  }
});

test('gpt-4o-mini-tts: audio bytes decoded from the vendor events, charged by the tokens they report', async () => {
  const { id, openai } = await client();
  const res = await openai.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'coral', input: 'Welcome aboard [sim seconds=60]', instructions: 'Cheerful', response_format: 'wav' });
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.ok(magic.wav(bytes));
  assert.equal(res.headers.get('content-type'), 'audio/wav');
  const rec = await lastRecord(id);
  assert.equal(rec.usage.completion_tokens, 1200, '60 s of audio at 20 tokens a second');
  // $0.60 per million text tokens in and $12 per million audio tokens out.
  assert.equal(rec.charged, Math.ceil((rec.usage.prompt_tokens * 600 + 1200 * 12000) / 1e6));
  const sent = stack.sim.control.audioRequests().at(-1)!;
  assert.equal(sent.stream, true, 'asked of the vendor in its event form, the one that reports usage');
});

test('gpt-4o-mini-tts with stream_format sse: speech.audio.delta events and a done with usage', async () => {
  const { openai } = await client();
  const stream = await openai.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'Hi there [sim seconds=3]', stream_format: 'sse', response_format: 'pcm' });
  const text = await stream.text();
  const events = text.split('\n\n').filter((e) => e.startsWith('data: {')).map((e) => JSON.parse(e.slice(6)));
  const deltas = events.filter((e) => e.type === 'speech.audio.delta');
  assert.ok(deltas.length > 1);
  assert.equal(Buffer.concat(deltas.map((d) => Buffer.from(d.audio, 'base64'))).length, 3 * 24000 * 2);
  const done = events.at(-1);
  assert.equal(done.type, 'speech.audio.done');
  assert.equal(done.usage.output_tokens, 60);
  assert.equal(done.usage.total_tokens, done.usage.input_tokens + 60);
});

test('Gemini TTS through the same route: PCM decoded from streamed inlineData, a WAV header written before it', async () => {
  const { id, openai } = await client();
  const res = await openai.audio.speech.create({ model: 'gemini-3.8-flash-tts', voice: 'Kore', input: 'Say hello [sim seconds=4]', response_format: 'wav' });
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.ok(magic.wav(bytes));
  assert.equal(bytes.readUInt32LE(24), 24000, 'the sample rate Google documents');
  assert.equal(bytes.length - 44, 4 * 24000 * 2);
  const rec = await lastRecord(id);
  const audio = rec.usage.completion_tokens;
  assert.ok(audio > 0);
  // $0.50 per million text tokens in, $9 per million audio tokens out.
  assert.equal(rec.charged, Math.ceil((rec.usage.prompt_tokens * 500 + audio * 9000) / 1e6));
});

test('refused before anything is reserved: a format the vendor cannot give, sse on tts-1, too long an input', async () => {
  const { id, openai } = await client();
  const before = stack.sim.control.audioRequests().length;
  const cases: [Record<string, unknown>, string][] = [
    [{ model: 'gemini-3.8-flash-tts', voice: 'Kore', input: 'x', response_format: 'mp3' }, 'response_format'],
    [{ model: 'tts-1', voice: 'alloy', input: 'x', stream_format: 'sse' }, 'stream_format'],
    [{ model: 'tts-1', voice: 'alloy', input: 'x'.repeat(4097) }, 'input'],
    [{ model: 'tts-1', voice: 'alloy', input: 'x', speed: 9 }, 'speed'],
  ];
  for (const [body, field] of cases) {
    const err = await openai.audio.speech.create(body as any).then(() => undefined, (e) => e);
    assert.equal(err?.status, 400, JSON.stringify(body).slice(0, 80));
    assert.match(JSON.stringify(err.error), new RegExp(field), `names ${field}`);
  }
  assert.equal(stack.sim.control.audioRequests().length, before, 'the vendor never saw them');
  assert.equal(await stack.balance(id), 1_000_000);
});

test('a balance too small for the input is refused with 403 and nothing charged', async () => {
  const { id, openai } = await client(10);
  const err = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'y'.repeat(4000) }).then(() => undefined, (e) => e);
  assert.equal(err?.status, 403);
  assert.equal(err.error?.code ?? err.code, 'insufficient_user_quota');
  assert.equal(await stack.balance(id), 10);
});
