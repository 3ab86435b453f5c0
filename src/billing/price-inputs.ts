// The numbers a price depends on (seconds, units, completion limit, choices), read from the body and checked
// against the model's bounds before anything is reserved: a client can never make a charge negative, fractional,
// zero where it must not be, or too large for the store.
import type { Model } from '../types/generated/channels.js';
import type { PriceInputs as PriceInputFields } from '../types/generated/routes.js';
import { GatewayError } from '../http/errors.js';
import { readCompletionLimit, type Clamped } from './completion-limit.js';
import { valueAt, wholeNumber } from '../http/body-numbers.js';
import { isFile, secondsOf } from '../http/multipart.js';

export { valueAt } from '../http/body-numbers.js';
export { maxOutputTokens } from './completion-limit.js';

/** Field paths per input, split once at load. */
export type CompiledPriceInputs = Partial<Record<keyof PriceInputFields, string[][]>>;

export interface PriceInputs {
  /** Seconds the client asked for; undefined when it named none (the model's default is charged). */
  seconds?: number;
  units: number;
  /** The completion limit the client asked for, lowered to the model's maximum; undefined when it named none (the maximum is reserved). */
  completionTokens?: number;
  /** The completion-limit fields lowered to the model's maximum (completion-limit.ts); empty when none was. */
  clamped: Clamped[];
  choices: number;
}

interface Bounds { min: number; max: number }

const defaults = {
  seconds: { min: 1, max: 60, default: 5 },
  units: { min: 1, max: 10, default: 1 },
  choices: { min: 1, max: 128 },
};

export function compilePriceInputs(spec: PriceInputFields | undefined): CompiledPriceInputs {
  const out: CompiledPriceInputs = {};
  for (const [k, paths] of Object.entries(spec ?? {})) out[k as keyof PriceInputFields] = (paths as string[]).map((p) => p.split('.'));
  return out;
}

/** `bytesPerToken`: the gateway's prompt estimate (billing.prompt_bytes_per_token), for items priced by their length. */
export function readPriceInputs(spec: CompiledPriceInputs, model: Model, body: Record<string, unknown>, bytesPerToken = 4): PriceInputs {
  const seconds = { ...defaults.seconds, ...model.price.seconds };
  const units = { ...defaults.units, ...model.price.units };
  const completion = readCompletionLimit(spec.completion_tokens, model, body);
  return {
    seconds: read(spec.seconds, body, seconds, 'a whole number of seconds') ?? mediaSeconds(spec.media_seconds, body, seconds),
    // Items and characters are units only where a model is priced per call (per search, per character); a token-priced
    // one counts tokens.
    units: read(spec.units, body, units, 'a whole number')
      ?? (model.price.per_call ? itemUnits(spec, model, body, bytesPerToken, units) ?? characters(spec.characters, body, units) : undefined)
      ?? units.default,
    completionTokens: completion.tokens,
    clamped: completion.clamped,
    choices: read(spec.choices, body, defaults.choices, 'a whole number') ?? 1,
  };
}

/** Seconds to charge: what the client asked for, else the model's default. */
export const secondsToCharge = (model: Model, inputs: PriceInputs) => inputs.seconds ?? model.price.seconds?.default ?? defaults.seconds.default;

/** The length in code points of the first present string field (what a vendor billing per character counts), bounded. */
function characters(paths: string[][] | undefined, body: Record<string, unknown>, b: Bounds): number | undefined {
  for (const path of paths ?? []) {
    const v = valueAt(body, path);
    if (typeof v !== 'string') continue;
    let n = 0;
    for (const _ of v) n++;
    if (n < b.min || n > b.max) throw new GatewayError('invalid_request', `\`${path.join('.')}\` must be ${b.min} to ${b.max} characters long (it is ${n})`);
    return n;
  }
  return undefined;
}

/**
 * The units a list of items makes (a rerank's documents): the first present array's length over the model's
 * `price.units.per_items`, rounded up (a search of up to 100 documents). With `price.units.item_tokens` an item
 * longer than that many tokens counts once per chunk begun, its tokens estimated from its bytes with the `item_context`
 * fields' bytes added to each (the query a vendor sends beside every document), so the reservation covers the chunks
 * the vendor bills. Bounded by the model's `price.units`.
 */
function itemUnits(spec: CompiledPriceInputs, model: Model, body: Record<string, unknown>, bytesPerToken: number, b: Bounds): number | undefined {
  for (const path of spec.items ?? []) {
    const v = valueAt(body, path);
    if (!Array.isArray(v)) continue;
    const { per_items: per = 1, item_tokens: chunk } = model.price.units ?? {};
    let items = v.length;
    if (chunk) {
      const context = (spec.item_context ?? []).reduce((n, p) => n + bytesOf(valueAt(body, p)), 0);
      items = 0;
      for (const item of v) items += Math.max(1, Math.ceil((bytesOf(item) + context) / (chunk * bytesPerToken)));
    }
    const n = Math.ceil(items / per);
    if (n < b.min || n > b.max) {
      const what = per > 1 ? `${n} billable units of up to ${per} items` : `${n} billable items`;
      throw new GatewayError('invalid_request', `\`${path.join('.')}\` makes ${what}; this model takes ${b.min} to ${b.max}`);
    }
    return n;
  }
  return undefined;
}

/** A value's size in bytes as a vendor reads it: a string's UTF-8, anything else its JSON; nothing is 0. */
function bytesOf(v: unknown): number {
  if (v === undefined || v === null) return 0;
  return typeof v === 'string' ? Buffer.byteLength(v) : Buffer.byteLength(JSON.stringify(v));
}

/**
 * The duration of the first uploaded file present, as read from its header when it was received (read-request.ts
 * probes it), bounded; a file whose duration could not be read is refused, since neither the price nor the vendor
 * can know what it would cost.
 */
function mediaSeconds(paths: string[][] | undefined, body: Record<string, unknown>, b: Bounds): number | undefined {
  for (const path of paths ?? []) {
    const v = valueAt(body, path);
    if (!isFile(v)) continue;
    const where = `\`${path.join('.')}\``;
    const seconds = secondsOf(v);
    if (seconds === undefined) throw new GatewayError('invalid_request', `${where} is not an audio file whose length can be read (WAV, MP3, FLAC, Ogg, MP4/M4A or WebM)`);
    if (seconds > b.max) throw new GatewayError('invalid_request', `${where} lasts ${Math.ceil(seconds)} seconds; this model takes at most ${b.max}`);
    // Vendors bill each second begun (a 13.3-second upload as 14): the reservation covers the same.
    return Math.ceil(seconds - 1e-9);
  }
  return undefined;
}

/** The first present field of `paths`, parsed strictly and bounded; undefined when none is present. */
function read(paths: string[][] | undefined, body: Record<string, unknown>, b: Bounds, what: string): number | undefined {
  for (const path of paths ?? []) {
    const v = valueAt(body, path);
    if (v === undefined || v === null) continue;
    const n = wholeNumber(v);
    if (n === undefined || n < b.min || n > b.max) {
      throw new GatewayError('invalid_request', `\`${path.join('.')}\` must be ${what} from ${b.min} to ${b.max}`);
    }
    return n;
  }
  return undefined;
}
