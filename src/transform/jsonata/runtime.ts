// The running evaluation's guardrails and variable frames. Compiled code runs synchronously, so the evaluation under
// way is a module-level slot: a lambda made by one evaluation and called in another (a stream's $fn helpers) runs
// under the caller's time and depth limits.
import { GuardTrip } from './values.js';

export interface Guard { deadline: number; depth: number; ticks: number; readonly maxDepth: number }

/** One evaluation's own: its bindings ($variables) and its input ($$). */
export interface Exec { readonly bindings: Record<string, unknown>; readonly root: unknown }

/** A frame of variables (a block's, a lambda call's, the evaluation's own): slots numbered at compile time. */
export interface Env { readonly v: unknown[]; readonly p: Env | undefined; readonly x: Exec }

/** A slot whose variable has not been bound (yet): lookups go on to the enclosing frames, as jsonata's do. */
export const unbound: unique symbol = Symbol('unbound');

export const rt: { guard: Guard | undefined } = { guard: undefined };

/** The clock is read every this many steps: often enough to stop within the limit, rarely enough to cost nothing. */
const clockEvery = 64;

export function tick(): void {
  const g = rt.guard;
  if (g && (++g.ticks & (clockEvery - 1)) === 0 && performance.now() > g.deadline) throw new GuardTrip('D1012');
}

/** Runs `f` under a fresh guard when no evaluation is under way (or always, with `own`), restoring the previous one. */
export function guarded<T>(limitMs: number, maxDepth: number, own: boolean, f: () => T): T {
  const outer = rt.guard;
  if (outer && !own) return f();
  rt.guard = { deadline: performance.now() + limitMs, depth: 0, ticks: 0, maxDepth };
  try {
    return f();
  } finally {
    rt.guard = outer;
  }
}

export function frame(parent: Env, size: number): Env {
  const v = new Array<unknown>(size);
  for (let i = 0; i < size; i++) v[i] = unbound;
  return { v, p: parent, x: parent.x };
}
