// A JSON Schema read off sample values: for answers that a route's JSONata makes (its family's error shape, a token
// count), whose shape lives in the config rather than in a schema file. Lax by design: a key is required only when
// every sample has it, a value fixed only when every sample agrees, and other keys stay allowed.
type Schema = Record<string, unknown>;

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;

/** The schema every sample satisfies; `samples` must hold at least two values for anything to be fixed (`const`). */
export function inferSchema(samples: unknown[]): Schema {
  const types = [...new Set(samples.map(typeOf))];
  // An integer in one sample and a fraction in another is a number.
  const merged = types.includes('number') ? types.filter((t) => t !== 'integer') : types;
  const out: Schema = { type: merged.length === 1 ? merged[0] : merged.sort() };
  const strings = samples.filter((v): v is string => typeof v === 'string');
  if (samples.length > 1 && merged.length === 1 && merged[0] === 'string' && new Set(strings).size === 1) out.const = strings[0];
  const objects = samples.filter((v): v is Record<string, unknown> => typeOf(v) === 'object');
  if (objects.length) Object.assign(out, objectSchema(objects));
  const arrays = samples.filter(Array.isArray);
  const items = arrays.flat();
  if (items.length) out.items = inferSchema(items);
  return out;
}

function objectSchema(objects: Record<string, unknown>[]): Schema {
  const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))];
  const properties = Object.fromEntries(keys.map((k) => [k, inferSchema(objects.filter((o) => k in o).map((o) => o[k]))]));
  const required = keys.filter((k) => objects.every((o) => k in o));
  return { properties, ...(required.length ? { required } : {}) };
}
