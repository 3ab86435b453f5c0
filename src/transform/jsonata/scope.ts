// Static scopes of a JSONata expression: which frames (the evaluation's own, each block, each lambda call) bind which
// variables, so a variable compiles to a walk up a known number of frames and a slot, not a lookup by name. A frame
// binds a name only once its `:=` has run: until then the lookup goes on outward, as jsonata's does.
import type { Node } from './ast.js';

export interface Scope {
  readonly names: Map<string, number>;
  readonly parent: Scope | undefined;
  /** Whether evaluation makes a frame for it (a block that binds nothing shares its parent's). */
  readonly lambda: boolean;
}

export const materialized = (s: Scope) => s.lambda || s.parent === undefined || s.names.size > 0;

/** Scopes of every block and lambda node, with their names (lambda parameters first, in order). */
export function analyseScopes(root: Node): { root: Scope; of: Map<Node, Scope> } {
  const of = new Map<Node, Scope>();
  const top: Scope = { names: new Map(), parent: undefined, lambda: false };
  const visit = (n: unknown, s: Scope): void => {
    if (!n || typeof n !== 'object') return;
    if (Array.isArray(n)) { for (const x of n) visit(x, s); return; }
    const node = n as Node;
    let inner = s;
    if (node.type === 'block' || (node.type === 'lambda' && !node.thunk)) {
      inner = { names: new Map(), parent: s, lambda: node.type === 'lambda' };
      of.set(node, inner);
      if (node.type === 'lambda') for (const a of node.arguments ?? []) inner.names.set(a.value as string, inner.names.size);
    }
    if (node.type === 'bind' && !s.names.has(node.lhs!.value as string)) s.names.set(node.lhs!.value as string, s.names.size);
    for (const [k, v] of Object.entries(node)) if (k !== 'signature' && k !== 'arguments' || node.type !== 'lambda') visit(v, inner);
  };
  visit(root, top);
  return { root: top, of };
}

export interface Resolved { hops: number; slot: number }

/** The frames that may hold `name`, innermost first, as hops up the frame chain from scope `s`. */
export function resolve(s: Scope, name: string): Resolved[] {
  const out: Resolved[] = [];
  let hops = 0;
  for (let at: Scope | undefined = s; at; at = at.parent) {
    const slot = at.names.get(name);
    if (slot !== undefined) out.push({ hops, slot });
    if (materialized(at)) hops++;
  }
  return out;
}
