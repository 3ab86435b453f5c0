// A model's price compiled once per config: its base rates (old `input_per_mtok`/`output_per_mtok` read as
// `tokens.input`/`tokens.output`), the request fields it is billed by (dimensions, with their paths split) and
// its variants as conditions on those fields. choose-price.ts picks the price of one request from it.
import type { Model, PriceVariant } from '../types/generated/channels.js';
import { compilePath } from '../transform/usage-paths.js';

export type Scalar = string | number | boolean;
type Path = ReturnType<typeof compilePath>;

/** The price one request pays: a plain object, kept on a task's record so its settle uses what it was sold at. */
export interface ChosenPrice {
  /** Units per million tokens, by class (see token-classes.ts for the classes and their fallbacks). */
  tokens: Record<string, number>;
  /** Ascending by `above`: the whole request at the last tier its prompt is above. */
  tiers: { above: number; tokens: Record<string, number> }[];
  per_call: number;
  per_second: number;
  /** Seconds `per_call` covers before `per_second` counts. */
  included_seconds: number;
  tokens_per_second: number;
  /** Input tokens a second of uploaded media makes (a transcription's audio), for the reservation. */
  input_tokens_per_second: number;
  /** A factor on every rate (a priority tier billed at twice the standard rate). */
  multiply: number;
  /** The dimension values the request chose where they are not the defaults (the charge's explanation); absent when none. */
  chose?: Record<string, Scalar>;
}

export interface Dimension { name: string; at: string[]; paths: Path[]; values?: Scalar[]; default?: Scalar; present: boolean }

/** A variant's condition: on a dimension's chosen value, or (older form) on a body field's raw value. */
type Condition = { dimension: string; values: Scalar[] } | { field: Path; values: Scalar[] };

export interface CompiledPrice {
  model: string;
  base: ChosenPrice;
  dimensions: Dimension[];
  variants: { when: Condition[]; patch: Omit<PriceVariant, 'when'> }[];
  /** Each combination of chosen values is priced once (they come from finite lists, so this stays small). */
  chosen: Map<string, ChosenPrice>;
  /** Laid over the default price for requests run through the vendor's Batch API; absent: the model has no batch price. */
  batch?: Omit<PriceVariant, 'when'>;
}

/** Strings compare without case, and a number written as a string is that number: vendors take `1080P` for `1080p` and `"8"` for 8. */
export const normalize = (v: Scalar): Scalar => (typeof v !== 'string' ? v : /^-?[0-9]{1,15}(\.[0-9]{1,15})?$/.test(v) ? Number(v) : v.toLowerCase());

export function compilePrice(name: string, model: Model): CompiledPrice {
  const p = model.price;
  const tokens: Record<string, number> = { ...p.tokens };
  if (p.input_per_mtok !== undefined) tokens.input ??= p.input_per_mtok;
  if (p.output_per_mtok !== undefined) tokens.output ??= p.output_per_mtok;
  const base: ChosenPrice = {
    tokens, tiers: sortTiers(p.tiers), per_call: p.per_call ?? 0, per_second: p.per_second ?? 0, included_seconds: p.included_seconds ?? 0,
    tokens_per_second: p.tokens_per_second ?? 0, input_tokens_per_second: p.input_tokens_per_second ?? 0, multiply: 1,
  };
  const dimensions = Object.entries(p.dimensions ?? {}).map(([dim, d]): Dimension => ({
    name: dim, at: d.at, paths: d.at.map(compilePath), values: d.values?.map(normalize),
    default: d.default === undefined ? undefined : normalize(d.default), present: d.present === true,
  }));
  const variants = (p.variants ?? []).map(({ when, ...patch }) => ({ when: conditionsOf(when), patch }));
  return { model: name, base, dimensions, variants, chosen: new Map(), batch: p.batch };
}

function conditionsOf(when: PriceVariant['when']): Condition[] {
  if (typeof when.field === 'string' && Array.isArray(when.in)) return [{ field: compilePath(when.field), values: when.in as Scalar[] }];
  return Object.entries(when).map(([dimension, v]) => ({ dimension, values: (Array.isArray(v) ? v : [v]).map(normalize) }));
}

export const sortTiers = (tiers: { above: number; tokens: Record<string, number> }[] | undefined) =>
  [...(tiers ?? [])].sort((a, b) => a.above - b.above).map((t) => ({ above: t.above, tokens: { ...t.tokens } }));

/** A variant's fields over a price: token rates class by class, the rest replaced, surcharges added, factors multiplied. */
export function applyPatch(into: ChosenPrice, patch: Omit<PriceVariant, 'when'>): void {
  if (patch.tokens) into.tokens = { ...into.tokens, ...patch.tokens };
  if (patch.tiers) into.tiers = sortTiers(patch.tiers);
  if (patch.per_call !== undefined) into.per_call = patch.per_call;
  if (patch.per_second !== undefined) into.per_second = patch.per_second;
  if (patch.included_seconds !== undefined) into.included_seconds = patch.included_seconds;
  if (patch.tokens_per_second !== undefined) into.tokens_per_second = patch.tokens_per_second;
  if (patch.add?.per_call) into.per_call += patch.add.per_call;
  if (patch.add?.per_second) into.per_second += patch.add.per_second;
  if (patch.multiply !== undefined) into.multiply *= patch.multiply;
}
