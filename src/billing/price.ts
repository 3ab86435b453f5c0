// Turns usage into quota units with the request's price, line by line, and what a request may cost before it is
// sent. One formula for every route: per call × units, per second × seconds, each token class × its rate (at the
// tier the prompt falls in), all times the price's factor; the total is rounded up to a whole unit.
import type { Usage } from '../transform/usage.js';
import { maxOutputTokens, secondsToCharge, type PriceInputs } from './price-inputs.js';
import type { Model } from '../types/generated/channels.js';
import type { ChosenPrice, Scalar } from './price-rules.js';
import { fallbackOf, isInputClass, tokenClasses, type TokenCounts } from './token-classes.js';

/** One line of a charge: a token class, `second` or `call`, how many, the rate (per million for tokens), what it cost. */
export interface ChargeLine { item: string; quantity: number; rate: number; units: number }

export interface Charge {
  /** Whole units: what is taken (before the settle's cap at the reservation). */
  total: number;
  lines: ChargeLine[];
  /** The prompt-size tier the request was charged at (its `above`), when one applied. */
  tier?: number;
  /** The usage's tokens by class (token-classes.ts), when it had usage. */
  classes?: TokenCounts;
  /** The options of the request that moved the price from its defaults (`{ service_tier: "priority" }`), if any. */
  chose?: Record<string, Scalar>;
}

/** Priced by tokens: the charge follows the upstream's reported usage, not the request's shape. */
export const tokenPriced = (c: ChosenPrice) => Object.keys(c.tokens).length > 0;

/** The token rates at a prompt size: the base, with the last tier the prompt is above laid over it. */
function ratesAt(c: ChosenPrice, prompt: number): { rates: Record<string, number>; tier?: number } {
  let tier: ChosenPrice['tiers'][number] | undefined;
  for (const t of c.tiers) if (prompt > t.above) tier = t;
  return tier ? { rates: overlaid(c.tokens, tier.tokens), tier: tier.above } : { rates: c.tokens };
}

/** A tier's rates over a base, made once per pair: prices are fixed objects, asked again on every request. */
const overlays = new WeakMap<object, WeakMap<object, Record<string, number>>>();
function overlaid(base: Record<string, number>, top: Record<string, number>): Record<string, number> {
  let byTop = overlays.get(base);
  if (!byTop) overlays.set(base, (byTop = new WeakMap()));
  let rates = byTop.get(top);
  if (!rates) byTop.set(top, (rates = { ...base, ...top }));
  return rates;
}

/** A class's rate, or the rate of the class it falls back to; 0 when the price names none of them. */
export function rateOf(rates: Record<string, number>, name: string): number {
  for (let n: string | undefined = name; n; n = fallbackOf(n, rates)) if (rates[n] !== undefined) return rates[n];
  return 0;
}

/**
 * `quantity` of the media priced per second or per call; tokens come from the usage, and so do the units and seconds
 * where the vendor reports what it billed (search units, seconds of audio).
 */
export function chargeOf(c: ChosenPrice, usage: Usage | undefined, media: { units: number; seconds?: number }): Charge {
  const lines: ChargeLine[] = [];
  const line = (item: string, quantity: number, rate: number, per: number) => {
    if (quantity > 0 && rate > 0) lines.push({ item, quantity, rate: rate * c.multiply, units: (quantity * rate * c.multiply) / per });
  };
  line('call', usage?.units ?? media.units, c.per_call, 1);
  if (c.per_second) line('second', Math.max(0, (usage?.seconds ?? media.seconds ?? 0) - (c.included_seconds ?? 0)), c.per_second, 1);
  if (!usage) return { total: wholeUnits(sum(lines)), lines, chose: c.chose };
  const at = ratesAt(c, usage.prompt_tokens);
  const classes = tokenClasses(usage);
  for (const name in classes) line(name, classes[name], rateOf(at.rates, name), 1e6);
  return { total: wholeUnits(sum(lines)), lines, classes, tier: at.tier, chose: c.chose };
}

const sum = (lines: ChargeLine[]) => {
  let s = 0;
  for (const l of lines) s += l.units;
  return s;
};

/** Rounded up, but a sum that is whole save for float error (3 + 27 + 37.5 + 7.5) stays whole. */
export const wholeUnits = (x: number) => Math.max(0, Math.ceil(x - 1e-9));

/** The dearest rate on one side at a prompt size: what an unknown mix of that side's tokens may cost at most. */
export function dearest(c: ChosenPrice, prompt: number, input: boolean): number {
  const { rates } = ratesAt(c, prompt);
  let d = dearestOf.get(rates);
  if (!d) dearestOf.set(rates, (d = sides(rates)));
  return input ? d.input : d.output;
}

const dearestOf = new WeakMap<object, { input: number; output: number }>();
function sides(rates: Record<string, number>): { input: number; output: number } {
  const d = { input: rateOf(rates, 'input'), output: rateOf(rates, 'output') };
  for (const [name, r] of Object.entries(rates)) {
    const side = isInputClass(name) ? 'input' : 'output';
    if (r > d[side]) d[side] = r;
  }
  return d;
}

/** What the model is priced per besides tokens, for usage reports: seconds of media, else calls × units; 0 for token prices. */
export function billedUnits(c: ChosenPrice, model: Model, inputs: PriceInputs): number {
  if (c.per_second) return secondsToCharge(model, inputs);
  return c.per_call && !tokenPriced(c) ? inputs.units : 0;
}

/**
 * What a request may cost: per call × units, per second × seconds (the model's default when none is named), and for
 * token prices the prompt (body bytes ÷ `bytesPerToken`) at its side's dearest rate plus the completion limit for
 * every choice at its side's dearest rate; media billed by tokens reserve its tokens per second for the seconds
 * asked. Every cheaper class (a cache read) can only lower the charge. The prompt part is an estimate, not a bound:
 * a settle is capped at this reservation instead.
 */
export function reservationFor(c: ChosenPrice, model: Model, inputs: PriceInputs, bodyBytes: number, bytesPerToken: number): { amount: number; promptTokens: number } {
  const seconds = c.per_second || c.tokens_per_second ? secondsToCharge(model, inputs) : 0;
  let units = c.per_call * inputs.units + c.per_second * Math.max(0, seconds - (c.included_seconds ?? 0));
  let promptTokens = 0;
  if (c.tokens_per_second) {
    units += (seconds * c.tokens_per_second * dearest(c, 0, false)) / 1e6;
  } else if (tokenPriced(c)) {
    // An upload's audio (a transcription's) is tokens at the vendor's rate per second, beside the body's text.
    const media = c.input_tokens_per_second && inputs.seconds ? Math.ceil(inputs.seconds * c.input_tokens_per_second) : 0;
    promptTokens = Math.ceil(bodyBytes / bytesPerToken) + media;
    const completion = (inputs.completionTokens ?? maxOutputTokens(model)) * inputs.choices;
    units += (promptTokens * dearest(c, promptTokens, true) + completion * dearest(c, promptTokens, false)) / 1e6;
  }
  return { amount: wholeUnits(units * c.multiply), promptTokens };
}
