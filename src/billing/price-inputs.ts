// The numbers a price depends on (seconds, units, completion limit, choices), read from the body and checked
// against the model's bounds before anything is reserved: a client can never make a charge negative, fractional,
// zero where it must not be, or too large for the store.
import type { Model } from '../types/generated/channels.js';
import type { PriceInputs as PriceInputFields } from '../types/generated/routes.js';
import { GatewayError } from '../http/errors.js';
import { readCompletionLimit, type Clamped } from './completion-limit.js';
import { valueAt, wholeNumber } from './body-numbers.js';

export { valueAt } from './body-numbers.js';
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

export function readPriceInputs(spec: CompiledPriceInputs, model: Model, body: Record<string, unknown>): PriceInputs {
  const seconds = { ...defaults.seconds, ...model.price.seconds };
  const units = { ...defaults.units, ...model.price.units };
  const completion = readCompletionLimit(spec.completion_tokens, model, body);
  return {
    seconds: read(spec.seconds, body, seconds, 'a whole number of seconds'),
    units: read(spec.units, body, units, 'a whole number') ?? units.default,
    completionTokens: completion.tokens,
    clamped: completion.clamped,
    choices: read(spec.choices, body, defaults.choices, 'a whole number') ?? 1,
  };
}

/** Seconds to charge: what the client asked for, else the model's default. */
export const secondsToCharge = (model: Model, inputs: PriceInputs) => inputs.seconds ?? model.price.seconds?.default ?? defaults.seconds.default;

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
