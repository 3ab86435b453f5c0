// The price of one request: the value of each field the vendor bills by, read from the body and checked before
// anything is reserved, then every variant those values select. A value the price does not list would be billed by
// the vendor at a price the gateway does not know, so it is refused (400 naming the field), never served at the
// default price; two paths saying different things are refused too (the vendor would get one of them).
import { GatewayError, clip } from '../http/errors.js';
import { walk } from '../transform/usage-paths.js';
import { applyPatch, normalize, type ChosenPrice, type CompiledPrice, type Dimension, type Scalar } from './price-rules.js';

export function choosePrice(cp: CompiledPrice, body: Record<string, unknown>): ChosenPrice {
  if (!cp.dimensions.length && !cp.variants.length) return cp.base;
  const values: Scalar[] = [];
  let key = '';
  for (const d of cp.dimensions) {
    const v = valueOf(cp.model, d, body);
    values.push(v);
    key += `${typeof v === 'string' ? 's' : 'n'}${String(v)}\u0000`;
  }
  // Older `{ field, in }` conditions read the body itself: whether each matches is part of the key.
  const fieldHits = cp.variants.map((v) => v.when.every((c) => !('field' in c) || c.values.some((x) => x === walk(body, c.field))));
  for (const hit of fieldHits) key += hit ? '1' : '0';
  let chosen = cp.chosen.get(key);
  if (!chosen) {
    chosen = build(cp, values, fieldHits);
    cp.chosen.set(key, chosen);
  }
  return chosen;
}

function build(cp: CompiledPrice, values: Scalar[], fieldHits: boolean[]): ChosenPrice {
  const byName = new Map(cp.dimensions.map((d, i) => [d.name, values[i]]));
  const out: ChosenPrice = { ...cp.base, tokens: { ...cp.base.tokens }, tiers: cp.base.tiers };
  cp.variants.forEach((v, i) => {
    const hit = fieldHits[i] && v.when.every((c) => !('dimension' in c) || c.values.includes(byName.get(c.dimension)!));
    if (hit) applyPatch(out, v.patch);
  });
  // The options that are not the vendor's defaults: what the request chose (a default request chose nothing).
  const chose = cp.dimensions.filter((d) => byName.get(d.name) !== (d.present ? false : d.default));
  if (chose.length) out.chose = Object.fromEntries(chose.map((d) => [d.name, byName.get(d.name)!]));
  return Object.freeze(out);
}

/** The dimension's value in this body: the one its present paths agree on, else its default. */
function valueOf(model: string, d: Dimension, body: Record<string, unknown>): Scalar {
  let seen: { path: string; raw: unknown; value: Scalar } | undefined;
  for (let i = 0; i < d.paths.length; i++) {
    const raw = walk(body, d.paths[i]);
    if (raw === undefined || raw === null) continue;
    if (d.present) return true;
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
      throw new GatewayError('invalid_request', `\`${d.at[i]}\` must be one of ${list(d)} for model ${clip(model)}`);
    }
    const value = normalize(raw);
    if (seen && seen.value !== value) {
      throw new GatewayError('invalid_request', `\`${seen.path}\` (${show(seen.raw)}) and \`${d.at[i]}\` (${show(raw)}) disagree: name it once`);
    }
    seen ??= { path: d.at[i], raw, value };
  }
  if (d.present) return false;
  if (!seen) return d.default!;
  if (!d.values!.includes(seen.value)) {
    throw new GatewayError('invalid_request', `\`${seen.path}\` ${show(seen.raw)} is not offered for model ${clip(model)} (its prices cover ${list(d)})`);
  }
  return seen.value;
}

const show = (v: unknown) => clip(JSON.stringify(v), 40);
const list = (d: Dimension) => d.values!.map((v) => JSON.stringify(v)).join(', ');
