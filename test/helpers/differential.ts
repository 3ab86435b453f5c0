// Both evaluators of a transform on one input: the compiled one alone (`direct`, no jsonata behind it) and jsonata's
// (`reference`). Their outcomes are compared as JSON: the same value, or both an error (with the same code where both
// have one). A compiled evaluation that hands over to jsonata (a function answered a promise) is reported as such.
import type { Transform } from '../../src/transform/compile-transform.js';
import { NeedsAsync } from '../../src/transform/jsonata/values.js';
import { StreamTransformer, type CompiledStream, type StreamEvent } from '../../src/transform/stream-transform.js';

export type Outcome = { value: unknown } | { error: string } | { handedOver: true };

/**
 * As JSON, a function (a lambda, a built-in) as "<function>": jsonata answers its own lambda objects, the compiled
 * evaluator JavaScript functions, and neither is data a transform's caller can use.
 */
const asFunction = (v: unknown) => typeof v === 'function' || (v !== null && typeof v === 'object' && ((v as Record<string, unknown>)._jsonata_lambda === true || (v as Record<string, unknown>)._jsonata_function === true));
export const normalise = (v: unknown): unknown => (v === undefined ? null : JSON.parse(JSON.stringify(v, (_k, x) => (asFunction(x) ? '<function>' : x)) ?? 'null'));

const codeOf = (e: unknown) => String((e as { code?: unknown })?.code ?? (e as Error)?.name ?? 'error');

export async function outcome(f: () => unknown): Promise<Outcome> {
  try {
    return { value: normalise(await f()) };
  } catch (e) {
    if (e instanceof NeedsAsync) return { handedOver: true };
    return { error: codeOf(e) };
  }
}

/**
 * Undefined when both agree, else what differs. `codes`: errors must have the same code too (not where jsonata
 * evaluates constructor items concurrently and the first to fail wins; the gateway reports jsonata's error anyway).
 */
export function difference(compiled: Outcome, reference: Outcome, codes = true): string | undefined {
  if ('handedOver' in compiled) return undefined;
  if ('value' in compiled && 'value' in reference) {
    return JSON.stringify(compiled.value) === JSON.stringify(reference.value) ? undefined : `compiled ${JSON.stringify(compiled.value)} ≠ jsonata ${JSON.stringify(reference.value)}`;
  }
  if ('error' in compiled && 'error' in reference) {
    const known = (c: string) => /^[A-Z]\d{4}$/.test(c);
    return !codes || !known(compiled.error) || !known(reference.error) || compiled.error === reference.error ? undefined : `compiled error ${compiled.error} ≠ jsonata error ${reference.error}`;
  }
  return `compiled ${JSON.stringify(compiled)} ≠ jsonata ${JSON.stringify(reference)}`;
}

export async function compare(t: Transform, input: unknown, bindings: Record<string, unknown>, codes = true): Promise<{ diff?: string; handedOver: boolean; compiled: boolean }> {
  if (!t.direct) return { handedOver: false, compiled: false };
  const c = await outcome(() => t.direct!(input, bindings));
  const r = await outcome(() => t.reference(input, bindings));
  return { diff: difference(c, r, codes), handedOver: 'handedOver' in c, compiled: true };
}

/** A stream spec whose hooks all run on one evaluator. */
function streamWith(s: CompiledStream, engine: 'direct' | 'reference'): CompiledStream {
  const pick = (t?: Transform): Transform | undefined => {
    if (!t) return undefined;
    if (engine === 'reference') return { ...t, compiled: false, evaluate: t.reference };
    if (!t.direct) throw new Error(`not compiled: ${t.fallbackReason}`);
    return { ...t, evaluate: t.direct };
  };
  return { ...s, functions: pick(s.functions), init: pick(s.init), event: pick(s.event)!, end: pick(s.end), error: pick(s.error) };
}

export interface StreamCase { bindings: Record<string, unknown>; input: StreamEvent[]; fail?: { message: string; code: string } }

async function runStream(spec: CompiledStream, fx: StreamCase): Promise<unknown> {
  const t = new StreamTransformer(spec, fx.bindings);
  let events: StreamEvent[] = [];
  for (const e of fx.input) events = events.concat(await t.push(e.data, e.event));
  events = events.concat(fx.fail ? await t.fail(fx.fail.message, fx.fail.code) : await t.end());
  return { events, result: t.result };
}

export async function compareStream(spec: CompiledStream, fx: StreamCase): Promise<string | undefined> {
  const c = await outcome(() => runStream(streamWith(spec, 'direct'), fx));
  const r = await outcome(() => runStream(streamWith(spec, 'reference'), fx));
  return difference(c, r);
}
