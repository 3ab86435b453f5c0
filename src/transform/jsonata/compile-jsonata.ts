// Entry point of the compiled evaluator: a parsed JSONata expression (jsonata's `ast()`) as a synchronous function
// of (input, bindings), with jsonata's guardrails: a time limit (the clock read every few dozen steps), a depth limit
// on nested lambda calls, and the sequence size limit.
import type { Node } from './ast.js';
import { NodeCompiler } from './compile-node.js';
import { guarded, unbound, type Env } from './runtime.js';
import { seq, isSequence } from './values.js';

export type Compiled = (input: unknown, bindings: Record<string, unknown>) => unknown;

/** Throws Unsupported when the expression uses something the compiler leaves to jsonata. */
export function compileJsonata(ast: Node, limitMs: number, maxDepth: number): Compiled {
  const c = new NodeCompiler(ast, { limitMs, maxDepth });
  const body = c.compile(ast);
  const size = c.rootSize;
  return (input, bindings) => {
    // As jsonata's evaluate(): a JSON array input is wrapped so that it is taken as one value.
    let context: unknown = input;
    if (Array.isArray(input) && !isSequence(input)) {
      const s = seq(input);
      s.outerWrapper = true;
      context = s;
    }
    const v = new Array<unknown>(size);
    for (let i = 0; i < size; i++) v[i] = unbound;
    const env: Env = { v, p: undefined, x: { bindings, root: input } };
    return guarded(limitMs, maxDepth, true, () => body(context, env));
  };
}

export { Unsupported } from './ast.js';
export { GuardTrip, NeedsAsync } from './values.js';
