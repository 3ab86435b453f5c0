// A request's tokens parted into the classes vendors price apart, without overlap. Vendors report parts that overlap
// (a cached count inside the prompt count, an audio count that includes the cached audio; or cache reads and writes
// beside the input count, which the usage paths sum into the prompt), so the classes are
// derived here once, each clamped to what is left of its total: a vendor reporting nonsense can shift tokens between
// classes but never bill more tokens than the totals, nor fewer than zero.
import type { Usage } from '../pipeline/context.js';

export type TokenCounts = Record<string, number>;

/** The parts of `cache_write` reported by lifetime (`cache_write_5m`, `cache_write_1h`, …). */
const lifetimed = /^cache_write_[0-9]+[mhd]$/;

export function tokenClasses(u: Usage): TokenCounts {
  const d = u.details ?? {};
  const out: TokenCounts = {};
  let prompt = u.prompt_tokens;
  const take = (name: string, n: number | undefined) => {
    const t = Math.min(Math.max(0, n ?? 0), prompt);
    prompt -= t;
    if (t) out[name] = (out[name] ?? 0) + t;
    return t;
  };
  const cachedAudio = take('cached_input_audio', d.cached_audio);
  const cachedImage = take('cached_input_image', d.cached_image);
  take('cached_input', (d.cached ?? 0) - cachedAudio - cachedImage);
  let writes = d.cache_write ?? 0;
  for (const [name, n] of Object.entries(d)) if (lifetimed.test(name)) writes -= take(name, n);
  take('cache_write', writes);
  take('input_audio', (d.input_audio ?? 0) - cachedAudio);
  take('input_image', (d.input_image ?? 0) - cachedImage);
  take('input', prompt);

  let completion = u.completion_tokens;
  const give = (name: string, n: number | undefined) => {
    const t = Math.min(Math.max(0, n ?? 0), completion);
    completion -= t;
    if (t) out[name] = t;
  };
  give('reasoning', d.reasoning);
  give('output_audio', d.output_audio);
  give('output_image', d.output_image);
  give('output', completion);
  return out;
}

/** The class a rate falls back to when a price does not name it; `input` and `output` fall back to nothing. */
export function fallbackOf(name: string): string | undefined {
  if (lifetimed.test(name)) return 'cache_write';
  return fallbacks[name];
}

const fallbacks: Record<string, string> = {
  cached_input: 'input', cache_write: 'input', input_audio: 'input', input_image: 'input',
  cached_input_audio: 'input_audio', cached_input_image: 'input_image',
  reasoning: 'output', output_audio: 'output', output_image: 'output',
};

/** Whether a class is on the prompt side (else the completion side). */
export const isInputClass = (name: string) => !outputClasses.has(name);
const outputClasses = new Set(['output', 'reasoning', 'output_audio', 'output_image']);

/** The counts a ledger entry and the usage rollups keep beside the totals. */
export function classTags(u: Usage): { cached_tokens: number; cache_write_tokens: number; reasoning_tokens: number; audio_tokens: number; image_tokens: number } {
  const c = tokenClasses(u);
  let writes = c.cache_write ?? 0;
  for (const [name, n] of Object.entries(c)) if (lifetimed.test(name)) writes += n;
  return {
    cached_tokens: (c.cached_input ?? 0) + (c.cached_input_audio ?? 0) + (c.cached_input_image ?? 0),
    cache_write_tokens: writes,
    reasoning_tokens: c.reasoning ?? 0,
    audio_tokens: (c.input_audio ?? 0) + (c.cached_input_audio ?? 0) + (c.output_audio ?? 0),
    image_tokens: (c.input_image ?? 0) + (c.cached_input_image ?? 0) + (c.output_image ?? 0),
  };
}
