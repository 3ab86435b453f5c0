// Numbers read from a request body by field path, strictly: what a price may depend on.

/** A JSON integer, or a string of decimal digits without sign, space, point or exponent; anything else is undefined. */
export function wholeNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v === 'string' && /^[0-9]{1,15}$/.test(v)) return Number(v);
  return undefined;
}

/** The value at a field path of a JSON body (undefined where the path leaves objects). */
export function valueAt(body: Record<string, unknown>, path: string[]): unknown {
  let v: unknown = body;
  for (const key of path) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}
