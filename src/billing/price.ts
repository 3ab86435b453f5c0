// Turns usage into quota units with the model's price, and estimates the reservation before dispatch.
import type { Model } from '../types/generated/channels.js';
import type { Usage } from '../pipeline/context.js';
import { maxOutputTokens, secondsToCharge, type PriceInputs } from './price-inputs.js';

export function charge(model: Model, usage: Usage): number {
  const p = model.price;
  const tokens = (usage.prompt_tokens * (p.input_per_mtok ?? 0) + usage.completion_tokens * (p.output_per_mtok ?? 0)) / 1e6;
  return Math.ceil(tokens + (p.per_call ?? 0));
}

/**
 * What a chat request may cost: its prompt (body bytes ÷ `bytesPerToken`, rounded up) and its completion limit for
 * every choice. The prompt part is an estimate, not a bound: the settle is capped at this reservation instead.
 */
export function estimateChat(model: Model, inputs: PriceInputs, bodyBytes: number, bytesPerToken: number): { reserve: number; promptTokens: number } {
  const promptTokens = Math.ceil(bodyBytes / bytesPerToken);
  const limit = inputs.completionTokens ?? maxOutputTokens(model);
  return { reserve: charge(model, { prompt_tokens: promptTokens, completion_tokens: limit * inputs.choices }), promptTokens };
}

/** A task's price: per call plus per second of media (the model's default seconds when the request names none). */
export function taskCharge(model: Model, inputs: PriceInputs): number {
  const p = model.price;
  return Math.ceil((p.per_call ?? 0) + (p.per_second ?? 0) * secondsToCharge(model, inputs));
}

/** A synchronous call priced per unit (`n` images): per call times units. */
export const unitCharge = (model: Model, inputs: PriceInputs) => Math.ceil((model.price.per_call ?? 0) * inputs.units);
