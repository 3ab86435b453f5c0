// The simulator's voice HTTP APIs driven directly (no gateway): OpenAI speech (real files per format, SSE, errors),
// transcriptions and translations (multipart uploads of the simulator's own WAV, every response format, streaming,
// usage per model family) and Gemini TTS (PCM whose length matches usageMetadata, plain and streamed).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SPEECH_FORMATS, type Simulator, probe, startSimulator, wavBytes } from '../simulator/server.js';

let sim: Simulator;
before(async () => { sim = await startSimulator(); });
after(() => sim.close());

const AUTH = { authorization: 'Bearer sim-key' };

function speech(body: unknown, headers: Record<string, string> = AUTH): Promise<Response> {
  return fetch(`${sim.url}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

interface Upload { bytes: Buffer; name: string }
const WAV: Upload = { bytes: wavBytes(1.5), name: 'speech.wav' };

function stt(endpoint: 'transcriptions' | 'translations', fields: Record<string, string | string[]>, file: Upload = WAV, headers = AUTH): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.bytes)], { type: 'application/octet-stream' }), file.name);
  for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) form.append(k, x);
  return fetch(`${sim.url}/v1/audio/${endpoint}`, { method: 'POST', headers, body: form });
}

/** The JSON payloads of an SSE body (OpenAI separates with \n\n, Google with \r\n\r\n), `[DONE]` kept as a string. */
function sse(text: string): any[] {
  return text.split(/\r?\n\r?\n/).filter((f) => f.startsWith('data: ')).map((f) => (f === 'data: [DONE]' ? '[DONE]' : JSON.parse(f.slice(6))));
}

const ascii = (b: Buffer, at: number, n: number) => b.subarray(at, at + n).toString('latin1');

/** What each format's bytes must start with: MPEG audio sync (Layer III) or ID3, RIFF/WAVE, OggS+OpusHead, fLaC, ADTS. */
const MAGIC: Record<string, (b: Buffer) => boolean> = {
  mp3: (b) => ascii(b, 0, 3) === 'ID3' || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0 && ((b[1] >> 1) & 3) === 1),
  wav: (b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WAVE',
  opus: (b) => ascii(b, 0, 4) === 'OggS' && ascii(b, 28, 8) === 'OpusHead',
  flac: (b) => ascii(b, 0, 4) === 'fLaC',
  aac: (b) => b[0] === 0xff && (b[1] & 0xf6) === 0xf0, // ADTS sync, layer 00
  pcm: () => true,
};

test('speech: every response_format is a real file of that format, with OpenAI\'s content type', async () => {
  for (const format of SPEECH_FORMATS) {
    const res = await speech({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'Hello there. [sim seconds=1 interval_ms=0]', response_format: format });
    assert.equal(res.status, 200, format);
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.ok(MAGIC[format](bytes), `${format} magic: ${bytes.subarray(0, 8).toString('hex')}`);
    if (format === 'pcm') assert.equal(bytes.length, 1 * 24000 * 2);
    if (format === 'wav') assert.equal(bytes.length, 44 + 24000 * 2);
    if (format === 'aac') assert.equal(((bytes[2] >> 2) & 0xf), 6, 'ADTS sampling index 6 = 24 kHz');
    const p = probe(bytes);
    if (['mp3', 'wav', 'flac', 'opus'].includes(format)) assert.ok(p && Math.abs(p.seconds - 1) < 0.05, `${format} plays ~1 s: ${p?.seconds}`);
    assert.equal(res.headers.get('content-type'), { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' }[format]);
  }
  const rec = sim.control.audioRequests().filter((r) => r.endpoint === 'speech');
  assert.deepEqual(rec.map((r) => r.responseFormat), SPEECH_FORMATS);
  assert.ok(rec.every((r) => r.seconds === 1 && r.stream === false));
});

test('speech: the default format is mp3 and the length follows the input (15 characters a second)', async () => {
  const res = await speech({ model: 'tts-1', voice: 'nova', input: `${'x'.repeat(45)} [sim interval_ms=0]`, response_format: 'pcm' });
  assert.equal(Buffer.from(await res.arrayBuffer()).length, 3 * 48000);
  const mp3 = await speech({ model: 'tts-1', voice: 'nova', input: 'Hi' });
  assert.equal(mp3.headers.get('content-type'), 'audio/mpeg');
  assert.ok(MAGIC.mp3(Buffer.from(await mp3.arrayBuffer())));
});

test('speech: stream_format sse sends speech.audio.delta events then speech.audio.done with usage', async () => {
  const res = await speech({ model: 'gpt-4o-mini-tts', voice: 'coral', input: 'Say it twice [sim seconds=1 interval_ms=0]', instructions: 'Be calm', response_format: 'pcm', stream_format: 'sse' });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = sse(await res.text());
  assert.equal(events.at(-1), '[DONE]');
  const deltas = events.filter((e) => e.type === 'speech.audio.delta');
  assert.ok(deltas.length > 1);
  assert.equal(Buffer.concat(deltas.map((e) => Buffer.from(e.audio, 'base64'))).length, 48000, 'deltas join into 1 s of PCM');
  const done = events.at(-2);
  assert.equal(done.type, 'speech.audio.done');
  // Whitespace-separated words of input (the directive's 3 included) and instructions in; 20 audio tokens a second out.
  assert.deepEqual(done.usage, { input_tokens: 6 + 2, output_tokens: 20, total_tokens: 28 });
});

test('speech: tts-1 and tts-1-hd refuse sse; bad key, unknown voice, unknown model as OpenAI answers', async () => {
  for (const model of ['tts-1', 'tts-1-hd']) {
    const res = await speech({ model, voice: 'alloy', input: 'hi', stream_format: 'sse' });
    assert.equal(res.status, 400);
    const { error } = await res.json();
    assert.equal(error.param, 'stream_format');
    assert.equal(error.code, 'unsupported_value');
  }
  const bad = await speech({ model: 'tts-1', voice: 'alloy', input: 'hi' }, { authorization: 'Bearer sk-wrong-0123456789' });
  assert.equal(bad.status, 401);
  const body = await bad.json();
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(body.error.type, 'invalid_request_error');
  assert.equal(body.error.code, 'invalid_api_key');
  assert.equal(body.error.param, null);
  assert.ok(!body.error.message.includes('sk-wrong-0123456789'), 'the key is masked');
  assert.equal((await speech({ model: 'tts-1', voice: 'alloy', input: 'hi' }, {})).status, 401);

  const voice = await speech({ model: 'tts-1', voice: 'robot', input: 'hi' });
  assert.equal(voice.status, 400);
  assert.deepEqual((({ param, code, type }) => ({ param, code, type }))((await voice.json()).error), { param: 'voice', code: 'invalid_value', type: 'invalid_request_error' });
  const model = await speech({ model: 'missing-tts', voice: 'alloy', input: 'hi' });
  assert.equal(model.status, 404);
  assert.equal((await model.json()).error.code, 'model_not_found');
  const format = await speech({ model: 'tts-1', voice: 'alloy', input: 'hi', response_format: 'ogg' });
  assert.equal((await format.json()).error.param, 'response_format');
  assert.equal((await speech({ model: 'tts-1', voice: 'alloy', input: 'hi', speed: 5 })).status, 400);
  assert.equal((await speech({ model: 'tts-1', voice: { id: 'voice_123' }, input: 'hi' })).status, 200, 'a custom voice object is accepted');
});

test('transcriptions: whisper-1 in json, text, srt, vtt and verbose_json', async () => {
  const text = 'Transcribed 1.5 seconds of audio.';
  const json = await (await stt('transcriptions', { model: 'whisper-1' })).json();
  assert.deepEqual(json, { text, usage: { type: 'duration', seconds: 2 } });
  const rec = sim.control.audioRequests().at(-1)!;
  assert.equal(rec.fileBytes, WAV.bytes.length, 'the upload arrived whole');
  assert.equal(rec.container, 'wav');
  assert.equal(rec.seconds, 1.5);

  const plain = await stt('transcriptions', { model: 'whisper-1', response_format: 'text' });
  assert.match(plain.headers.get('content-type') ?? '', /^text\/plain/);
  assert.equal(await plain.text(), `${text}\n`);
  const srt = await (await stt('transcriptions', { model: 'whisper-1', response_format: 'srt' })).text();
  assert.equal(srt, `1\n00:00:00,000 --> 00:00:01,500\n${text}\n\n\n`);
  const vtt = await (await stt('transcriptions', { model: 'whisper-1', response_format: 'vtt' })).text();
  assert.equal(vtt, `WEBVTT\n\n00:00:00.000 --> 00:00:01.500\n${text}\n\n`);

  const verbose = await (await stt('transcriptions', { model: 'whisper-1', response_format: 'verbose_json', language: 'fr', 'timestamp_granularities[]': ['word', 'segment'] })).json();
  assert.equal(verbose.task, 'transcribe');
  assert.equal(verbose.language, 'french');
  assert.equal(verbose.duration, 1.5);
  assert.equal(verbose.segments.length, 1);
  assert.equal(verbose.segments[0].text, ` ${text}`);
  assert.deepEqual(verbose.words.map((w: any) => w.word), ['Transcribed', '1.5', 'seconds', 'of', 'audio']);
  assert.deepEqual(verbose.usage, { type: 'duration', seconds: 2 });
});

test('transcriptions: gpt-4o-transcribe bills tokens (10 audio tokens a second) and takes json/text only', async () => {
  const r = await (await stt('transcriptions', { model: 'gpt-4o-transcribe', prompt: 'Two words' })).json();
  assert.equal(r.text, 'Transcribed 1.5 seconds of audio.');
  assert.deepEqual(r.usage, { type: 'tokens', total_tokens: 22, input_tokens: 17, input_token_details: { text_tokens: 2, audio_tokens: 15 }, output_tokens: 5 });
  const srt = await stt('transcriptions', { model: 'gpt-4o-transcribe', response_format: 'srt' });
  assert.equal(srt.status, 400);
  assert.equal((await srt.json()).error.code, 'unsupported_value');
  const bad = await stt('transcriptions', { model: 'gpt-4o-transcribe' }, WAV, { authorization: 'Bearer nope' });
  assert.equal(bad.status, 401);
  assert.equal((await bad.json()).error.code, 'invalid_api_key');
});

test('transcriptions: stream=true sends transcript.text.delta words, then transcript.text.done with usage', async () => {
  const res = await stt('transcriptions', { model: 'gpt-4o-mini-transcribe', stream: 'true' });
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = sse(await res.text());
  assert.equal(events.at(-1), '[DONE]');
  const deltas = events.filter((e) => e.type === 'transcript.text.delta');
  assert.equal(deltas.length, 5);
  const done = events.at(-2);
  assert.equal(done.type, 'transcript.text.done');
  assert.equal(deltas.map((e) => e.delta).join(''), done.text);
  assert.equal(done.usage.type, 'tokens');
  assert.equal(done.usage.input_token_details.audio_tokens, 15);
  assert.equal(done.usage.total_tokens, done.usage.input_tokens + done.usage.output_tokens);
  // whisper-1 does not stream: the flag is ignored and the answer is plain JSON.
  const whisper = await stt('transcriptions', { model: 'whisper-1', stream: 'true' });
  assert.match(whisper.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal((await whisper.json()).usage.type, 'duration');
});

test('transcriptions: a file that is not audio is refused with 400', async () => {
  const notes = await stt('transcriptions', { model: 'whisper-1' }, { bytes: Buffer.from('just some notes'), name: 'notes.txt' });
  assert.equal(notes.status, 400);
  assert.match((await notes.json()).error.message, /^Invalid file format/);
  for (const model of ['whisper-1', 'gpt-4o-transcribe']) {
    const fake = await stt('transcriptions', { model }, { bytes: Buffer.from('not really a wav file at all'), name: 'fake.wav' });
    assert.equal(fake.status, 400, model);
    assert.equal((await fake.json()).error.type, 'invalid_request_error');
  }
  const tiny = await stt('transcriptions', { model: 'whisper-1' }, { bytes: wavBytes(0.05), name: 'tiny.wav' });
  assert.equal((await tiny.json()).error.code, 'audio_too_short');
  const json = await fetch(`${sim.url}/v1/audio/transcriptions`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(json.status, 400, 'JSON instead of multipart');
});

test('translations: whisper-1 answers English text without usage; other models are refused', async () => {
  const json = await (await stt('translations', { model: 'whisper-1' })).json();
  assert.deepEqual(json, { text: 'Translated 1.5 seconds of audio.' });
  const verbose = await (await stt('translations', { model: 'whisper-1', response_format: 'verbose_json' })).json();
  assert.equal(verbose.task, 'translate');
  assert.equal(verbose.language, 'english');
  assert.equal(await (await stt('translations', { model: 'whisper-1', response_format: 'text' })).text(), 'Translated 1.5 seconds of audio.\n');
  const other = await stt('translations', { model: 'gpt-4o-transcribe' });
  assert.equal(other.status, 400);
  assert.equal((await other.json()).error.param, 'model');
  assert.equal(sim.control.audioRequests().filter((r) => r.endpoint === 'translations').length, 3);
});

// ---- Gemini TTS ----

const GEMINI = 'gemini-2.5-flash-preview-tts';
function gemini(method: string, body: unknown, query = ''): Promise<Response> {
  return fetch(`${sim.url}/v1beta/models/${GEMINI}:${method}${query}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': 'sim-key' }, body: JSON.stringify(body),
  });
}
const ttsBody = (text: string, config: Record<string, unknown> = { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } }) => ({
  contents: [{ parts: [{ text }] }], generationConfig: config,
});

test('gemini tts: generateContent answers base64 PCM whose length matches usageMetadata (32 tokens a second)', async () => {
  const res = await gemini('generateContent', ttsBody('Say cheerfully: have a wonderful day [sim seconds=1.5]'));
  assert.equal(res.status, 200);
  const r = await res.json();
  const part = r.candidates[0].content.parts[0].inlineData;
  assert.equal(part.mimeType, 'audio/L16;codec=pcm;rate=24000');
  const pcm = Buffer.from(part.data, 'base64');
  assert.equal(pcm.length, 1.5 * 24000 * 2);
  assert.equal(r.candidates[0].finishReason, 'STOP');
  const u = r.usageMetadata;
  assert.equal(u.candidatesTokenCount, (pcm.length / 48000) * 32);
  assert.deepEqual(u.candidatesTokensDetails, [{ modality: 'AUDIO', tokenCount: 48 }]);
  assert.equal(u.promptTokenCount, 8, 'words of the text, the directive\'s two included');
  assert.equal(u.totalTokenCount, u.promptTokenCount + u.candidatesTokenCount);
  assert.equal(sim.control.audioRequests().at(-1)!.endpoint, 'gemini-tts');
});

test('gemini tts: streamGenerateContent?alt=sse slices the PCM; the last chunk carries STOP and the final usage', async () => {
  const res = await gemini('streamGenerateContent', ttsBody('Read this aloud [sim seconds=2 chunks=4]'), '?alt=sse');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const chunks = sse(await res.text());
  assert.equal(chunks.length, 4);
  const pcm = Buffer.concat(chunks.map((c) => Buffer.from(c.candidates[0].content.parts[0].inlineData.data, 'base64')));
  assert.equal(pcm.length, 2 * 48000);
  const last = chunks.at(-1);
  assert.equal(last.candidates[0].finishReason, 'STOP');
  assert.ok(chunks.slice(0, -1).every((c) => c.candidates[0].finishReason === undefined));
  assert.equal(last.usageMetadata.candidatesTokenCount, (pcm.length / 48000) * 32);
  const counts = chunks.map((c) => c.usageMetadata.candidatesTokenCount);
  assert.deepEqual(counts, [...counts].sort((a, b) => a - b), 'usage counts the audio so far');
  // Without alt=sse the stream is one JSON array.
  const array = await (await gemini('streamGenerateContent', ttsBody('Read this aloud [sim seconds=1 chunks=2]'))).json();
  assert.equal(array.length, 2);
});

test('gemini tts: responseModalities other than AUDIO, a bad voice, a bad key are refused with 400', async () => {
  for (const config of [{ responseModalities: ['TEXT'] }, { responseModalities: ['AUDIO', 'TEXT'] }, {}]) {
    const res = await gemini('generateContent', ttsBody('hello', config));
    assert.equal(res.status, 400, JSON.stringify(config));
    const { error } = await res.json();
    assert.equal(error.status, 'INVALID_ARGUMENT');
    assert.match(error.message, /response modalities/);
  }
  const voice = await gemini('generateContent', ttsBody('hello', { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Robot' } } } }));
  assert.equal(voice.status, 400);
  const key = await fetch(`${sim.url}/v1beta/models/${GEMINI}:generateContent?key=wrong`, { method: 'POST', body: JSON.stringify(ttsBody('hello')) });
  assert.equal(key.status, 400);
  assert.equal((await key.json()).error.details[0].reason, 'API_KEY_INVALID');
});
