// Turns usage into quota units with the model's price, and estimates the reservation before dispatch.
import type { Model } from '../types/generated/channels.js';
import type { Usage } from '../pipeline/context.js';

export function charge(model: Model, usage: Usage): number {
  const p = model.price;
  const tokens = (usage.prompt_tokens * (p.input_per_mtok ?? 0) + usage.completion_tokens * (p.output_per_mtok ?? 0)) / 1e6;
  return Math.ceil(tokens + (p.per_call ?? 0));
}

/** The most a chat request can cost: its prompt (about 4 bytes a token, rounded up) and its completion limit. */
export function estimateChat(model: Model, body: Record<string, unknown>, bodyBytes: number): { reserve: number; promptTokens: number } {
  const promptTokens = Math.ceil(bodyBytes / 4);
  const n = typeof body.n === 'number' ? body.n : 1;
  const limit = firstNumber(body.max_completion_tokens, body.max_tokens) ?? model.max_output_tokens ?? 4096;
  return { reserve: charge(model, { prompt_tokens: promptTokens, completion_tokens: limit * n }), promptTokens };
}

const firstNumber = (...xs: unknown[]) => xs.find((x): x is number => typeof x === 'number');

/** A task's price: per call plus per second of media (5 s when the request names no duration). */
export function taskCharge(model: Model, seconds: number | undefined): number {
  const p = model.price;
  return Math.ceil((p.per_call ?? 0) + (p.per_second ?? 0) * (seconds ?? 5));
}
