// The completion limit a request names (the route's `price_inputs.completion_tokens` fields). Coding agents send
// their own default (32000, 64000) whatever the model, so a whole number above the model's `max_output_tokens` is
// lowered to it by default: what is reserved and what the vendor gets. A model with `over_limit: refuse` answers 400
// instead. Anything else (below 1, fractional, past 2^31 − 1, not a number) is refused in both modes, naming the field.
import type { Model } from '../types/generated/channels.js';
import { GatewayError } from '../http/errors.js';
import { valueAt, wholeNumber } from '../http/body-numbers.js';

/** The largest limit lowered rather than refused: a signed 32-bit integer, what vendors' own schemas accept. */
export const MOST_TOKENS = 2 ** 31 - 1;

/** The model's largest completion: what a request without a limit reserves, and the most one gets. */
export const maxOutputTokens = (model: Model) => model.max_output_tokens ?? 4096;

/** One field lowered to the model's maximum: its dotted path, what the client asked, what it became. */
export interface Clamped { field: string; asked: number; to: number }

export interface CompletionLimit {
  /** The limit reserved: the first present field's, after lowering; undefined when the request names none. */
  tokens?: number;
  /** Every present field that was lowered (a client may send both `max_tokens` and `max_completion_tokens`). */
  clamped: Clamped[];
}

const none: CompletionLimit = { tokens: undefined, clamped: [] };

/** Throws invalid_request (400) naming the field. Every present field is checked, not only the one reserved. */
export function readCompletionLimit(paths: string[][] | undefined, model: Model, body: Record<string, unknown>): CompletionLimit {
  if (!paths) return none;
  const max = maxOutputTokens(model);
  const refuse = model.over_limit === 'refuse';
  let tokens: number | undefined;
  const clamped: Clamped[] = [];
  for (const path of paths) {
    const v = valueAt(body, path);
    if (v === undefined || v === null) continue;
    const field = path.join('.');
    const n = wholeNumber(v);
    if (n === undefined || n < 1 || n > (refuse ? max : MOST_TOKENS)) throw new GatewayError('invalid_request', refusal(field, max, refuse));
    if (n > max) clamped.push({ field, asked: n, to: max });
    tokens ??= Math.min(n, max);
  }
  return clamped.length || tokens !== undefined ? { tokens, clamped } : none;
}

function refusal(field: string, max: number, refuse: boolean): string {
  if (refuse) return `\`${field}\` must be a whole number of tokens from 1 to ${max}`;
  return `\`${field}\` must be a whole number of tokens from 1 to ${MOST_TOKENS} (above the model's maximum, ${max}, it is lowered to ${max})`;
}

/** The body with each lowered field set to its new value; the objects on each path are copied, never changed. */
export function withClamped(body: Record<string, unknown>, clamped: Clamped[]): Record<string, unknown> {
  let out = body;
  for (const c of clamped) out = setAt(out, c.field.split('.'), c.to);
  return out;
}

function setAt(obj: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const [key, ...rest] = path;
  return { ...obj, [key]: rest.length ? setAt(obj[key] as Record<string, unknown>, rest, value) : value };
}

/** The `x-switchyard-clamped` header and the access line's `clamped`: `max_tokens=32000;to=16384`, comma-separated. */
export const clampedHeader = (clamped: Clamped[]) => clamped.map((c) => `${c.field}=${c.asked};to=${c.to}`).join(', ');
