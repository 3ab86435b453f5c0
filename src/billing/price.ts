// Turns usage into quota units with the model's price, and what a request may cost before it is sent.
import type { Model } from '../types/generated/channels.js';
import type { Usage } from '../pipeline/context.js';
import { maxOutputTokens, secondsToCharge, type PriceInputs } from './price-inputs.js';

/** Priced by tokens: the charge follows the upstream's reported usage, not the request's shape. */
export const tokenPriced = (model: Model) => Boolean(model.price.input_per_mtok || model.price.output_per_mtok);

/**
 * The usage an upstream answer reports (`usage.prompt_tokens` and `usage.completion_tokens`, or the newer names
 * `input_tokens` and `output_tokens` that image answers use), or undefined when it reports none or nonsense: a count
 * must be a whole number ≥ 0, and a missing completion count is 0 (embeddings).
 */
export function reportedUsage(answer: unknown): Usage | undefined {
  type Counts = { prompt_tokens?: unknown; completion_tokens?: unknown; input_tokens?: unknown; output_tokens?: unknown };
  const u = (answer as { usage?: Counts } | null)?.usage;
  if (!u || typeof u !== 'object') return undefined;
  const count = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
  const [promptField, completionField] = u.prompt_tokens === undefined ? [u.input_tokens, u.output_tokens] : [u.prompt_tokens, u.completion_tokens];
  const prompt = count(promptField);
  const completion = completionField === undefined ? 0 : count(completionField);
  return prompt === undefined || completion === undefined ? undefined : { prompt_tokens: prompt, completion_tokens: completion };
}

/** What the model is priced per besides tokens, for usage reports: seconds of media, else calls × units; 0 for token prices. */
export function billedUnits(model: Model, inputs: PriceInputs): number {
  if (model.price.per_second) return secondsToCharge(model, inputs);
  return model.price.per_call && !tokenPriced(model) ? inputs.units : 0;
}

export function charge(model: Model, usage: Usage): number {
  const p = model.price;
  const tokens = (usage.prompt_tokens * (p.input_per_mtok ?? 0) + usage.completion_tokens * (p.output_per_mtok ?? 0)) / 1e6;
  return Math.ceil(tokens + (p.per_call ?? 0));
}

/**
 * One formula for every route: per call × units, per second × seconds (the model's default when none is named), and
 * for token prices the prompt (body bytes ÷ `bytesPerToken`) plus the completion limit for every choice. The prompt
 * part is an estimate, not a bound: a settle is capped at this reservation instead.
 */
export function reservationFor(model: Model, inputs: PriceInputs, bodyBytes: number, bytesPerToken: number): { amount: number; promptTokens: number } {
  const p = model.price;
  const byTokens = tokenPriced(model);
  const promptTokens = byTokens ? Math.ceil(bodyBytes / bytesPerToken) : 0;
  const completion = byTokens ? (inputs.completionTokens ?? maxOutputTokens(model)) * inputs.choices : 0;
  const media = p.per_second ? p.per_second * secondsToCharge(model, inputs) : 0;
  const tokens = (promptTokens * (p.input_per_mtok ?? 0) + completion * (p.output_per_mtok ?? 0)) / 1e6;
  return { amount: Math.ceil((p.per_call ?? 0) * inputs.units + media + tokens), promptTokens };
}
