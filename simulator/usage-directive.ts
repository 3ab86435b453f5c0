// The `usage=B64` directive, shared by every chat-like simulator: base64url of a JSON object deep-merged over the usage
// the simulator would report, in the vendor's own shape. The gateway bills what the vendor reports, so a test must be
// able to make a vendor report cached reads, cache writes, reasoning or audio tokens the word counter never produces.
import { type Directives, b64JsonDirective } from './directives.js';

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The directive's object, or undefined when absent or not base64url JSON of an object. */
export function usageDirective(d: Directives): Obj | undefined {
  return b64JsonDirective(d, 'usage');
}

/** Objects merge key by key; arrays, scalars and null replace (a directive's `promptTokensDetails` is the whole list). */
export function deepMerge<T extends Obj>(base: T, over: Obj | undefined): T {
  if (!over) return base;
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObject(v) && isObject(out[k]) ? deepMerge(out[k] as Obj, v) : v;
  return out as T;
}

/**
 * `base` with the directive merged in, its `total` field recomputed as the sum of `parts` (vendors report a total that
 * adds up) unless the directive set the total itself, which lets a test fake a vendor whose figures disagree.
 */
export function overriddenUsage<T extends Obj>(base: T, over: Obj | undefined, total?: { key: string; parts: string[] }): T {
  const merged: Obj = deepMerge(base, over);
  if (!over || !total || total.key in over) return merged as T;
  const sum = total.parts.reduce((n, k) => n + (typeof merged[k] === 'number' ? (merged[k] as number) : 0), 0);
  return { ...merged, [total.key]: sum } as T;
}
