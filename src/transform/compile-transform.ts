// JSONata transforms, compiled once at load. Each expression is compiled to synchronous JavaScript closures
// (src/transform/jsonata/) when it stays within the subset the compiler knows, else evaluated by jsonata itself; both
// keep the guardrails (time, depth, sequence size). An evaluation the compiled code cannot finish synchronously (a
// function answered a promise) or that fails is run again by jsonata, whose answer and error messages are the reference.
import jsonataModule from 'jsonata';
import { helperFunctions } from './helpers.js';
import { compileJsonata, GuardTrip, Unsupported, type Compiled } from './jsonata/compile-jsonata.js';
import type { Node } from './jsonata/ast.js';

type Jsonata = typeof import('jsonata');
const jsonata = jsonataModule as unknown as (expr: string, options?: { timeout?: number; stack?: number; sequence?: number }) => ReturnType<Jsonata>;

export interface Transform {
  readonly source: string;
  /** Whether the compiled evaluator runs it (else jsonata's), and if not, why. */
  readonly compiled: boolean;
  readonly fallbackReason?: string;
  run(input: unknown, bindings?: Record<string, unknown>): Promise<unknown>;
  /** The result at once where the compiled evaluator gives it, else a promise: no promise per call on the hot path. */
  evaluate(input: unknown, bindings?: Record<string, unknown>): unknown;
  /** The compiled evaluator alone (absent when jsonata runs it): throws where `evaluate` would hand over to jsonata. */
  readonly direct?: (input: unknown, bindings: Record<string, unknown>) => unknown;
  /** jsonata's own evaluation: the reference the compiled one is checked against. */
  reference(input: unknown, bindings?: Record<string, unknown>): Promise<unknown>;
}

/** `setting`: the config key that bounds an evaluation a guardrail stopped (for the operator's log). */
export class TransformError extends Error {
  constructor(message: string, readonly setting?: string) { super(message); }
}

// Deep enough for any sane mapping; a runaway recursion hits it long before the process stack.
const maxStack = 500;
// Nested lambda calls the compiled evaluator allows: about what jsonata's 500 evaluation levels allow (a few per call).
const maxCallDepth = 200;
// The longest sequence an expression may build: enough for any body, far from exhausting memory.
const maxSequence = 1_000_000;

// A reload compiles the same expressions again: a compiled transform holds no state between evaluations (each gets
// its own frame), so one is kept by its source and limits and handed to every runtime that has the same. Bounded: an
// operator editing the config over months never fills memory with old expressions.
const kept = new Map<string, Transform>();
const keptMax = 4096;

/** Throws a TransformError naming the position when the expression does not parse. `setting` names the time limit. */
export function compileTransform(source: string, timeoutMs: number, setting = 'dispatch.transform_timeout_ms'): Transform {
  const key = `${timeoutMs}\n${setting}\n${source}`;
  let t = kept.get(key);
  if (!t) {
    t = compileOnce(source, timeoutMs, setting);
    if (kept.size >= keptMax) kept.delete(kept.keys().next().value!);
    kept.set(key, t);
  }
  return t;
}

function compileOnce(source: string, timeoutMs: number, setting: string): Transform {
  let expr: ReturnType<Jsonata>;
  try {
    expr = jsonata(source, { timeout: timeoutMs, stack: maxStack, sequence: maxSequence });
  } catch (err) {
    const e = err as { message?: string; position?: number };
    throw new TransformError(`JSONata: ${e.message}${e.position !== undefined ? ` at character ${e.position}` : ''}`);
  }
  for (const [name, fn] of Object.entries(helperFunctions)) expr.registerFunction(name, fn.impl, fn.signature);
  const tripped = (code: string | undefined) => {
    if (code === 'D1012') return new TransformError(`JSONata: evaluation exceeded ${timeoutMs} ms`, setting);
    if (code === 'D1011') return new TransformError('JSONata: expression nested too deeply');
    return undefined;
  };
  const reference = async (input: unknown, bindings: Record<string, unknown> = {}) => {
    try {
      return await expr.evaluate(input, bindings);
    } catch (err) {
      // Guardrail trips (D1011 stack, D1012 time) become one error the callers already handle; D2014/D2015 stay jsonata's.
      throw tripped((err as { code?: string }).code) ?? err;
    }
  };
  let compiled: Compiled | undefined;
  let fallbackReason: string | undefined;
  try {
    compiled = compileJsonata(expr.ast() as Node, timeoutMs, maxCallDepth);
  } catch (err) {
    if (!(err instanceof Unsupported)) throw err;
    fallbackReason = err.message;
  }
  const evaluate = compiled
    ? (input: unknown, bindings: Record<string, unknown> = {}): unknown => {
      try {
        return compiled(input, bindings);
      } catch (err) {
        if (err instanceof GuardTrip) throw tripped(err.code);
        if (err instanceof RangeError && /call stack/.test(err.message)) throw tripped('D1011');
        return reference(input, bindings);
      }
    }
    : reference;
  return {
    source, compiled: compiled !== undefined, fallbackReason, evaluate, reference, direct: compiled,
    run: async (input, bindings) => evaluate(input, bindings),
  };
}

/** `f` of a value that may still be coming: at once when it is there, so a compiled chain makes no promise. */
export function after<T>(v: unknown, f: (v: unknown) => T): T | Promise<Awaited<T>> {
  return v instanceof Promise ? v.then(f) as Promise<Awaited<T>> : f(v);
}
