// JSONata transforms: compiled once at load, evaluated with jsonata's own guardrails (time, stack depth, sequence size).
import jsonataModule from 'jsonata';
import { helperFunctions } from './helpers.js';

type Jsonata = typeof import('jsonata');
const jsonata = jsonataModule as unknown as (expr: string, options?: { timeout?: number; stack?: number; sequence?: number }) => ReturnType<Jsonata>;

export interface Transform {
  readonly source: string;
  run(input: unknown, bindings?: Record<string, unknown>): Promise<unknown>;
}

/** `setting`: the config key that bounds an evaluation a guardrail stopped (for the operator's log). */
export class TransformError extends Error {
  constructor(message: string, readonly setting?: string) { super(message); }
}

// Deep enough for any sane mapping; a runaway recursion hits it long before the process stack.
const maxStack = 500;
// The longest sequence an expression may build: enough for any body, far from exhausting memory.
const maxSequence = 1_000_000;

/** Throws a TransformError naming the position when the expression does not parse. `setting` names the time limit. */
export function compileTransform(source: string, timeoutMs: number, setting = 'dispatch.transform_timeout_ms'): Transform {
  let expr: ReturnType<Jsonata>;
  try {
    expr = jsonata(source, { timeout: timeoutMs, stack: maxStack, sequence: maxSequence });
  } catch (err) {
    const e = err as { message?: string; position?: number };
    throw new TransformError(`JSONata: ${e.message}${e.position !== undefined ? ` at character ${e.position}` : ''}`);
  }
  for (const [name, fn] of Object.entries(helperFunctions)) expr.registerFunction(name, fn.impl, fn.signature);
  return {
    source,
    async run(input, bindings = {}) {
      try {
        return await expr.evaluate(input, bindings);
      } catch (err) {
        const e = err as { code?: string; message?: string };
        // Guardrail trips (D1011 stack, D1012 time, D2014/D2015 size) become one error the callers already handle.
        if (e.code === 'D1012') throw new TransformError(`JSONata: evaluation exceeded ${timeoutMs} ms`, setting);
        if (e.code === 'D1011') throw new TransformError('JSONata: expression nested too deeply');
        throw err;
      }
    },
  };
}
