// Reads a JSONata expression of an earlier release that only picked a body field (`n ? $number(n) : 1`,
// `seconds ? seconds : duration`) as the list of fields it tried and the number it fell back to, so a config that
// used one can be read as today's `price_inputs`. Anything that computes (arithmetic, other functions) has no such
// reading: undefined.
import jsonataModule from 'jsonata';

type Jsonata = typeof import('jsonata');
const jsonata = jsonataModule as unknown as (expr: string) => ReturnType<Jsonata>;

interface Node { type: string; value?: unknown; steps?: Node[]; condition?: Node; then?: Node; else?: Node; procedure?: Node; arguments?: Node[] }

export interface FieldChain { fields: string[]; fallback?: number }

const conversions = new Set(['number', 'string']);

export function fieldChain(source: string): FieldChain | undefined {
  let ast: Node;
  try { ast = jsonata(source).ast() as Node; } catch { return undefined; }
  return chain(ast);
}

function chain(n: Node): FieldChain | undefined {
  const field = fieldOf(n);
  if (field) return { fields: [field] };
  if (n.type === 'number' && typeof n.value === 'number') return { fields: [], fallback: n.value };
  // $number(a ? a : b): the conversion of a whole chain.
  const inner = converted(n);
  if (inner && inner.type !== 'path') return chain(inner);
  if (n.type !== 'condition' || !n.condition || !n.then) return undefined;
  const tested = fieldOf(n.condition);
  if (!tested || fieldOf(n.then) !== tested) return undefined;
  if (!n.else) return { fields: [tested] };
  const rest = chain(n.else);
  return rest && { fields: [tested, ...rest.fields], fallback: rest.fallback };
}

/** `a.b` or `$number(a.b)`: the dotted field, else undefined. */
function fieldOf(n: Node): string | undefined {
  const target = converted(n) ?? n;
  if (target.type !== 'path' || !target.steps?.length) return undefined;
  if (!target.steps.every((s) => s.type === 'name' && typeof s.value === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(s.value))) return undefined;
  return target.steps.map((s) => s.value as string).join('.');
}

/** The argument of `$number(x)` or `$string(x)`. */
function converted(n: Node): Node | undefined {
  if (n.type !== 'function' || n.procedure?.type !== 'variable' || !conversions.has(String(n.procedure.value))) return undefined;
  return n.arguments?.length === 1 ? n.arguments[0] : undefined;
}
