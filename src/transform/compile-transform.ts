// JSONata transforms: compiled once at load, evaluated with a time and depth limit.
import jsonataModule from 'jsonata';
import { helperFunctions } from './helpers.js';

type Jsonata = typeof import('jsonata');
const jsonata = jsonataModule as unknown as Jsonata;

export interface Transform {
  readonly source: string;
  run(input: unknown, bindings?: Record<string, unknown>): Promise<unknown>;
}

export class TransformError extends Error {}

const maxDepth = 500;

/** Throws a TransformError naming the position when the expression does not parse. */
export function compileTransform(source: string, timeoutMs: number): Transform {
  let expr: ReturnType<Jsonata>;
  try {
    expr = jsonata(source);
  } catch (err) {
    const e = err as { message?: string; position?: number };
    throw new TransformError(`JSONata: ${e.message}${e.position !== undefined ? ` at character ${e.position}` : ''}`);
  }
  for (const [name, fn] of Object.entries(helperFunctions)) expr.registerFunction(name, fn.impl, fn.signature);
  return {
    source,
    async run(input, bindings = {}) {
      // Hooks live in the per-evaluation bindings so concurrent evaluations keep separate clocks.
      const started = Date.now();
      let depth = 0;
      const guard = () => {
        if (depth > maxDepth) throw new TransformError('JSONata: expression nested too deeply');
        if (Date.now() - started > timeoutMs) throw new TransformError(`JSONata: evaluation exceeded ${timeoutMs} ms`);
      };
      const hooks = {
        __evaluate_entry: (_e: unknown, _i: unknown, env: { isParallelCall?: boolean }) => { if (!env?.isParallelCall) { depth++; guard(); } },
        __evaluate_exit: (_e: unknown, _i: unknown, env: { isParallelCall?: boolean }) => { if (!env?.isParallelCall) { depth--; guard(); } },
      };
      return expr.evaluate(input, { ...bindings, ...hooks });
    },
  };
}
