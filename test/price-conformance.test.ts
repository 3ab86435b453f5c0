// Proven against the vendors' formulas: one conformance table per vendor, each row a model, the request's fields, the
// usage the vendor reports in its own shape, and the charge its published formula gives, computed here from the list
// prices typed in below (USD, or CNY at 7 CNY = 1 USD) with the page each comes from — never read from vendors/*.yaml
// nor computed by src/billing. Every row runs end to end on the production config (deploy/config) against the bundled
// simulator, whose `usage=` directive makes the vendor report the row's usage (tasks report what each vendor's API
// reports: Kling's units, Vidu's credits, Ark's tokens, DashScope's seconds). The charge is read from the ledger and
// must be ceil(USD × 1000) units, within the reservation. Where the research notes (2026-11-27, kept outside the repository)
// leave a choice, the vendor file's stated reading is followed and the comment says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startProduction } from './helpers/production.js';
import type { Stack } from './helpers/stack.js';
import { fastTasks } from './helpers/video.js';
import { outcomes, runTable, summary, type Row, type Via } from './helpers/conformance.js';

let stack: Stack;
before(async () => {
  stack = await startProduction();
  fastTasks(stack);
});
after(async () => {
  console.log(summary());
  await stack?.close();
});

type Body = Record<string, unknown>;
type Usage = Record<string, any>;
const num = (v: unknown) => (typeof v === 'number' ? v : 0);
const table = (vendor: string, rows: Row[]) => test(vendor, { concurrency: 8 }, async (t) => { await runTable(t, stack, vendor, rows); });

// ---- OpenAI chat: /v1/chat/completions (JSON and stream) and /v1/responses -------------------------------------------
// USD per million tokens.
// - gpt-6.2-sol: developers.openai.com/api/docs/models/gpt-6.2-sol — input $2, cached input $0.10, cache writes $2.50,
//   output $10; "For requests with more than 272K input tokens, input and cache rates double and output costs 1.5 times
//   the short-context rate for the full request"; "Fast mode costs twice the Standard rate for the same context length";
//   Ultrafast 3× through 2027-02-28; a 12-hour prompt-cache retention bills cache writes at $5 ("for short-context
//   requests at Standard pricing"). Flex is not on the stored page: 50% is the vendor file's reading (gpt-6-luna's page).
// - gpt-6.2-astra: $8 / $40 (four copies of OpenAI's table; no official page in reach); cached input 5% and cache writes
//   1.25× input, the long-context, Fast and Flex rules are the vendor file's reading (the GPT-6 family's published ratios).
// - gpt-6-luna: developers.openai.com/ja-JP/api/docs/models/gpt-6-luna — $0.10, cached 10% ($0.01), cache writes 1.25×
//   ($0.125), $0.50; long context 2× input and cache, 1.5× output; Batch and Flex 50%; Fast 2×.
// - gpt-4o, gpt-4o-mini: OpenAI's price table (copies citing developers.openai.com/api/docs/pricing) — $2.50 / $1.25 /
//   $10 and $0.15 / $0.075 / $0.60; Priority (openai.com/api-priority-processing): $4.25 / $2.125 / $17 and $0.25 /
//   $0.125 / $1.00. No Flex, no long-context rule.
// Formula: uncached input (prompt − cached − cache writes) × input + cached × cached rate + writes × write rate +
// completion tokens (reasoning included) × output, at the long-context rates when the prompt is above 272K, times the
// service tier's factor (or at its own rates).
interface OpenAIRates { input: number; cached: number; write?: number; output: number }
const OPENAI: Record<string, { rates: OpenAIRates; longContext?: true; tiers: Record<string, number | OpenAIRates> }> = {
  'gpt-6.2-sol': { rates: { input: 2, cached: 0.1, write: 2.5, output: 10 }, longContext: true, tiers: { auto: 1, default: 1, priority: 2, fast: 2, flex: 0.5, ultrafast: 3 } },
  'gpt-6.2-astra': { rates: { input: 8, cached: 0.4, write: 10, output: 40 }, longContext: true, tiers: { auto: 1, default: 1, priority: 2, fast: 2, flex: 0.5 } },
  'gpt-6-luna': { rates: { input: 0.1, cached: 0.01, write: 0.125, output: 0.5 }, longContext: true, tiers: { auto: 1, default: 1, priority: 2, fast: 2, flex: 0.5 } },
  'gpt-4o': { rates: { input: 2.5, cached: 1.25, output: 10 }, tiers: { auto: 1, default: 1, priority: { input: 4.25, cached: 2.125, output: 17 } } },
  'gpt-4o-mini': { rates: { input: 0.15, cached: 0.075, output: 0.6 }, tiers: { auto: 1, default: 1, priority: { input: 0.25, cached: 0.125, output: 1 } } },
};

function openaiUsd(model: string, body: Body, u: Usage): number {
  const p = OPENAI[model];
  const prompt = num(u.prompt_tokens ?? u.input_tokens);
  const details = u.prompt_tokens_details ?? u.input_tokens_details ?? {};
  const cached = num(details.cached_tokens);
  const writes = num(details.cache_write_tokens);
  const completion = num(u.completion_tokens ?? u.output_tokens);
  let r = p.rates;
  if (model === 'gpt-6.2-sol' && body.prompt_cache_retention === '12h') r = { ...r, write: 5 };
  if (p.longContext && prompt > 272_000) r = { input: r.input * 2, cached: r.cached * 2, write: r.write! * 2, output: r.output * 1.5 };
  const tier = p.tiers[String(body.service_tier ?? 'auto')];
  if (typeof tier === 'object') r = tier;
  const factor = typeof tier === 'number' ? tier : 1;
  return (((prompt - cached - writes) * r.input + cached * r.cached + writes * (r.write ?? r.input) + completion * r.output) / 1e6) * factor;
}

/** OpenAI's usage as chat completions reports it. */
const chatUsage = (prompt: number, completion: number, o: { cached?: number; writes?: number; reasoning?: number } = {}) => ({
  prompt_tokens: prompt, completion_tokens: completion,
  prompt_tokens_details: { cached_tokens: o.cached ?? 0, ...(o.writes !== undefined && { cache_write_tokens: o.writes }) },
  completion_tokens_details: { reasoning_tokens: o.reasoning ?? 0 },
});
/** The same as the Responses API reports it. */
const responsesUsage = (prompt: number, completion: number, o: { cached?: number; writes?: number; reasoning?: number } = {}) => ({
  input_tokens: prompt, output_tokens: completion,
  input_tokens_details: { cached_tokens: o.cached ?? 0, ...(o.writes !== undefined && { cache_write_tokens: o.writes }) },
  output_tokens_details: { reasoning_tokens: o.reasoning ?? 0 },
});

function openai(model: string, via: Via, body: Body, usage: Usage, dims: string[]): Row {
  const promptTokens = num(usage.prompt_tokens ?? usage.input_tokens);
  return { model, via, body, usage, dims, usd: openaiUsd(model, body, usage), promptTokens, ...(body.service_tier !== undefined && { sent: { service_tier: body.service_tier } }) };
}

table('OpenAI chat', [
  openai('gpt-6.2-sol', 'chat', {}, chatUsage(12_000, 3_000), ['input', 'output']),
  openai('gpt-6.2-sol', 'chat-stream', {}, chatUsage(50_000, 4_000, { cached: 30_000, writes: 10_000, reasoning: 2_500 }), ['cached_input', 'cache_write', 'reasoning']),
  openai('gpt-6.2-sol', 'chat', {}, chatUsage(300_000, 2_000, { cached: 100_000, writes: 20_000 }), ['above 272K', 'cached_input', 'cache_write']),
  openai('gpt-6.2-sol', 'chat-stream', { service_tier: 'priority' }, chatUsage(10_000, 1_000), ['service_tier=priority']),
  openai('gpt-6.2-sol', 'responses', { service_tier: 'ultrafast' }, responsesUsage(20_000, 2_000, { cached: 5_000, reasoning: 1_500 }), ['service_tier=ultrafast', 'cached_input', 'reasoning']),
  openai('gpt-6.2-sol', 'responses-stream', { service_tier: 'flex' }, responsesUsage(40_000, 1_000, { cached: 30_000, writes: 5_000 }), ['service_tier=flex', 'cached_input', 'cache_write']),
  openai('gpt-6.2-sol', 'chat', { service_tier: 'fast' }, chatUsage(280_000, 1_000), ['service_tier=fast', 'above 272K']),
  openai('gpt-6.2-sol', 'chat', { service_tier: 'default' }, chatUsage(8_000, 800), ['service_tier=default']),
  openai('gpt-6.2-sol', 'chat', { prompt_cache_retention: '12h' }, chatUsage(30_000, 1_000, { cached: 5_000, writes: 20_000 }), ['prompt_cache_retention=12h', 'cache_write']),
  openai('gpt-6.2-astra', 'chat', {}, chatUsage(20_000, 1_500, { cached: 15_000, writes: 2_000, reasoning: 1_000 }), ['cached_input', 'cache_write', 'reasoning']),
  openai('gpt-6.2-astra', 'chat-stream', {}, chatUsage(290_000, 1_000, { cached: 200_000 }), ['above 272K', 'cached_input']),
  openai('gpt-6.2-astra', 'responses', { service_tier: 'priority' }, responsesUsage(10_000, 2_000, { reasoning: 1_200 }), ['service_tier=priority', 'reasoning']),
  openai('gpt-6.2-astra', 'chat', { service_tier: 'flex' }, chatUsage(100_000, 5_000, { cached: 60_000 }), ['service_tier=flex', 'cached_input']),
  openai('gpt-6-luna', 'chat', {}, chatUsage(200_000, 20_000, { cached: 150_000, writes: 10_000, reasoning: 15_000 }), ['cached_input', 'cache_write', 'reasoning']),
  openai('gpt-6-luna', 'chat-stream', {}, chatUsage(300_000, 1_000, { cached: 250_000 }), ['above 272K', 'cached_input']),
  openai('gpt-6-luna', 'responses', { service_tier: 'fast' }, responsesUsage(100_000, 10_000, { cached: 80_000 }), ['service_tier=fast', 'cached_input']),
  openai('gpt-6-luna', 'responses-stream', { service_tier: 'flex' }, responsesUsage(400_000, 4_000, { cached: 300_000, reasoning: 3_000 }), ['service_tier=flex', 'above 272K', 'reasoning']),
  openai('gpt-4o', 'chat', {}, chatUsage(10_000, 1_000), ['input', 'output']),
  openai('gpt-4o', 'chat-stream', {}, chatUsage(50_000, 2_000, { cached: 40_000 }), ['cached_input']),
  openai('gpt-4o', 'responses', { service_tier: 'priority' }, responsesUsage(30_000, 1_000, { cached: 20_000 }), ['service_tier=priority', 'cached_input']),
  openai('gpt-4o', 'chat', { service_tier: 'auto' }, chatUsage(2_000, 500), ['service_tier=auto']),
  // The (b): 100,000 prompt tokens of which 90,000 cached, 500 out: OpenAI bills $0.00855, 9 units.
  openai('gpt-4o-mini', 'chat', {}, chatUsage(100_000, 500, { cached: 90_000 }), ['cached_input']),
  openai('gpt-4o-mini', 'chat-stream', { service_tier: 'priority' }, chatUsage(100_000, 500, { cached: 90_000 }), ['service_tier=priority', 'cached_input']),
  openai('gpt-4o-mini', 'responses-stream', {}, responsesUsage(20_000, 1_000, { cached: 10_000 }), ['cached_input']),
  openai('gpt-4o-mini', 'chat', { service_tier: 'default' }, chatUsage(40_000, 4_000), ['service_tier=default']),
]);

// ---- OpenAI embeddings, images and Sora --------------------------------------------------------------------------
// - Embeddings: text-embedding-3-small $0.02, text-embedding-3-large $0.13 per million input tokens (copies of OpenAI's
//   price table citing developers.openai.com/api/docs/pricing).
// - Images, per million tokens: developers.openai.com/api/docs/models/gpt-image-2.6-sunburst — text input $5, cached
//   text $1.25, image input $8, cached image $2, image output $30; gpt-image-2's text output $10 (fal.ai's copy of
//   OpenAI's table). The gpt-image-2.5 models are "item for item the same as gpt-image-2" (resellers' launch notes); their
//   cached rates are the vendor file's reading (gpt-image-2's).
// - Sora, per second of video: no official page in the notes; the vendor file's figures from two copies of OpenAI's price
//   table: sora-2 $0.10 (720p), sora-2-pro $0.30 at 720p and $0.50 at 1024p (1024x1792, 1792x1024).
const EMBEDDING: Record<string, number> = { 'text-embedding-3-small': 0.02, 'text-embedding-3-large': 0.13 };
const IMAGE = { text: 5, cachedText: 1.25, image: 8, cachedImage: 2, imageOut: 30, textOut: 10 };
const SORA: Record<string, (size: string) => number> = {
  'sora-2': () => 0.1,
  'sora-2-pro': (size) => (['1024x1792', '1792x1024'].includes(size) ? 0.5 : 0.3),
};

/** OpenAI's image usage: input text and image tokens (and cached text), output image tokens (and text, if split out). */
function imageUsd(u: Usage): number {
  const image = num(u.input_tokens_details?.image_tokens);
  const cached = num(u.input_tokens_details?.cached_tokens);
  const imageOut = u.output_tokens_details?.image_tokens ?? u.output_tokens;
  const textOut = num(u.output_tokens) - imageOut;
  return ((num(u.input_tokens) - image - cached) * IMAGE.text + cached * IMAGE.cachedText + image * IMAGE.image + imageOut * IMAGE.imageOut + textOut * IMAGE.textOut) / 1e6;
}
const imageUsage = (text: number, image: number, out: number, o: { cached?: number; textOut?: number } = {}) => ({
  input_tokens: text + image, output_tokens: out + (o.textOut ?? 0),
  input_tokens_details: { text_tokens: text, image_tokens: image, ...(o.cached !== undefined && { cached_tokens: o.cached }) },
  ...(o.textOut !== undefined && { output_tokens_details: { image_tokens: out, text_tokens: o.textOut } }),
});
const sora = (model: string, size: string | undefined, seconds: string | undefined, dims: string[]): Row => ({
  model, via: 'sora', body: { ...(size && { size }), ...(seconds && { seconds }) }, dims,
  // OpenAI's defaults: 720x1280, 4 s.
  usd: SORA[model](size ?? '720x1280') * Number(seconds ?? 4),
});

table('OpenAI embeddings, images, Sora', [
  { model: 'text-embedding-3-small', via: 'embeddings', usage: { prompt_tokens: 250_000 }, promptTokens: 250_000, dims: ['input'], usd: (250_000 * EMBEDDING['text-embedding-3-small']) / 1e6 },
  { model: 'text-embedding-3-large', via: 'embeddings', usage: { prompt_tokens: 120_000 }, promptTokens: 120_000, dims: ['input'], usd: (120_000 * EMBEDDING['text-embedding-3-large']) / 1e6 },
  ...([
    ['gpt-image-2.6-sunburst', 'image', { size: '1024x1024', quality: 'high' }, imageUsage(50, 0, 4160), ['text input', 'output_image']],
    ['gpt-image-2.5-sunburst', 'image', { size: '1024x1024', n: 2 }, imageUsage(40, 0, 2 * 1056, { cached: 20 }), ['cached text input', 'output_image', 'n=2']],
    ['gpt-image-2.5-flare', 'image', { size: '1536x1024', quality: 'high' }, imageUsage(35, 0, 6240), ['text input', 'output_image']],
    ['gpt-image-2', 'image', { size: '1024x1024', quality: 'high' }, imageUsage(30, 0, 4160, { textOut: 100 }), ['output_image', 'text output']],
    ['gpt-image-2.6-sunburst', 'image-edit', {}, imageUsage(60, 388, 1584), ['input_image', 'output_image']],
    ['gpt-image-2', 'image-edit', { quality: 'high' }, imageUsage(25, 2_000, 4160), ['input_image', 'output_image']],
  ] as [string, Via, Body, Usage, string[]][]).map(([model, via, body, usage, dims]): Row => ({ model, via, body, usage, dims, usd: imageUsd(usage) })),
  sora('sora-2', undefined, undefined, ['720x1280 (default)', '4 s (default)']),
  sora('sora-2', '1280x720', '12', ['1280x720', '12 s']),
  sora('sora-2-pro', '720x1280', '8', ['720x1280', '8 s']),
  sora('sora-2-pro', '1792x1024', '4', ['1792x1024 (1024p)', '4 s']),
  sora('sora-2-pro', '1024x1792', '12', ['1024x1792 (1024p)', '12 s']),
]);

// ---- OpenAI audio and Realtime: /v1/audio/speech, /v1/audio/transcriptions and /translations, WebSocket /v1/realtime --
// USD, from OpenAI's model pages (developers.openai.com/api/docs/models/<model>) and its price table
// (developers.openai.com/api/docs/pricing):
// - Speech: tts-1 $15 and tts-1-hd $30 per million characters of `input` (counted in code points: every character of
//   the string sent, spaces, punctuation and any `[sim …]` directive included; at most 4,096). gpt-4o-mini-tts (and its
//   dated snapshot) per million tokens: text input $0.60, audio output $12 (models/gpt-4o-mini-tts); the usage is what
//   its event form reports (`speech.audio.done`: input_tokens, output_tokens, the output all audio).
// - Transcription: whisper-1 $0.006 a minute, billed per second of audio (the seconds its answer reports,
//   `usage: {type: 'duration', seconds}`, or the upload's length where it reports none, as translations do);
//   gpt-transcribe $0.0045 a minute, alike. gpt-4o-transcribe and gpt-4o-transcribe-diarize per million tokens: input
//   $2.50 (audio and prompt text alike, as the model pages list it), output $10; gpt-4o-mini-transcribe (and its dated
//   snapshot) $1.25 / $5.
// - Realtime, per million tokens, by class: text in, cached text in, audio in, cached audio in, image in, cached image
//   in, text out, audio out. gpt-realtime-2.1 and gpt-realtime-2: $4, $0.40, $32, $0.40, $5, $0.50, $24, $64;
//   gpt-realtime-1.5 and gpt-realtime the same but text out $16; gpt-realtime-2.1-mini and gpt-realtime-mini: $0.60,
//   $0.06, $10, $0.30, $0.80, $0.08, $2.40, $20 (models/gpt-realtime-2.1, models/gpt-realtime-1.5,
//   models/gpt-realtime-2.1-mini). `response.done` reports each input class with its cached part inside it
//   (input_token_details.cached_tokens_details), so a class's uncached tokens are its count less its cached part.
//   A session is one charge: its responses' (and input transcriptions') costs summed, rounded up once.
const TTS_PER_CHAR: Record<string, number> = { 'tts-1': 15, 'tts-1-hd': 30 };
const MINI_TTS = { input: 0.6, audioOut: 12 };
const STT_PER_MINUTE: Record<string, number> = { 'whisper-1': 0.006, 'gpt-transcribe': 0.0045 };
const STT_TOKENS: Record<string, { input: number; output: number }> = {
  'gpt-4o-transcribe': { input: 2.5, output: 10 }, 'gpt-4o-transcribe-diarize': { input: 2.5, output: 10 },
  'gpt-4o-mini-transcribe': { input: 1.25, output: 5 }, 'gpt-4o-mini-transcribe-2025-12-15': { input: 1.25, output: 5 },
};
interface RealtimeRates { text: number; cachedText: number; audio: number; cachedAudio: number; image: number; cachedImage: number; textOut: number; audioOut: number }
const RT2: RealtimeRates = { text: 4, cachedText: 0.4, audio: 32, cachedAudio: 0.4, image: 5, cachedImage: 0.5, textOut: 24, audioOut: 64 };
const RT15: RealtimeRates = { ...RT2, textOut: 16 };
const RT_MINI: RealtimeRates = { text: 0.6, cachedText: 0.06, audio: 10, cachedAudio: 0.3, image: 0.8, cachedImage: 0.08, textOut: 2.4, audioOut: 20 };
const REALTIME: Record<string, RealtimeRates> = {
  'gpt-realtime-2.1': RT2, 'gpt-realtime-2': RT2, 'gpt-realtime-1.5': RT15, 'gpt-realtime': RT15, 'gpt-realtime-2.1-mini': RT_MINI, 'gpt-realtime-mini': RT_MINI,
};

/** Exactly `n` characters of English (or `base`), ending in a directive that makes the simulator answer at once. */
function speechText(n: number, base = 'The quick brown fox jumps over the lazy dog. '): string {
  const tail = ' [sim interval_ms=0 seconds=2]';
  const body = [...base.repeat(Math.ceil(n / [...base].length) + 1)].slice(0, n - tail.length).join('');
  return body + tail;
}
const chars = (s: string) => [...s].length;

const tts = (model: string, input: string, body: Body, dims: string[]): Row => ({
  model, via: 'speech', body: { ...body, input }, dims: [`${chars(input)} characters`, ...dims], usd: (chars(input) * TTS_PER_CHAR[model]) / 1e6,
});
const miniTts = (model: string, input: number, output: number, body: Body, dims: string[]): Row => ({
  model, via: 'speech', body, usage: { input_tokens: input, output_tokens: output, total_tokens: input + output }, dims,
  usd: (input * MINI_TTS.input + output * MINI_TTS.audioOut) / 1e6,
  // Only the event form reports usage: the gateway must ask for it whatever the client asked.
  sent: { stream_format: 'sse' },
});
/** whisper-1 and gpt-transcribe: per second of audio (`reported`: the seconds the answer reports; else the upload's). */
const sttSeconds = (model: string, via: Via, seconds: number, reported: number | undefined, body: Body, dims: string[]): Row => ({
  model, via, body: { seconds, ...body }, ...(reported !== undefined && { usage: { type: 'duration', seconds: reported } }),
  dims: [`${seconds} s upload`, ...(reported !== undefined ? [`${reported} s reported`] : ['no seconds reported']), ...dims],
  usd: (STT_PER_MINUTE[model] / 60) * (reported ?? Math.ceil(seconds)),
});
/** The gpt-4o transcribe models: tokens, audio (and prompt text) in, text out. */
const sttTokens = (model: string, seconds: number, audio: number, text: number, output: number, body: Body, dims: string[]): Row => ({
  model, via: 'transcription', body: { seconds, ...body },
  usage: { type: 'tokens', input_tokens: audio + text, output_tokens: output, total_tokens: audio + text + output, input_token_details: { text_tokens: text, audio_tokens: audio } },
  dims: [`${seconds} s upload`, ...dims],
  usd: ((audio + text) * STT_TOKENS[model].input + output * STT_TOKENS[model].output) / 1e6,
});

interface RealtimeTokens { text?: number; audio?: number; image?: number; cachedText?: number; cachedAudio?: number; cachedImage?: number; textOut?: number; audioOut?: number }
/** A `response.done` usage: every field set (the directive merges over the simulator's own count). */
function realtimeUsage(t: RealtimeTokens): Usage {
  const [text, audio, image, cText, cAudio, cImage, textOut, audioOut] = [t.text, t.audio, t.image, t.cachedText, t.cachedAudio, t.cachedImage, t.textOut, t.audioOut].map((v) => v ?? 0);
  const input = text + audio + image;
  const output = textOut + audioOut;
  return {
    total_tokens: input + output, input_tokens: input, output_tokens: output,
    input_token_details: {
      text_tokens: text, audio_tokens: audio, image_tokens: image, cached_tokens: cText + cAudio + cImage,
      cached_tokens_details: { text_tokens: cText, audio_tokens: cAudio, image_tokens: cImage },
    },
    output_token_details: { text_tokens: textOut, audio_tokens: audioOut },
  };
}
function realtimeUsd(model: string, u: Usage): number {
  const r = REALTIME[model];
  const d = u.input_token_details;
  const c = d.cached_tokens_details;
  return ((d.text_tokens - c.text_tokens) * r.text + c.text_tokens * r.cachedText + (d.audio_tokens - c.audio_tokens) * r.audio + c.audio_tokens * r.cachedAudio
    + (d.image_tokens - c.image_tokens) * r.image + c.image_tokens * r.cachedImage + u.output_token_details.text_tokens * r.textOut + u.output_token_details.audio_tokens * r.audioOut) / 1e6;
}
/**
 * A session of `o.responses` responses (default one), each reporting `t`: the session is charged their sum, rounded up
 * once. `o.transcribe`: the session names a model for input transcription and commits that many seconds of audio
 * before its first response; the transcription is charged at that model's price from what the simulator reports for
 * it (no directive reaches that event): whisper-1 the seconds rounded up; the gpt-4o models 10 audio tokens a second
 * in and the 5 words of "Transcribed N seconds of audio." out.
 */
const rt = (model: string, t: RealtimeTokens, dims: string[], o: { responses?: number; transcribe?: [string, number] } = {}): Row => {
  const usage = realtimeUsage(t);
  const responses = o.responses ?? 1;
  let usd = realtimeUsd(model, usage) * responses;
  const body: Body = { ...(responses > 1 && { responses }) };
  if (o.transcribe) {
    const [stt, seconds] = o.transcribe;
    Object.assign(body, { transcribe: stt, audioSeconds: seconds });
    usd += stt === 'whisper-1' ? (STT_PER_MINUTE[stt] / 60) * Math.ceil(seconds) : (Math.ceil(seconds * 10) * STT_TOKENS[stt].input + 5 * STT_TOKENS[stt].output) / 1e6;
  }
  return { model, via: 'realtime', usage, dims, usd, ...(Object.keys(body).length && { body }) };
};

table('OpenAI audio and realtime', [
  tts('tts-1', speechText(1_000), {}, ['mp3 (default)']),
  tts('tts-1', speechText(500, 'Café crème brûlée, s’il vous plaît… '), { response_format: 'opus', speed: 1.5 }, ['accented text (characters, not bytes)', 'opus', 'speed=1.5']),
  tts('tts-1-hd', speechText(4_096), { response_format: 'wav' }, ['the maximum input', 'wav']),
  tts('tts-1-hd', speechText(150), { voice: 'nova', response_format: 'flac' }, ['flac']),
  miniTts('gpt-4o-mini-tts', 1_200, 6_000, {}, ['text input', 'audio output', 'asked for bytes (mp3)']),
  miniTts('gpt-4o-mini-tts', 300, 2_400, { stream_format: 'sse', instructions: 'Speak slowly and warmly.' }, ['stream_format=sse', 'instructions']),
  miniTts('gpt-4o-mini-tts-2025-12-15', 50, 8_000, { response_format: 'wav' }, ['wav', 'audio output']),
  sttSeconds('whisper-1', 'transcription', 61, 61, {}, ['per second, not per started minute']),
  sttSeconds('whisper-1', 'transcription', 30, 30, { response_format: 'verbose_json' }, ['verbose_json']),
  sttSeconds('whisper-1', 'translation', 90, undefined, {}, ['translation']),
  sttSeconds('gpt-transcribe', 'transcription', 120, 120, {}, []),
  sttSeconds('gpt-transcribe', 'transcription', 45, undefined, {}, ['tokens reported, no seconds']),
  sttTokens('gpt-4o-transcribe', 1_400, 14_000, 0, 3_500, { rate: 8_000 }, ['1,400 s (the maximum)', 'audio input', 'text output']),
  sttTokens('gpt-4o-transcribe', 20, 200, 30, 60, { stream: 'true' }, ['stream=true', 'prompt text input']),
  sttTokens('gpt-4o-transcribe-diarize', 45, 450, 0, 120, { response_format: 'diarized_json', chunking_strategy: 'auto' }, ['diarized_json', 'chunking_strategy=auto']),
  sttTokens('gpt-4o-mini-transcribe', 600, 6_000, 0, 1_500, {}, ['audio input', 'text output']),
  sttTokens('gpt-4o-mini-transcribe-2025-12-15', 60, 600, 20, 150, {}, ['prompt text input']),
  sttSeconds('whisper-1', 'transcription', 61, undefined, { response_format: 'text' }, ['response_format=text (no usage in the answer)']),
  sttSeconds('gpt-transcribe', 'transcription', 13.3, 14, {}, ['13.3 s billed as the 14 s reported']),
  rt('gpt-realtime-2.1', { text: 1_500, audio: 4_000, textOut: 200, audioOut: 1_200 }, ['text in', 'audio in', 'text out', 'audio out']),
  rt('gpt-realtime-2.1', { text: 3_000, cachedText: 2_560, audio: 8_000, cachedAudio: 6_400, textOut: 100, audioOut: 800 }, ['cached text', 'cached audio']),
  rt('gpt-realtime-2.1', { audio: 20_000, audioOut: 4_000 }, ['a response above its hold (topped up)']),
  rt('gpt-realtime-2', { text: 500, image: 1_000, cachedImage: 512, textOut: 300 }, ['image in', 'cached image', 'text out']),
  rt('gpt-realtime-1.5', { text: 2_000, cachedText: 1_024, textOut: 1_000 }, ['cached text', 'text out ($16)']),
  rt('gpt-realtime', { text: 200, audio: 3_000, cachedAudio: 1_920, textOut: 150, audioOut: 900 }, ['cached audio', 'audio out']),
  rt('gpt-realtime-2.1-mini', { text: 4_000, cachedText: 3_200, audio: 10_000, cachedAudio: 8_000, image: 500, cachedImage: 256, textOut: 400, audioOut: 2_000 }, ['cached text', 'cached audio', 'cached image', 'every class']),
  rt('gpt-realtime-mini', { text: 1_000, audio: 2_000, audioOut: 1_000 }, ['audio in', 'audio out']),
  rt('gpt-realtime-mini', { text: 100, textOut: 50 }, ['three responses in a session', 'rounded once per session'], { responses: 3 }),
  rt('gpt-realtime-2.1-mini', { text: 300, audio: 30, textOut: 40, audioOut: 200 }, ['input audio transcription (gpt-4o-mini-transcribe, tokens)'], { transcribe: ['gpt-4o-mini-transcribe', 3] }),
  rt('gpt-realtime-1.5', { text: 200, audio: 25, audioOut: 100 }, ['input audio transcription (whisper-1, seconds)'], { transcribe: ['whisper-1', 2.5] }),
]);

// ---- Anthropic: /v1/messages (JSON and stream) and translated /v1/chat/completions ----------------------------------
// USD per million tokens: base input, 5-minute cache write, 1-hour cache write, cache read, output.
// platform.claude.com/docs/en/about-claude/pricing (Fable 5.1, Opus 5, Sonnet 4.5, Haiku 4.5) and the models' overview
// pages platform.claude.com/docs/<lang>/models/<model>/overview (Opus 5.5, Sonnet 5.5, Haiku 5.5, Sonnet 5). Sonnet 5.5's
// cache read is $0.10 since Anthropic's 2026-10-07 cut (the vendor file's reading: two trackers of the live page; the
// stored overview predates it at $0.20). Haiku 5.5: a prompt (input + cache reads + cache writes) above 100,000 tokens
// bills every token of the request, output included, at the higher band. `inference_geo: "us"`: 1.1× on every token
// class (platform.claude.com/docs/en/manage-claude/data-residency; Opus 4.6 and later). `speed: "fast"`: 2× on Opus 5.5 and
// Opus 5 (platform.claude.com/docs/en/build-with-claude/fast-mode). Writes an answer does not split by lifetime are the
// default lifetime's, 5 minutes.
interface AnthropicRates { input: number; w5m: number; w1h: number; read: number; output: number }
const ar = (input: number, w5m: number, w1h: number, read: number, output: number): AnthropicRates => ({ input, w5m, w1h, read, output });
const ANTHROPIC: Record<string, { rates: AnthropicRates; above?: { tokens: number; rates: AnthropicRates } }> = {
  'claude-fable-5-1': { rates: ar(10, 12.5, 20, 0.25, 50) },
  'claude-opus-5-5': { rates: ar(4, 5, 8, 0.2, 20) },
  'claude-sonnet-5-5': { rates: ar(2, 2.5, 4, 0.1, 10) },
  'claude-haiku-5-5': { rates: ar(0.1, 0.125, 0.2, 0.01, 0.5), above: { tokens: 100_000, rates: ar(0.5, 0.625, 1, 0.05, 2.5) } },
  'claude-opus-5': { rates: ar(5, 6.25, 10, 0.5, 25) },
  'claude-sonnet-5': { rates: ar(2, 2.5, 4, 0.2, 10) },
  'claude-sonnet-4-5': { rates: ar(3, 3.75, 6, 0.3, 15) },
  'claude-haiku-4-5': { rates: ar(1, 1.25, 2, 0.1, 5) },
};

function anthropicUsd(model: string, body: Body, u: Usage): number {
  const p = ANTHROPIC[model];
  const input = num(u.input_tokens);
  const writes = num(u.cache_creation_input_tokens);
  const reads = num(u.cache_read_input_tokens);
  const w1h = num(u.cache_creation?.ephemeral_1h_input_tokens);
  const w5m = writes - w1h;
  const prompt = input + writes + reads;
  const r = p.above && prompt > p.above.tokens ? p.above.rates : p.rates;
  const factor = (body.inference_geo === 'us' ? 1.1 : 1) * (body.speed === 'fast' ? 2 : 1);
  return ((input * r.input + w5m * r.w5m + w1h * r.w1h + reads * r.read + num(u.output_tokens) * r.output) / 1e6) * factor;
}

/** Anthropic's usage: `writes` a number is an answer without the lifetime split (no `cache_creation`), else the split. */
const messagesUsage = (input: number, output: number, o: { reads?: number; writes?: number | { m5: number; h1: number } } = {}) => {
  const split = typeof o.writes === 'object' ? o.writes : undefined;
  return {
    input_tokens: input, output_tokens: output, cache_read_input_tokens: o.reads ?? 0,
    cache_creation_input_tokens: split ? split.m5 + split.h1 : o.writes ?? 0,
    cache_creation: split ? { ephemeral_5m_input_tokens: split.m5, ephemeral_1h_input_tokens: split.h1 } : null,
  };
};

function anthropic(model: string, via: Via, body: Body, usage: Usage, dims: string[]): Row {
  const sent = Object.fromEntries(['inference_geo', 'speed'].filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
  const promptTokens = num(usage.input_tokens) + num(usage.cache_creation_input_tokens) + num(usage.cache_read_input_tokens);
  return { model, via, body, usage, dims, usd: anthropicUsd(model, body, usage), promptTokens, ...(Object.keys(sent).length && { sent }) };
}

table('Anthropic', [
  anthropic('claude-fable-5-1', 'messages', {}, messagesUsage(20_000, 2_000), ['input', 'output']),
  anthropic('claude-fable-5-1', 'chat', { inference_geo: 'us' }, messagesUsage(5_000, 1_000, { reads: 50_000 }), ['inference_geo=us', 'cache_read']),
  anthropic('claude-opus-5-5', 'messages-stream', {}, messagesUsage(2_000, 1_500, { reads: 30_000, writes: { m5: 8_000, h1: 4_000 } }), ['cache_write_5m', 'cache_write_1h', 'cache_read']),
  anthropic('claude-opus-5-5', 'messages', { speed: 'fast' }, messagesUsage(10_000, 1_000), ['speed=fast']),
  anthropic('claude-opus-5-5', 'messages-stream', { speed: 'fast', inference_geo: 'us' }, messagesUsage(3_000, 1_000, { reads: 20_000, writes: { m5: 0, h1: 5_000 } }), ['speed=fast', 'inference_geo=us', 'cache_write_1h']),
  anthropic('claude-opus-5-5', 'chat-stream', {}, messagesUsage(1_000, 800, { reads: 40_000 }), ['cache_read']),
  anthropic('claude-opus-5-5', 'chat', { speed: 'fast' }, messagesUsage(6_000, 900), ['speed=fast']),
  anthropic('claude-sonnet-5-5', 'messages', {}, messagesUsage(3_000, 2_000, { reads: 100_000 }), ['cache_read ($0.10)']),
  anthropic('claude-sonnet-5-5', 'messages-stream', { inference_geo: 'us' }, messagesUsage(1_000, 500, { writes: 10_000 }), ['inference_geo=us', 'cache_write (unsplit)']),
  anthropic('claude-haiku-5-5', 'messages', {}, messagesUsage(50_000, 4_000), ['input', 'output']),
  anthropic('claude-haiku-5-5', 'messages', {}, messagesUsage(20_000, 1_000, { reads: 70_000, writes: { m5: 10_000, h1: 5_000 } }), ['above 100K (reads and writes counted)', 'cache_write_5m', 'cache_write_1h']),
  anthropic('claude-haiku-5-5', 'messages-stream', {}, messagesUsage(10_000, 2_000, { reads: 90_000 }), ['exactly 100K (lower band)', 'cache_read']),
  anthropic('claude-haiku-5-5', 'chat', { inference_geo: 'us' }, messagesUsage(150_000, 3_000), ['above 100K', 'inference_geo=us']),
  anthropic('claude-opus-5', 'messages', { speed: 'fast' }, messagesUsage(2_000, 1_000, { reads: 20_000, writes: 4_000 }), ['speed=fast', 'cache_read', 'cache_write (unsplit)']),
  anthropic('claude-opus-5', 'chat-stream', {}, messagesUsage(1_000, 700, { writes: { m5: 0, h1: 6_000 } }), ['cache_write_1h']),
  anthropic('claude-sonnet-5', 'messages', {}, messagesUsage(4_000, 3_000, { reads: 60_000, writes: { m5: 5_000, h1: 0 } }), ['cache_read', 'cache_write_5m']),
  anthropic('claude-sonnet-5', 'chat', { inference_geo: 'us' }, messagesUsage(12_000, 1_200), ['inference_geo=us']),
  // The (a): 1,000 input, 10,000 cache writes, 90,000 cache reads, 500 output: $0.075, 75 units.
  anthropic('claude-sonnet-4-5', 'messages', {}, messagesUsage(1_000, 500, { reads: 90_000, writes: 10_000 }), ['cache_read', 'cache_write (unsplit)']),
  anthropic('claude-sonnet-4-5', 'messages-stream', {}, messagesUsage(2_000, 1_000, { writes: { m5: 2_000, h1: 3_000 } }), ['cache_write_5m', 'cache_write_1h']),
  anthropic('claude-haiku-4-5', 'messages', {}, messagesUsage(30_000, 3_000), ['input', 'output']),
  anthropic('claude-haiku-4-5', 'chat-stream', {}, messagesUsage(2_000, 1_000, { reads: 80_000 }), ['cache_read']),
]);

// ---- Gemini: the native route (generateContent, streamGenerateContent?alt=sse) and translated /v1/chat/completions ----
// USD per million tokens, Google's Gemini API price page (ai.google.dev/gemini-api/docs/pricing; copies read 2026-10-07,
// the cache and 2.5 output rows from its 2026-03-30 copy). "Output price (including thinking tokens)". The Pro models:
// "$X, prompts <= 200k tokens / $Y, prompts > 200k tokens", the whole request at the higher band, the prompt counted as
// promptTokenCount, which includes the cached tokens. The Pro models price every input modality at one rate (cached
// alike); the Flash models price audio input (and cached audio) apart. promptTokenCount includes the cached tokens, and
// each modality's count in promptTokensDetails includes its cached part (cacheTokensDetails).
// Image models: text input, text output and image output (tokens per image: 3 Pro Image 1120 at 1K and 2K, 2000 at 4K;
// 3.1 Flash Image 1120 / 1680 / 2520; 2.5 Flash Image 1290): 3 Pro Image $2 / $12 / $120, 3.1 Flash Image $0.50 / $3 / $60,
// 2.5 Flash Image $0.30 / $2.50 / $30.
interface GeminiRates { input: number; cached: number; output: number; audio?: number; cachedAudio?: number; image?: number }
const GEMINI: Record<string, { rates: GeminiRates; above200k?: GeminiRates }> = {
  'gemini-3.1-pro-preview': { rates: { input: 2, cached: 0.2, output: 12 }, above200k: { input: 4, cached: 0.4, output: 18 } },
  'gemini-3-flash-preview': { rates: { input: 0.5, audio: 1, cached: 0.05, cachedAudio: 0.1, output: 3 } },
  'gemini-2.5-pro': { rates: { input: 1.25, cached: 0.125, output: 10 }, above200k: { input: 2.5, cached: 0.25, output: 15 } },
  'gemini-2.5-flash': { rates: { input: 0.3, audio: 1, cached: 0.03, cachedAudio: 0.1, output: 2.5 } },
  'gemini-2.5-flash-lite': { rates: { input: 0.1, audio: 0.3, cached: 0.01, cachedAudio: 0.03, output: 0.4 } },
  'gemini-3-pro-image-preview': { rates: { input: 2, cached: 2, output: 12, image: 120 } },
  'gemini-3.1-flash-image-preview': { rates: { input: 0.5, cached: 0.5, output: 3, image: 60 } },
  'gemini-2.5-flash-image': { rates: { input: 0.3, cached: 0.3, output: 2.5, image: 30 } },
};

const modality = (list: unknown, m: string) => num((Array.isArray(list) ? list : []).find((d) => d?.modality === m)?.tokenCount);

function geminiUsd(model: string, u: Usage): number {
  const p = GEMINI[model];
  const prompt = num(u.promptTokenCount) + num(u.toolUsePromptTokenCount);
  const r = p.above200k && prompt > 200_000 ? p.above200k : p.rates;
  const cached = num(u.cachedContentTokenCount);
  const cachedAudio = modality(u.cacheTokensDetails, 'AUDIO');
  const audio = modality(u.promptTokensDetails, 'AUDIO') - cachedAudio;
  const text = prompt - cached - audio;
  const image = modality(u.candidatesTokensDetails, 'IMAGE');
  const output = num(u.candidatesTokenCount) + num(u.thoughtsTokenCount) - image;
  return (text * r.input + audio * (r.audio ?? r.input) + (cached - cachedAudio) * r.cached + cachedAudio * (r.cachedAudio ?? r.cached)
    + output * r.output + image * (r.image ?? r.output)) / 1e6;
}

/** Gemini's usageMetadata. */
function geminiUsage(prompt: number, candidates: number, o: { cached?: number; thoughts?: number; audio?: number; cachedAudio?: number; image?: number } = {}): Usage {
  const details = (total: number, audio = 0) => [{ modality: 'TEXT', tokenCount: total - audio }, ...(audio ? [{ modality: 'AUDIO', tokenCount: audio }] : [])];
  return {
    promptTokenCount: prompt, candidatesTokenCount: candidates, promptTokensDetails: details(prompt, o.audio),
    ...(o.cached !== undefined && { cachedContentTokenCount: o.cached, cacheTokensDetails: details(o.cached, o.cachedAudio) }),
    ...(o.thoughts !== undefined && { thoughtsTokenCount: o.thoughts }),
    ...(o.image !== undefined && {
      candidatesTokensDetails: [...(candidates > o.image ? [{ modality: 'TEXT', tokenCount: candidates - o.image }] : []), { modality: 'IMAGE', tokenCount: o.image }],
    }),
  };
}

const gemini = (model: string, via: Via, usage: Usage, dims: string[], body: Body = {}): Row => ({ model, via, body, usage, dims, usd: geminiUsd(model, usage), promptTokens: usage.promptTokenCount });
const geminiImage = (model: string, size: string, usage: Usage, dims: string[], modalities = ['TEXT', 'IMAGE']) =>
  gemini(model, 'gemini-image', usage, dims, { generationConfig: { responseModalities: modalities, imageConfig: { imageSize: size, aspectRatio: '16:9' } } });

table('Gemini', [
  gemini('gemini-3.1-pro-preview', 'gemini', geminiUsage(10_000, 2_000), ['input', 'output']),
  gemini('gemini-3.1-pro-preview', 'gemini-stream', geminiUsage(8_000, 1_000, { thoughts: 3_000 }), ['thoughts']),
  gemini('gemini-3.1-pro-preview', 'gemini', geminiUsage(210_000, 1_000, { cached: 150_000 }), ['above 200K', 'cached']),
  gemini('gemini-3.1-pro-preview', 'chat', geminiUsage(20_000, 1_000, { audio: 8_000, cached: 6_000, cachedAudio: 4_000 }), ['audio input', 'cached audio (one rate)']),
  gemini('gemini-3-flash-preview', 'gemini', geminiUsage(12_000, 2_000, { audio: 5_000, cached: 4_000, cachedAudio: 1_000, thoughts: 500 }), ['audio input', 'cached audio', 'cached', 'thoughts']),
  gemini('gemini-3-flash-preview', 'chat-stream', geminiUsage(30_000, 1_000, { cached: 20_000 }), ['cached']),
  gemini('gemini-2.5-pro', 'gemini-stream', geminiUsage(220_000, 1_500, { cached: 180_000, thoughts: 500 }), ['above 200K', 'cached', 'thoughts']),
  gemini('gemini-2.5-pro', 'chat', geminiUsage(40_000, 2_000, { thoughts: 2_000 }), ['thoughts']),
  gemini('gemini-2.5-flash', 'gemini', geminiUsage(15_000, 1_000, { audio: 10_000 }), ['audio input', 'serviceTier=standard'], { serviceTier: 'standard' }),
  gemini('gemini-2.5-flash', 'chat', geminiUsage(60_000, 2_000, { cached: 50_000 }), ['cached']),
  gemini('gemini-2.5-flash-lite', 'gemini-stream', geminiUsage(100_000, 5_000, { audio: 60_000, cached: 50_000, cachedAudio: 30_000 }), ['audio input', 'cached audio', 'cached']),
  gemini('gemini-2.5-flash-lite', 'chat-stream', geminiUsage(200_000, 10_000), ['input', 'output']),
  geminiImage('gemini-3-pro-image-preview', '1K', geminiUsage(20, 1_126, { image: 1_120 }), ['1K image (1120)', 'text output']),
  geminiImage('gemini-3-pro-image-preview', '4K', geminiUsage(25, 2_000, { image: 2_000 }), ['4K image (2000)'], ['IMAGE']),
  geminiImage('gemini-3.1-flash-image-preview', '1K', geminiUsage(18, 1_120, { image: 1_120 }), ['1K image (1120)'], ['IMAGE']),
  geminiImage('gemini-3.1-flash-image-preview', '2K', geminiUsage(18, 1_686, { image: 1_680 }), ['2K image (1680)', 'text output']),
  geminiImage('gemini-3.1-flash-image-preview', '4K', geminiUsage(30, 2_520, { image: 2_520 }), ['4K image (2520)'], ['IMAGE']),
  geminiImage('gemini-2.5-flash-image', '1K', geminiUsage(15, 1_296, { image: 1_290 }), ['1K image (1290)', 'text output']),
]);

// ---- Gemini TTS on /v1/audio/speech (generateContent's stream, audio out) -------------------------------------------
// USD per million tokens, Google's Gemini API price page (ai.google.dev/gemini-api/docs/pricing), text input / audio
// output: gemini-2.5-flash-preview-tts $0.50 / $10; gemini-2.5-pro-preview-tts $1 / $20; gemini-3.8-flash-tts $0.50 /
// $9; gemini-3.8-flash-lite-tts $0.50 / $6 (their launch prices). The usage is usageMetadata: promptTokenCount (the
// text, instructions included) and candidatesTokenCount (the audio, candidatesTokensDetails AUDIO). Google answers raw
// PCM: a client asks `pcm` or `wav`, one price.
const GEMINI_TTS: Record<string, { input: number; audio: number }> = {
  'gemini-2.5-flash-preview-tts': { input: 0.5, audio: 10 },
  'gemini-2.5-pro-preview-tts': { input: 1, audio: 20 },
  'gemini-3.8-flash-tts': { input: 0.5, audio: 9 },
  'gemini-3.8-flash-lite-tts': { input: 0.5, audio: 6 },
};
const geminiTts = (model: string, prompt: number, audio: number, body: Body, dims: string[]): Row => ({
  model, via: 'speech', body, dims,
  usage: {
    promptTokenCount: prompt, candidatesTokenCount: audio, totalTokenCount: prompt + audio,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }], candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: audio }],
  },
  usd: (prompt * GEMINI_TTS[model].input + audio * GEMINI_TTS[model].audio) / 1e6,
});

table('Gemini TTS', [
  geminiTts('gemini-2.5-flash-preview-tts', 120, 3_200, { response_format: 'pcm' }, ['pcm', 'text input', 'audio output']),
  geminiTts('gemini-2.5-flash-preview-tts', 40, 800, { response_format: 'wav' }, ['wav']),
  geminiTts('gemini-2.5-pro-preview-tts', 500, 12_000, { response_format: 'wav', voice: 'Puck' }, ['wav', 'voice=Puck']),
  geminiTts('gemini-3.8-flash-tts', 300, 6_400, { response_format: 'pcm' }, ['pcm']),
  geminiTts('gemini-3.8-flash-tts', 100, 1_000, {}, ['response_format omitted (pcm, the only one)']),
  geminiTts('gemini-3.8-flash-lite-tts', 80, 16_000, { response_format: 'wav', instructions: 'Say cheerfully' }, ['wav', 'instructions', '16,000 audio tokens']),
]);

// ---- Kling: /v1/video/generations (metadata.mode / metadata.sound) and /vendork --------------------------------------
// kling.ai/document-api/pricing/base/video (public copies of the page, checked 2026-07-09 and 2026-10-08): units per second
// of the duration asked, 1 unit = $0.14; std = 720p, pro = 1080p. kling-v2-6: 0.3 / 0.5 silent, 1.0 with native sound
// (1080p only), 1.2 with sound and voice control; kling-v2-5-turbo 0.3 / 0.5; kling-v2-1 (image to video only) and
// kling-v1-6 0.4 / 0.7; kling-v2-1-master and kling-v2-master one tier, 2.0. Sound with std mode is not on the page:
// the vendor file's reading bills it at the pro sound rate (Kling renders sound at 1080p only). Kling reports what it
// deducted (`final_unit_deduction`), kept beside the charge.
const KLING_USD_PER_UNIT = 0.14;
const KLING: Record<string, { std: number; pro: number; sound?: number; voice?: number }> = {
  'kling-v2-6': { std: 0.3, pro: 0.5, sound: 1, voice: 1.2 },
  'kling-v2-5-turbo': { std: 0.3, pro: 0.5 },
  'kling-v2-1': { std: 0.4, pro: 0.7 },
  'kling-v1-6': { std: 0.4, pro: 0.7 },
  'kling-v2-1-master': { std: 2, pro: 2 },
  'kling-v2-master': { std: 2, pro: 2 },
};

/** `opts`: the options the row asks (mode, sound, voice control, seconds); `body` where it asks them. */
function kling(model: string, via: Via, body: Body, opts: { mode?: 'std' | 'pro'; sound?: 'on' | 'off'; voice?: boolean; seconds: number }, dims: string[]): Row {
  const r = KLING[model];
  const perSecond = opts.sound === 'on' ? (opts.voice ? r.voice! : r.sound!) : r[opts.mode ?? 'std'];
  const unitsBilled = perSecond * opts.seconds;
  const image = model === 'kling-v2-1' && via === 'video' ? { image: 'https://example.com/first.png' } : {};
  const sent = { duration: String(opts.seconds), ...(opts.mode && { mode: opts.mode }), ...(opts.sound && { sound: opts.sound }) };
  return { model, via, body: { ...image, ...body }, dims, usd: unitsBilled * KLING_USD_PER_UNIT, vendorUnits: Math.round(unitsBilled * 140 * 1e6) / 1e6, sent };
}

table('Kling', [
  kling('kling-v2-6', 'video', {}, { seconds: 5 }, ['std (default)', 'sound off (default)', '5 s']),
  kling('kling-v2-6', 'video', { seconds: '10', metadata: { mode: 'pro' } }, { mode: 'pro', seconds: 10 }, ['metadata.mode=pro', '10 s']),
  kling('kling-v2-6', 'video', { metadata: { mode: 'pro', sound: 'on' } }, { mode: 'pro', sound: 'on', seconds: 5 }, ['metadata.mode=pro', 'metadata.sound=on', '5 s']),
  kling('kling-v2-6', 'vendork', { mode: 'pro', sound: 'on', duration: '10' }, { mode: 'pro', sound: 'on', seconds: 10 }, ['mode=pro', 'sound=on', '10 s']),
  kling('kling-v2-6', 'vendork', { mode: 'std', sound: 'on', duration: '5' }, { mode: 'std', sound: 'on', seconds: 5 }, ['mode=std + sound=on (billed as pro sound)', '5 s']),
  kling('kling-v2-6', 'vendork', { mode: 'pro', sound: 'on', voice_list: [{ voice_id: 'v1' }], duration: '5' }, { mode: 'pro', sound: 'on', voice: true, seconds: 5 }, ['voice_list (voice control)', '5 s']),
  kling('kling-v2-6', 'video', { mode: 'pro', metadata: { sound: 'off' } }, { mode: 'pro', sound: 'off', seconds: 5 }, ['mode=pro', 'metadata.sound=off']),
  kling('kling-v2-5-turbo', 'vendork', { duration: '10' }, { seconds: 10 }, ['std', '10 s']),
  kling('kling-v2-5-turbo', 'video', { metadata: { mode: 'pro' } }, { mode: 'pro', seconds: 5 }, ['metadata.mode=pro', '5 s']),
  kling('kling-v2-1', 'video', {}, { seconds: 5 }, ['std', 'image to video', '5 s']),
  kling('kling-v2-1', 'vendork-i2v', { mode: 'pro', duration: '10' }, { mode: 'pro', seconds: 10 }, ['mode=pro', '10 s']),
  kling('kling-v2-1-master', 'video', {}, { seconds: 5 }, ['one tier', '5 s']),
  kling('kling-v2-1-master', 'vendork', { mode: 'pro', duration: '10' }, { mode: 'pro', seconds: 10 }, ['mode=pro (one tier)', '10 s']),
  kling('kling-v2-master', 'video', { metadata: { mode: 'pro' } }, { mode: 'pro', seconds: 5 }, ['metadata.mode=pro (one tier)', '5 s']),
  kling('kling-v2-master', 'vendork-i2v', { duration: '10' }, { seconds: 10 }, ['std (one tier)', '10 s']),
  kling('kling-v1-6', 'video', { seconds: 10 }, { seconds: 10 }, ['std', '10 s']),
  kling('kling-v1-6', 'vendork', { mode: 'pro', duration: '5' }, { mode: 'pro', seconds: 5 }, ['mode=pro', '5 s']),
  kling('kling-v1-6', 'video', { metadata: { sound: 'off' } }, { sound: 'off', seconds: 5 }, ['metadata.sound=off', '5 s']),
]);

// ---- Vidu: /v1/video/generations (resolution, metadata.off_peak / audio / is_rec) and /alpha -------------------------
// platform.vidu.com/docs/pricing (public copies checked 2026-08-13; Q3 also 2026-07-10): credits, 1 credit = $0.005.
// - Q3, flat per second (540p / 720p / 1080p, off-peak): viduq3-pro 9 / 20 / 24 (5 / 10 / 12); viduq3-turbo 7 / 11 / 13
//   (4 / 6 / 7), on reference2video 4 / 10 / 13 (2 / 5 / 7). One rate whether audio is on or off.
// - Q2, "starts at N credits (the first second), then +M credits per second": the vendor file's reading of the start price
//   (it covers the first second: N + M × (s − 1)). viduq2-turbo 720p is Vidu's own wording, "Starts at 8 credits, 10
//   credits for 2nd sec, then +10 credits per second"; the other rows are a reseller's (shortapi.ai): viduq2-pro 540p 8,
//   10 at 2 s, +5; 720p 15 +10; 1080p 55 +15; viduq2-turbo 540p 6 +2; 1080p 35 +10; viduq2-pro-fast 720p 8 +2; 1080p
//   16 +4. `audio: true` on img2video or reference2video +15 credits a task; `is_rec: true` +10.
// - Q1 (viduq1, viduq1-classic): 80 credits a 5 s 1080p clip, off-peak 40.
// - vidu2.0 per clip: 4 s 360p 20, 720p 40, 1080p 100; 8 s 720p 100 (Vidu renders 8 s at 720p); reference2video 4 s 80.
// The alpha names are the same Vidu models. Vidu reports the credits it charged (`credits`), kept beside the charge.
const VIDU_USD_PER_CREDIT = 0.005;
const Q3: Record<string, Record<string, [number, number]>> = {
  'viduq3-pro': { '540p': [9, 5], '720p': [20, 10], '1080p': [24, 12] },
  'viduq3-turbo': { '540p': [7, 4], '720p': [11, 6], '1080p': [13, 7] },
  'viduq3-turbo reference2video': { '540p': [4, 2], '720p': [10, 5], '1080p': [13, 7] },
};
const Q2: Record<string, Record<string, { first: number; second?: number; step: number }>> = {
  'viduq2-pro': { '540p': { first: 8, second: 10, step: 5 }, '720p': { first: 15, step: 10 }, '1080p': { first: 55, step: 15 } },
  'viduq2-turbo': { '540p': { first: 6, step: 2 }, '720p': { first: 8, second: 10, step: 10 }, '1080p': { first: 35, step: 10 } },
  'viduq2-pro-fast': { '720p': { first: 8, step: 2 }, '1080p': { first: 16, step: 4 } },
};
const VIDU20: Record<string, number> = { '4 360p': 20, '4 720p': 40, '4 1080p': 100, '8 720p': 100, '4 reference2video': 80 };
const vidu2alpha: Record<string, string> = {
  'alphaq3-pro': 'viduq3-pro', 'alphaq2-pro': 'viduq2-pro', 'alphaq2-turbo': 'viduq2-turbo', 'alphaq2-pro-fast': 'viduq2-pro-fast',
  alphaq1: 'viduq1', 'alphaq1-classic': 'viduq1-classic', 'alpha2.0': 'vidu2.0',
};

interface ViduAsk { action: 'text2video' | 'img2video' | 'start-end2video' | 'reference2video'; seconds: number; resolution: string; offPeak?: boolean; audio?: boolean; isRec?: boolean }
function viduCredits(model: string, a: ViduAsk): number {
  const m = vidu2alpha[model] ?? model;
  if (m === 'viduq3-pro' || m === 'viduq3-turbo') {
    const rates = Q3[m === 'viduq3-turbo' && a.action === 'reference2video' ? 'viduq3-turbo reference2video' : m][a.resolution];
    return rates[a.offPeak ? 1 : 0] * a.seconds + (a.isRec ? 10 : 0);
  }
  if (m.startsWith('viduq2')) {
    const c = Q2[m][a.resolution];
    const curve = a.seconds === 1 ? c.first : (c.second ?? c.first + c.step) + c.step * (a.seconds - 2);
    return curve + (a.audio && ['img2video', 'reference2video'].includes(a.action) ? 15 : 0) + (a.isRec ? 10 : 0);
  }
  if (m.startsWith('viduq1')) return a.offPeak ? 40 : 80;
  return VIDU20[`${a.seconds} ${a.action === 'reference2video' ? 'reference2video' : a.resolution}`];
}

/** What Vidu must receive for the price asked: the duration, and every option the row sets. */
function viduSent(a: ViduAsk, body: Body): Body {
  const resolution = body.resolution ?? (body.metadata as Body | undefined)?.resolution;
  return { duration: a.seconds, ...(resolution !== undefined && { resolution }), ...(a.offPeak && { off_peak: true }), ...(a.audio && { audio: true }), ...(a.isRec && { is_rec: true }) };
}

const frame = 'https://example.com/first.png';
const lastFrame = 'https://example.com/last.png';
/** A unified request for the action; `fields` the row's own (resolution, seconds, metadata). */
function viduUnified(model: string, a: ViduAsk, fields: Body, dims: string[]): Row {
  const shape: Body = a.action === 'img2video' ? { image: frame } : a.action === 'start-end2video' ? { image: frame } : a.action === 'reference2video' ? { images: [frame, lastFrame] } : {};
  const metadata = { ...(a.action === 'start-end2video' && { last_frame_url: lastFrame }), ...(fields.metadata as Body | undefined) };
  const body = { ...shape, ...fields, ...(Object.keys(metadata).length && { metadata }) };
  const credits = viduCredits(model, a);
  return { model, via: 'video', body, dims: [a.action, ...dims], usd: credits * VIDU_USD_PER_CREDIT, vendorUnits: credits * 5, sent: viduSent(a, body) };
}
/** The same on /alpha, in Vidu's own format. */
function viduAlpha(model: string, a: ViduAsk, fields: Body, dims: string[]): Row {
  const shape: Body = a.action === 'img2video' ? { images: [frame] } : a.action === 'start-end2video' ? { images: [frame, lastFrame] }
    : a.action === 'reference2video' ? { subjects: [{ id: 'fox', images: [frame] }] } : {};
  const credits = viduCredits(model, a);
  const body = { ...shape, ...fields };
  return { model, via: `alpha-${a.action}` as Via, body, dims: [a.action, ...dims], usd: credits * VIDU_USD_PER_CREDIT, vendorUnits: credits * 5, sent: viduSent(a, body) };
}

table('Vidu', [
  viduUnified('viduq3-pro', { action: 'text2video', seconds: 5, resolution: '720p' }, {}, ['720p (default)', '5 s (default)']),
  viduUnified('viduq3-pro', { action: 'img2video', seconds: 8, resolution: '1080p' }, { resolution: '1080p', seconds: '8' }, ['resolution=1080p', '8 s']),
  viduUnified('viduq3-pro', { action: 'start-end2video', seconds: 4, resolution: '540p', offPeak: true }, { seconds: 4, metadata: { resolution: '540p', off_peak: true } }, ['metadata.resolution=540p', 'off_peak', '4 s']),
  viduUnified('viduq3-turbo', { action: 'text2video', seconds: 5, resolution: '720p' }, { resolution: '720p' }, ['720p', '5 s']),
  viduUnified('viduq3-turbo', { action: 'img2video', seconds: 10, resolution: '1080p', offPeak: true }, { seconds: '10', resolution: '1080p', metadata: { off_peak: true } }, ['1080p', 'off_peak', '10 s']),
  viduUnified('viduq3-turbo', { action: 'reference2video', seconds: 5, resolution: '720p' }, {}, ['720p', '5 s']),
  viduUnified('viduq3-turbo', { action: 'reference2video', seconds: 6, resolution: '540p', offPeak: true }, { seconds: 6, resolution: '540p', metadata: { off_peak: true } }, ['540p', 'off_peak', '6 s']),
  viduUnified('viduq2-pro', { action: 'img2video', seconds: 5, resolution: '720p' }, {}, ['720p (default)', '5 s']),
  viduUnified('viduq2-pro', { action: 'img2video', seconds: 5, resolution: '1080p', audio: true }, { resolution: '1080p', metadata: { audio: true } }, ['1080p', 'metadata.audio=true', '5 s']),
  viduUnified('viduq2-pro', { action: 'img2video', seconds: 5, resolution: '540p' }, { metadata: { resolution: '540p' } }, ['540p', '5 s']),
  viduUnified('viduq2-pro', { action: 'start-end2video', seconds: 3, resolution: '720p', isRec: true }, { seconds: 3, metadata: { is_rec: true } }, ['is_rec', '3 s']),
  viduUnified('viduq2-turbo', { action: 'img2video', seconds: 5, resolution: '720p' }, {}, ['720p (default)', '5 s']),
  viduUnified('viduq2-turbo', { action: 'img2video', seconds: 10, resolution: '720p' }, { seconds: '10' }, ['720p', '10 s']),
  viduUnified('viduq2-turbo', { action: 'img2video', seconds: 8, resolution: '1080p', audio: true }, { seconds: 8, resolution: '1080p', metadata: { audio: true } }, ['1080p', 'metadata.audio=true', '8 s']),
  viduUnified('viduq2-turbo', { action: 'reference2video', seconds: 5, resolution: '540p' }, { resolution: '540p' }, ['540p', '5 s']),
  viduUnified('viduq2-pro-fast', { action: 'img2video', seconds: 5, resolution: '720p' }, {}, ['720p (default)', '5 s']),
  viduUnified('viduq2-pro-fast', { action: 'img2video', seconds: 10, resolution: '1080p' }, { seconds: 10, resolution: '1080p' }, ['1080p', '10 s']),
  viduUnified('viduq2-pro-fast', { action: 'reference2video', seconds: 5, resolution: '720p', audio: true }, { metadata: { audio: true } }, ['metadata.audio=true', '5 s']),
  viduUnified('viduq1', { action: 'text2video', seconds: 5, resolution: '1080p' }, {}, ['1080p', '5 s']),
  viduUnified('viduq1', { action: 'img2video', seconds: 5, resolution: '1080p', offPeak: true }, { metadata: { off_peak: true } }, ['off_peak']),
  viduUnified('viduq1-classic', { action: 'start-end2video', seconds: 5, resolution: '1080p' }, {}, ['1080p', '5 s']),
  viduUnified('vidu2.0', { action: 'img2video', seconds: 4, resolution: '360p' }, {}, ['360p (default at 4 s)', '4 s (default)']),
  viduUnified('vidu2.0', { action: 'img2video', seconds: 4, resolution: '720p' }, { resolution: '720p' }, ['720p', '4 s']),
  viduUnified('vidu2.0', { action: 'start-end2video', seconds: 4, resolution: '1080p' }, { metadata: { resolution: '1080p' } }, ['1080p', '4 s']),
  viduUnified('vidu2.0', { action: 'img2video', seconds: 8, resolution: '720p' }, { seconds: '8' }, ['720p (default at 8 s)', '8 s']),
  viduUnified('vidu2.0', { action: 'reference2video', seconds: 4, resolution: '360p' }, {}, ['4 s']),
  viduAlpha('alphaq3-pro', { action: 'text2video', seconds: 4, resolution: '1080p' }, { duration: 4, resolution: '1080p' }, ['resolution=1080p', '4 s']),
  viduAlpha('alphaq2-pro', { action: 'img2video', seconds: 6, resolution: '720p' }, { duration: 6 }, ['720p', '6 s']),
  viduAlpha('alphaq2-turbo', { action: 'reference2video', seconds: 10, resolution: '720p' }, { duration: 10 }, ['720p', '10 s']),
  viduAlpha('alphaq2-pro-fast', { action: 'img2video', seconds: 5, resolution: '1080p', audio: true }, { resolution: '1080p', audio: true }, ['resolution=1080p', 'audio=true', '5 s']),
  viduAlpha('alphaq1', { action: 'reference2video', seconds: 5, resolution: '1080p' }, {}, ['5 s (default)']),
  viduAlpha('alphaq1-classic', { action: 'start-end2video', seconds: 5, resolution: '1080p', offPeak: true }, { off_peak: true }, ['off_peak=true']),
  viduAlpha('alpha2.0', { action: 'img2video', seconds: 8, resolution: '720p' }, { duration: 8 }, ['8 s']),
  viduAlpha('alpha2.0', { action: 'reference2video', seconds: 4, resolution: '360p' }, {}, ['4 s (default)']),
]);

// ---- Volcengine Ark: Seedance, charged from the tokens Ark reports ------------------------------------------------
// volcengine.com/docs/82379/1544106 (a public copy dated 2026-08-27, cross-checked by an August 2026 invoice and the
// page's own 5 s examples), CNY per million output tokens, online inference: 1.0 pro ¥15; 1.0 pro fast ¥4.2; 1.5 pro
// ¥16 with audio (the default), ¥8 silent; 2.0 without an input video ¥46 at 480p/720p, ¥51 at 1080p, ¥26 at 4k, with
// a reference video ¥28, ¥31, ¥16; 2.0 fast ¥37 (¥22 with a reference video), no 1080p. 7 CNY = 1 USD.
// Tokens = width × height × frames / 1024, 24 frames a second; 2.x tasks report 24 × s + 1 frames (Ark reported 87,300
// for a 720p 4 s 2.0 task), 1.x 24 × s (the page's 5 s examples use 120 frames); a reference video adds its seconds at
// the output's size (the simulator's reference video runs 5 s). Frame sizes (16:9 / 1:1) from the note's table: 1.0
// 480p 864×480 / 640×640, 720p 1248×704, 1080p 1920×1088; 1.5 and 2.x 480p 640×640 (1:1), 720p 1280×720, 1080p
// 1920×1080. 4k sizes are not in the note: 3840×2160, twice 1080p's sides, as the simulator renders it. Defaults:
// 1080p on 1.0 pro and pro fast, 720p on the others; 16:9; 5 s.
const ARK_CNY_PER_USD = 7;
const SIZES: Record<string, Record<string, [number, number]>> = {
  '1.0': { '480p 1:1': [640, 640], '720p 16:9': [1248, 704], '1080p 16:9': [1920, 1088] },
  '2.x': { '480p 1:1': [640, 640], '720p 16:9': [1280, 720], '1080p 16:9': [1920, 1080], '4k 16:9': [3840, 2160] },
};
const ARK: Record<string, { family: '1.0' | '1.5' | '2.x'; res: string; cny: (res: string, o: { ref: boolean; audio: boolean }) => number }> = {
  'doubao-seedance-1-0-pro-250528': { family: '1.0', res: '1080p', cny: () => 15 },
  'doubao-seedance-1-0-pro-fast-251015': { family: '1.0', res: '1080p', cny: () => 4.2 },
  'doubao-seedance-1-5-pro-251215': { family: '1.5', res: '720p', cny: (_r, o) => (o.audio ? 16 : 8) },
  'doubao-seedance-2-0-260128': { family: '2.x', res: '720p', cny: (r, o) => ({ '480p': [46, 28], '720p': [46, 28], '1080p': [51, 31], '4k': [26, 16] })[r]![o.ref ? 1 : 0] },
  'doubao-seedance-2-0-fast-260128': { family: '2.x', res: '720p', cny: (_r, o) => (o.ref ? 22 : 37) },
};

function ark(model: string, fields: Body, o: { res?: string; ratio?: string; seconds?: number; ref?: boolean; audio?: boolean }, dims: string[], sent?: Body): Row {
  const m = ARK[model];
  const res = o.res ?? m.res;
  const seconds = o.seconds ?? 5;
  const [w, h] = SIZES[m.family === '1.0' ? '1.0' : '2.x'][`${res} ${o.ratio ?? '16:9'}`];
  const frames = 24 * seconds + (m.family === '2.x' ? 1 : 0) + (o.ref ? 24 * 5 : 0);
  const tokens = Math.round((w * h * frames) / 1024);
  const cny = (tokens * m.cny(res, { ref: Boolean(o.ref), audio: o.audio ?? true })) / 1e6;
  return { model, via: 'video', body: fields, dims: [...dims, `${tokens} tokens`], usd: cny / ARK_CNY_PER_USD, sent: { duration: seconds, ...sent } };
}

table('Volcengine Ark (Seedance)', [
  ark('doubao-seedance-1-0-pro-250528', {}, {}, ['1080p (default)', '5 s']),
  ark('doubao-seedance-1-0-pro-250528', { seconds: 4, metadata: { resolution: '480p', ratio: '1:1' } }, { res: '480p', ratio: '1:1', seconds: 4 }, ['metadata.resolution=480p', '1:1', '4 s'], { resolution: '480p', ratio: '1:1' }),
  ark('doubao-seedance-1-0-pro-fast-251015', { seconds: 10, resolution: '720p' }, { res: '720p', seconds: 10 }, ['resolution=720p', '10 s'], { resolution: '720p' }),
  ark('doubao-seedance-1-0-pro-fast-251015', {}, {}, ['1080p (default)', '5 s']),
  ark('doubao-seedance-1-5-pro-251215', {}, {}, ['720p (default)', 'audio (default)', '5 s']),
  ark('doubao-seedance-1-5-pro-251215', { seconds: 4, generate_audio: false, metadata: { resolution: '1080p' } }, { res: '1080p', seconds: 4, audio: false }, ['generate_audio=false', '1080p', '4 s'], { generate_audio: false, resolution: '1080p' }),
  ark('doubao-seedance-1-5-pro-251215', { metadata: { ratio: '1:1', output_config: { resolution: '480p', audio_generation: false } } }, { res: '480p', ratio: '1:1', audio: false }, ['metadata.output_config.audio_generation=false', '480p'], { generate_audio: false }),
  ark('doubao-seedance-2-0-260128', {}, {}, ['720p (default)', '5 s']),
  ark('doubao-seedance-2-0-260128', { metadata: { resolution: '1080p' } }, { res: '1080p' }, ['metadata.resolution=1080p', '5 s'], { resolution: '1080p' }),
  ark('doubao-seedance-2-0-260128', { seconds: 4, metadata: { resolution: '480p', ratio: '1:1' } }, { res: '480p', ratio: '1:1', seconds: 4 }, ['480p', '1:1', '4 s']),
  ark('doubao-seedance-2-0-260128', { seconds: 4, resolution: '4k' }, { res: '4k', seconds: 4 }, ['resolution=4k', '4 s']),
  ark('doubao-seedance-2-0-260128', { video: 'https://example.com/ref.mp4' }, { ref: true }, ['reference video (5 s)', '720p', '5 s']),
  ark('doubao-seedance-2-0-260128', { seconds: 4, video_url: 'https://example.com/ref.mp4', metadata: { resolution: '1080p' } }, { res: '1080p', seconds: 4, ref: true }, ['reference video (5 s)', '1080p', '4 s']),
  ark('doubao-seedance-2-0-fast-260128', {}, {}, ['720p (default)', '5 s']),
  ark('doubao-seedance-2-0-fast-260128', { seconds: 4, video: 'https://example.com/ref.mp4', metadata: { resolution: '480p', ratio: '1:1' } }, { res: '480p', ratio: '1:1', seconds: 4, ref: true }, ['reference video (5 s)', '480p', '4 s']),
]);

// ---- Volcengine visual API (Jimeng) on /art-official and the unified video route, per call ----------------------------
// No published price was found for the visual API (volcengine.com/docs/85621/1544716 and the action pages carry no
// table). The vendor file's reading: an image at Seedream 4.0's ¥0.20 on Ark; a video at Seedance 1.0 pro's ¥15 per
// million tokens (volcengine.com/docs/82379/1544106) for what it renders, 5 s at 120 frames: 720P 1248×704, 1080P (and
// 3.0 pro) 1920×1088; `frames: 241` is 10 s, twice the tokens. 7 CNY = 1 USD. On the unified route the frames come
// from `seconds` (10 s is 241 frames, which the vendor must receive), the images from `image` and
// `metadata.last_frame_url`.
const JIMENG_IMAGE_CNY = 0.2;
const SEEDANCE_1_0_PRO_CNY_PER_M = 15;
function jimeng(model: string, fields: Body, dims: string[], via: 'visual' | 'video' = 'visual'): Row {
  const tenSeconds = fields.frames === 241 || Number(fields.seconds) === 10;
  let cny = JIMENG_IMAGE_CNY;
  if (!model.startsWith('jimeng_t2i')) {
    const [w, h] = /1080|pro/.test(model) ? [1920, 1088] : [1248, 704];
    cny = (((w * h * (tenSeconds ? 240 : 120)) / 1024) * SEEDANCE_1_0_PRO_CNY_PER_M) / 1e6;
  }
  const images = /i2v_first_tail/.test(model) ? [frame, lastFrame] : /i2v/.test(model) ? [frame] : undefined;
  const usd = cny / ARK_CNY_PER_USD;
  if (via === 'visual') return { model, via, body: { ...(images && { image_urls: images }), ...fields }, dims, usd };
  const unified = images && { image: images[0], ...(images[1] && { metadata: { last_frame_url: images[1] } }) };
  return { model, via, body: { ...unified, ...fields }, dims: ['unified', ...dims], usd, sent: { frames: tenSeconds ? 241 : 121, ...(images && { image_urls: images }) } };
}

table('Volcengine visual (Jimeng)', [
  jimeng('jimeng_t2i_v40', {}, ['image']),
  jimeng('jimeng_t2i_v31', {}, ['image']),
  jimeng('jimeng_t2v_v30', {}, ['720P', 'frames 121 (default)']),
  jimeng('jimeng_t2v_v30', { frames: 241 }, ['720P', 'frames 241']),
  jimeng('jimeng_i2v_first_v30', { frames: 121 }, ['720P', 'frames 121']),
  jimeng('jimeng_i2v_first_tail_v30', {}, ['720P']),
  jimeng('jimeng_i2v_recamera_v30', {}, ['720P']),
  jimeng('jimeng_t2v_v30_1080p', {}, ['1080P']),
  jimeng('jimeng_t2v_v30_1080p', { frames: 241 }, ['1080P', 'frames 241']),
  jimeng('jimeng_i2v_first_v30_1080', {}, ['1080P']),
  jimeng('jimeng_i2v_first_tail_v30_1080', { frames: 241 }, ['1080P', 'frames 241']),
  jimeng('jimeng_ti2v_v30_pro', {}, ['1080P (3.0 pro)']),
  jimeng('jimeng_t2v_v30', {}, ['720P', '5 s (default)'], 'video'),
  jimeng('jimeng_t2v_v30', { seconds: '10' }, ['720P', 'seconds 10'], 'video'),
  jimeng('jimeng_i2v_first_v30', { seconds: 5 }, ['720P', 'first frame'], 'video'),
  jimeng('jimeng_i2v_first_tail_v30_1080', { seconds: '10' }, ['1080P', 'first and last frame', 'seconds 10'], 'video'),
  jimeng('jimeng_ti2v_v30_pro', {}, ['1080P (3.0 pro)'], 'video'),
]);

// ---- DashScope (Wan), by the seconds DashScope reports -------------------------------------------------------------
// help.aliyun.com/zh/model-studio/models (Beijing list prices, read in a reseller's copy of the official table,
// docs.crazyrouter.com/en/video/wan): wan2.2-t2v-plus and wan2.2-i2v-plus ¥0.14/s at 480P, ¥0.70/s at 1080P; wan2.5
// previews ¥0.30 / ¥0.60 / ¥1.00 a second at 480P / 720P / 1080P. DashScope bills usage.video_duration × the tier's price
// (its billing rule, the wan2.2-s2v page). The size in the model name is the tier. 7 CNY = 1 USD.
const WAN_CNY_PER_S: Record<string, number> = { '480': 0.3, '720': 0.6, '1080': 1 };
const WAN22_CNY_PER_S: Record<string, number> = { '480': 0.14, '1080': 0.7 };
function wan(model: string, seconds: number, dims: string[]): Row {
  const [w, h] = model.split(':')[1].split('*').map(Number);
  const tier = String(Math.min(w, h));
  const cny = (model.startsWith('wan2.2') ? WAN22_CNY_PER_S : WAN_CNY_PER_S)[tier] * seconds;
  const body = { ...(model.includes('i2v') && { image: frame }), ...(seconds !== 5 && { seconds: String(seconds) }) };
  return { model, via: 'video', body, dims: [`${tier}P`, `${seconds} s reported`, ...dims], usd: cny / ARK_CNY_PER_USD, sent: { 'parameters.duration': seconds } };
}

table('DashScope (Wan)', [
  wan('wan2.2-t2v-plus:1920*1080', 5, []),
  wan('wan2.2-t2v-plus:1080*1920', 5, []),
  wan('wan2.2-t2v-plus:832*480', 5, []),
  wan('wan2.2-t2v-plus:480*832', 5, []),
  wan('wan2.5-t2v-preview:1920*1080', 10, []),
  wan('wan2.5-t2v-preview:1280*720', 5, []),
  wan('wan2.5-t2v-preview:720*1280', 10, []),
  wan('wan2.5-t2v-preview:832*480', 5, []),
  wan('wan2.2-i2v-plus:1920*1080', 5, ['image to video']),
  wan('wan2.2-i2v-plus:832*480', 5, ['image to video']),
  wan('wan2.5-i2v-preview:1920*1080', 5, ['image to video']),
  wan('wan2.5-i2v-preview:1280*720', 10, ['image to video']),
]);

// ---- MiniMax (Hailuo), per clip ------------------------------------------------------------------------------------
// platform.minimax.io/docs/guides/pricing-paygo (four public copies of it agreeing, one checked against real use on
// 2026-08-24), USD per clip at 768P (the resolution the gateway asks): MiniMax-Hailuo-02 and 2.3 6 s $0.28, 10 s $0.56;
// 2.3-Fast (image to video) 6 s $0.19, 10 s $0.32. MiniMax renders 6 or 10 s: an ask of up to 6 s gets the 6 s clip.
const HAILUO: Record<string, [number, number]> = { 'MiniMax-Hailuo-02': [0.28, 0.56], 'MiniMax-Hailuo-2.3': [0.28, 0.56], 'MiniMax-Hailuo-2.3-Fast': [0.19, 0.32] };
const hailuo = (model: string, seconds: number | undefined, dims: string[]): Row => ({
  model, via: 'video', body: { ...(model.endsWith('Fast') && { image: frame }), ...(seconds !== undefined && { seconds }) }, dims,
  usd: HAILUO[model][(seconds ?? 6) <= 6 ? 0 : 1],
  sent: { duration: (seconds ?? 6) <= 6 ? 6 : 10, resolution: '768P' },
});

table('MiniMax (Hailuo)', [
  hailuo('MiniMax-Hailuo-02', undefined, ['6 s clip (default)']),
  hailuo('MiniMax-Hailuo-02', 7, ['asked 7 s: the 10 s clip']),
  hailuo('MiniMax-Hailuo-2.3', 4, ['asked 4 s: the 6 s clip']),
  hailuo('MiniMax-Hailuo-2.3', 10, ['10 s clip']),
  hailuo('MiniMax-Hailuo-2.3-Fast', 6, ['6 s clip']),
  hailuo('MiniMax-Hailuo-2.3-Fast', 11, ['asked 11 s: the 10 s clip']),
]);

// ---- Rerank (Cohere, Jina) and moderations (OpenAI) ------------------------------------------------------------------
// - Cohere rerank-v3.5: cohere.com/pricing — $2.00 per 1,000 searches; "a single search unit is defined as one query with
//   up to 100 documents to be ranked", and a document longer than 500 tokens with the query is split into chunks, each
//   counted as a document (the pricing FAQ). Cohere reports what it billed as meta.billed_units.search_units.
// - Jina rerankers: $0.05 per million tokens of the request, one balance for every model (jina.ai's API key & billing
//   panel, read through a price calculator's copy); Jina reports usage.total_tokens.
// - OpenAI moderations: free ("The moderations endpoint is free to use", developers.openai.com/api/docs/guides/moderation).
const COHERE_USD_PER_SEARCH = 2 / 1000;
const JINA_USD_PER_MTOK = 0.05;
/** `n` short documents and, with `long`, one of that many words; the query (the row's text) is 4 words. */
function cohereRerank(n: number, long: number, dims: string[]): Row {
  const documents = [...Array.from({ length: n }, (_, i) => `document ${i} about something`), ...(long ? ['word '.repeat(long).trim()] : [])];
  const chunks = n + (long ? Math.ceil((4 + long) / 500) : 0);
  const searches = Math.ceil(chunks / 100);
  return { model: 'rerank-v3.5', via: 'rerank', body: { documents }, usage: { search_units: searches }, dims: [...dims, `${searches} searches`], usd: searches * COHERE_USD_PER_SEARCH };
}
/** The request weighs `tokens` at the gateway's estimate (4 bytes a token), in its documents: what Jina counts. */
const jinaRerank = (model: string, tokens: number): Row => ({
  model, via: 'rerank', body: { top_n: 1, documents: Array.from({ length: 10 }, () => 'pad '.repeat(tokens / 10).trim()) },
  usage: { total_tokens: tokens }, dims: [`${tokens} tokens`], usd: (tokens * JINA_USD_PER_MTOK) / 1e6,
});

table('Rerank (Cohere, Jina)', [
  cohereRerank(1, 0, ['1 document']),
  cohereRerank(100, 0, ['100 documents']),
  cohereRerank(101, 0, ['101 documents']),
  cohereRerank(250, 1200, ['250 documents and one of 1,200 tokens (3 chunks)']),
  jinaRerank('jina-reranker-v2-base-multilingual', 200_000),
  jinaRerank('jina-reranker-m0', 30_000),
  jinaRerank('jina-reranker-v3', 1_000),
]);

table('OpenAI moderations', [
  { model: 'omni-moderation-latest', via: 'moderation', dims: ['free'], usd: 0 },
  { model: 'text-moderation-latest', via: 'moderation', dims: ['free'], usd: 0 },
]);

// ---- Midjourney and Suno, per job ------------------------------------------------------------------------------------
// Midjourney (docs.midjourney.com plans, read in a third-party breakdown): an average job takes about one minute of Fast
// GPU time, extra Fast time costs $4 an hour; Turbo uses twice the GPU time; Relax none (in the plan). Suno
// (suno.com/pricing, help.suno.com/en/articles/2418177): the Pro plan's 2,500 monthly credits cost $10, a song generation
// takes 10 credits, lyrics none.
const MJ_FAST_USD = 4 / 60;
const SUNO_SONG_USD = (10 / 2500) * 10;

table('Midjourney', [
  { model: 'art-fast', via: 'midjourney', dims: ['FAST'], usd: MJ_FAST_USD },
  { model: 'art-turbo', via: 'midjourney', dims: ['TURBO'], usd: 2 * MJ_FAST_USD },
  { model: 'art-relax', via: 'midjourney', dims: ['RELAX'], usd: 0 },
]);

table('Suno', [
  { model: 'suno_music', via: 'suno-music', dims: ['song'], usd: SUNO_SONG_USD },
  { model: 'suno_lyrics', via: 'suno-lyrics', dims: ['lyrics'], usd: 0 },
]);

test('every model of the production catalog has a row', () => {
  const catalog = [...stack.gw.gateway.runtime.models.entries()].filter(([, m]) => !m.hidden).map(([name]) => name);
  const covered = new Set(outcomes.map((o) => o.row.model));
  assert.deepEqual(catalog.filter((m) => !covered.has(m)), []);
  assert.ok(catalog.length > 80, `${catalog.length} models`);
});
