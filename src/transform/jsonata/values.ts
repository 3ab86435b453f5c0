// JSONata's value model, as its own evaluator (jsonata 2.x) has it: sequences are arrays flagged `sequence` (with
// `keepSingleton`, `cons` and `outerWrapper` refining how they flatten and unwrap), numbers must be finite, and
// equality is deep. The compiled evaluator reproduces these rules exactly; each function says which of jsonata's it
// mirrors.

export type Seq = unknown[] & { sequence?: boolean; keepSingleton?: boolean; cons?: boolean; outerWrapper?: boolean };

/** The longest sequence an expression may build (jsonata's `sequence` option). */
export const maxSequence = 1_000_000;

/** createSequence(): an empty sequence, or one holding `item` (even undefined, as jsonata's does). */
export function seq(...item: unknown[]): Seq {
  const s = item as Seq;
  s.sequence = true;
  return s;
}

export const isSequence = (v: unknown): v is Seq => Array.isArray(v) && (v as Seq).sequence === true;

/** A JSONata error: a code and the value it is about (the message is jsonata's, made when it reruns). */
export class JsonataError extends Error {
  constructor(readonly code: string, readonly value?: unknown) {
    super(code);
  }
}

/** isNumeric(): a number, not NaN; an infinite one is an error (D1001). */
export function isNumeric(n: unknown): n is number {
  if (typeof n !== 'number' || Number.isNaN(n)) return false;
  if (!Number.isFinite(n)) throw new JsonataError('D1001', n);
  return true;
}

export function isArrayOfNumbers(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const x of v) if (!isNumeric(x)) return false;
  return true;
}

/** Lambdas, built-in definitions and plain JavaScript functions. */
export function isFunction(v: unknown): boolean {
  return typeof v === 'function'
    || (v !== null && typeof v === 'object' && ((v as Record<string, unknown>)._jsonata_function === true || (v as Record<string, unknown>)._jsonata_lambda === true));
}

/** fn.boolean(): JSONata's effective boolean value (undefined stays undefined). */
export function toBoolean(v: unknown): boolean | undefined {
  if (v === undefined) return undefined;
  if (Array.isArray(v)) {
    if (v.length === 1) return toBoolean(v[0]);
    let any = false; // every item is looked at, as jsonata's filter() does (an infinite number throws wherever it is)
    for (const x of v) if (toBoolean(x)) any = true;
    return any;
  }
  if (typeof v === 'string') return v.length > 0;
  if (isNumeric(v)) return v !== 0;
  if (v !== null && typeof v === 'object' && !isFunction(v)) return Object.keys(v).length > 0;
  return v === true;
}

/** isDeepEqual(). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  const ak = Object.getOwnPropertyNames(a).sort();
  const bk = Object.getOwnPropertyNames(b).sort();
  if (ak.length !== bk.length) return false;
  for (let i = 0; i < ak.length; i++) if (ak[i] !== bk[i]) return false;
  for (const k of ak) if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

/** fn.lookup(): a field of an object, or of every item of an array (flattened one level). */
export function lookup(input: unknown, key: string): unknown {
  if (Array.isArray(input)) {
    const out = seq();
    for (let i = 0; i < input.length; i++) {
      const r = lookup(input[i], key);
      if (r === undefined) continue;
      if (Array.isArray(r)) for (let j = 0; j < r.length; j++) out.push(r[j]);
      else out.push(r);
    }
    return out;
  }
  if (input !== null && typeof input === 'object' && Object.prototype.hasOwnProperty.call(input, key) && !isFunction(input)) {
    return (input as Record<string, unknown>)[key];
  }
  return undefined;
}

/** fn.append(), with the sequence size limit. */
export function append(a: unknown, b: unknown): unknown {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const left = Array.isArray(a) ? a : seq(a);
  const right = Array.isArray(b) ? b : [b];
  checkSize(left.length + right.length);
  return left.concat(right);
}

export function checkSize(n: number): void {
  if (n > maxSequence) throw new JsonataError('D2015', n);
}

/** What evaluate() does to every result: an empty sequence is nothing, a singleton its item (unless kept). */
export function normalize(r: unknown, keepArray: boolean): unknown {
  if (!Array.isArray(r) || (r as Seq).sequence !== true) return r;
  const s = r as Seq & { tupleStream?: boolean };
  if (s.tupleStream) return s;
  if (keepArray) s.keepSingleton = true;
  if (s.length === 0) return undefined;
  if (s.length === 1) return s.keepSingleton ? s : s[0];
  return s;
}

/** A call in a lambda's tail position, made by the lambda's caller (jsonata's thunk and trampoline). */
export class TailCall {
  constructor(readonly proc: unknown, readonly args: unknown[]) {}
}

/**
 * Thrown where the compiled evaluator cannot go on synchronously (a function answered a promise, a lambda of jsonata's
 * own was called): the evaluation is run again by jsonata.
 */
export class NeedsAsync extends Error {}

/** A guardrail trip (time or depth): final, never run again. */
export class GuardTrip extends Error {
  constructor(readonly code: 'D1011' | 'D1012') {
    super(code);
  }
}

/**
 * A field of an object made by a constructor or a built-in. jsonata makes such objects without a prototype; these
 * have Object's (V8 keeps them in fast mode, cheaper to fill, read and serialize), so a `__proto__` key is defined, not
 * assigned, and stays a key as in jsonata's.
 */
export function setField(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}
