// A request's tokens parted into the classes vendors price apart, without overlap. Vendors report parts that overlap
// (a cached count inside the prompt count, an audio count that includes the cached audio; or cache reads and writes
// beside the input count, which the usage paths sum into the prompt), so the classes are derived here once, each
// clamped to what is left of its total: a vendor reporting nonsense can shift tokens between classes but never bill
// more tokens than the totals, nor fewer than zero.
import type { Usage, UsageDetails } from '../transform/usage.js';

export type TokenCounts = Record<string, number>;

/** The parts of `cache_write` reported by lifetime (`cache_write_5m`, `cache_write_1h`, …). */
const lifetimed = /^cache_write_[0-9]+[mhd]$/;

export function tokenClasses(u: Usage): TokenCounts {
  const d = u.details;
  // Most answers report no parts: all of the prompt is input, all of the completion output.
  if (!d) return u.completion_tokens ? { input: u.prompt_tokens, output: u.completion_tokens } : { input: u.prompt_tokens };
  const out: TokenCounts = {};
  const left = { prompt: u.prompt_tokens, completion: u.completion_tokens };
  const cachedAudio = take(out, left, 'prompt', 'cached_input_audio', d.cached_audio);
  const cachedImage = take(out, left, 'prompt', 'cached_input_image', d.cached_image);
  take(out, left, 'prompt', 'cached_input', (d.cached ?? 0) - cachedAudio - cachedImage);
  take(out, left, 'prompt', 'cache_write', (d.cache_write ?? 0) - lifetimedWrites(out, left, d));
  take(out, left, 'prompt', 'input_audio', (d.input_audio ?? 0) - cachedAudio);
  take(out, left, 'prompt', 'input_image', (d.input_image ?? 0) - cachedImage);
  take(out, left, 'prompt', 'input', left.prompt);
  take(out, left, 'completion', 'reasoning', d.reasoning);
  take(out, left, 'completion', 'output_audio', d.output_audio);
  take(out, left, 'completion', 'output_image', d.output_image);
  take(out, left, 'completion', 'output', left.completion);
  return out;
}

/** Up to `n` of what is left on one side goes to a class; returns what it took. */
function take(out: TokenCounts, left: { prompt: number; completion: number }, side: 'prompt' | 'completion', name: string, n: number | undefined): number {
  const t = Math.min(Math.max(0, n ?? 0), left[side]);
  left[side] -= t;
  if (t) out[name] = t;
  return t;
}

/** The writes reported by lifetime, each taken as its own class; returns how many. */
function lifetimedWrites(out: TokenCounts, left: { prompt: number; completion: number }, d: UsageDetails): number {
  let taken = 0;
  for (const name in d) if (name.startsWith('cache_write_') && lifetimed.test(name)) taken += take(out, left, 'prompt', name, d[name]);
  return taken;
}

/**
 * The class a rate falls back to when a price does not name it; `input` and `output` fall back to nothing. Cached
 * audio or images fall back to their modality's rate where the price prices the modality apart (its cache discount
 * unknown, the full rate is the bound), else to the cached rate (the modality costs what text costs).
 */
export function fallbackOf(name: string, rates: Record<string, number>): string | undefined {
  if (lifetimed.test(name)) return 'cache_write';
  if (name === 'cached_input_audio') return rates.input_audio !== undefined ? 'input_audio' : 'cached_input';
  if (name === 'cached_input_image') return rates.input_image !== undefined ? 'input_image' : 'cached_input';
  return fallbacks[name];
}

const fallbacks: Record<string, string> = {
  cached_input: 'input', cache_write: 'input', input_audio: 'input', input_image: 'input',
  reasoning: 'output', output_audio: 'output', output_image: 'output',
};

/** Whether a class is on the prompt side (else the completion side). */
export const isInputClass = (name: string) => !outputClasses.has(name);
const outputClasses = new Set(['output', 'reasoning', 'output_audio', 'output_image']);

export interface ClassTags { cached_tokens: number; cache_write_tokens: number; reasoning_tokens: number; audio_tokens: number; image_tokens: number }

/** The counts a ledger entry and the usage rollups keep beside the totals, from a request's classes. */
export function classTags(c: TokenCounts): ClassTags {
  let writes = 0;
  for (const name in c) if (name.startsWith('cache_write')) writes += c[name];
  return {
    cached_tokens: (c.cached_input ?? 0) + (c.cached_input_audio ?? 0) + (c.cached_input_image ?? 0),
    cache_write_tokens: writes,
    reasoning_tokens: c.reasoning ?? 0,
    audio_tokens: (c.input_audio ?? 0) + (c.cached_input_audio ?? 0) + (c.output_audio ?? 0),
    image_tokens: (c.input_image ?? 0) + (c.cached_input_image ?? 0) + (c.output_image ?? 0),
  };
}
