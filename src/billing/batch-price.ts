// A model's price for requests run through a vendor's Batch API: its `price.batch` laid over the price a request
// naming no options gets. And what a batch of such requests may cost before it runs, from its input file's lines.
import type { Model } from '../types/generated/channels.js';
import { applyPatch, type ChosenPrice, type CompiledPrice } from './price-rules.js';
import { choosePrice } from './choose-price.js';
import { dearest, wholeUnits } from './price.js';
import { maxOutputTokens } from './completion-limit.js';

const made = new WeakMap<CompiledPrice, ChosenPrice>();

/** undefined: the model has no batch price (a batch of it is refused). */
export function batchPrice(cp: CompiledPrice): ChosenPrice | undefined {
  if (!cp.batch) return undefined;
  let p = made.get(cp);
  if (!p) {
    const base = choosePrice(cp, {});
    const out: ChosenPrice = { ...base, tokens: { ...base.tokens }, tiers: base.tiers };
    applyPatch(out, cp.batch);
    p = Object.freeze(out);
    made.set(cp, p);
  }
  return p;
}

/** What a batch's lines ask for, summed as its input file was read (src/files/check-lines.ts). */
export interface BatchLines {
  count: number;
  /** Bytes of every line together, and of the largest one. */
  bytes: number;
  max_line_bytes: number;
  /** The completion limits the lines name, each times its choices. */
  completion_tokens: number;
  /** The choices of the lines that name no limit: each reserves the model's max_output_tokens. */
  open_choices: number;
}

/**
 * What a batch may cost: every line's prompt (its bytes ÷ bytesPerToken, rounded up) at the input side's dearest rate
 * and its completion limits at the output side's, both at the tier of the largest line: at least what the lines would
 * reserve one by one. The charge is what the vendor reports they used, never above this.
 */
export function batchReservation(c: ChosenPrice, model: Model, lines: BatchLines, bytesPerToken: number): number {
  const prompt = Math.ceil(lines.bytes / bytesPerToken) + lines.count;
  const largest = Math.ceil(lines.max_line_bytes / bytesPerToken);
  const completion = lines.completion_tokens + lines.open_choices * maxOutputTokens(model);
  const units = c.per_call * lines.count + (prompt * dearest(c, largest, true) + completion * dearest(c, largest, false)) / 1e6;
  return wholeUnits(units * c.multiply);
}
