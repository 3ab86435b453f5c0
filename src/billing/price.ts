// Turns usage into quota units with the model's price, and what a request may cost before it is sent.
import type { Model } from '../types/generated/channels.js';
import type { Usage } from '../pipeline/context.js';
import { maxOutputTokens, secondsToCharge, type PriceInputs } from './price-inputs.js';

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
  const tokenPriced = Boolean(p.input_per_mtok || p.output_per_mtok);
  const promptTokens = tokenPriced ? Math.ceil(bodyBytes / bytesPerToken) : 0;
  const completion = tokenPriced ? (inputs.completionTokens ?? maxOutputTokens(model)) * inputs.choices : 0;
  const media = p.per_second ? p.per_second * secondsToCharge(model, inputs) : 0;
  const tokens = (promptTokens * (p.input_per_mtok ?? 0) + completion * (p.output_per_mtok ?? 0)) / 1e6;
  return { amount: Math.ceil((p.per_call ?? 0) * inputs.units + media + tokens), promptTokens };
}
