// What a Realtime response costs, as OpenAI bills it (developers.openai.com/api/docs/guides/realtime-costs): the whole
// conversation is input again for every response, so later turns cost more; user audio is 1 token per 100 ms and
// assistant audio 1 token per 50 ms, in and out. Text is counted in words, as everywhere in the simulator.
//
// Caching: a response's context (its input plus its output, which joins the conversation) is a prefix of the next
// response's input, so the next response reads it from cache, per modality, in whole blocks of 64 tokens (OpenAI's
// cached figures are multiples of 64: its examples show 64, 640 = 256 text + 384 audio). New instructions change the
// prefix, so a response whose instructions differ from the previous one's reads nothing from cache.
import { overriddenUsage } from '../usage-directive.js';
import type { Json } from './defaults.js';

export const USER_AUDIO_TOKENS_PER_SECOND = 10;
export const ASSISTANT_AUDIO_TOKENS_PER_SECOND = 20;
const CACHE_BLOCK = 64;

export interface Tokens {
  text: number;
  audio: number;
}

export const words = (s: unknown): number => (typeof s === 'string' ? s.split(/\s+/).filter(Boolean).length : 0);
export const audioTokens = (seconds: number, perSecond: number): number => Math.ceil(seconds * perSecond - 1e-9);

export const sum = (xs: Tokens[]): Tokens => xs.reduce((a, b) => ({ text: a.text + b.text, audio: a.audio + b.audio }), { text: 0, audio: 0 });

/** The prefix a response left in cache: its instructions and the tokens of its context. */
export interface CacheState {
  instructions: string;
  context: Tokens;
}

const block = (n: number): number => Math.floor(n / CACHE_BLOCK) * CACHE_BLOCK;

export function responseUsage(input: Tokens, output: Tokens, cache: CacheState | undefined, instructions: string, over: Json | undefined): Json {
  const cached = cache && cache.instructions === instructions
    ? { text: block(Math.min(cache.context.text, input.text)), audio: block(Math.min(cache.context.audio, input.audio)) }
    : { text: 0, audio: 0 };
  const inTotal = input.text + input.audio;
  const outTotal = output.text + output.audio;
  const usage = {
    total_tokens: inTotal + outTotal,
    input_tokens: inTotal,
    output_tokens: outTotal,
    input_token_details: {
      text_tokens: input.text, audio_tokens: input.audio, image_tokens: 0, cached_tokens: cached.text + cached.audio,
      cached_tokens_details: { text_tokens: cached.text, audio_tokens: cached.audio, image_tokens: 0 },
    },
    output_token_details: { text_tokens: output.text, audio_tokens: output.audio },
  };
  return overriddenUsage(usage, over, { key: 'total_tokens', parts: ['input_tokens', 'output_tokens'] });
}
