// Paths, their steps and filters, and object constructors (grouping): evaluatePath(), evaluateStep(),
// evaluateFilter() and evaluateGroupExpression() of jsonata, compiled.
import { Unsupported, type Node } from './ast.js';
import { tick, type Env } from './runtime.js';
import { JsonataError, append, checkSize, isArrayOfNumbers, isNumeric, isSequence, seq, setField, toBoolean, type Seq } from './values.js';

export type Ev = (input: unknown, env: Env) => unknown;
type Compile = (n: Node) => Ev;

/** A filter (`[...]`) applied to a value: an index, or a predicate per item. */
export function compileFilter(pred: Node, compile: Compile): (input: unknown, env: Env) => Seq {
  if (pred.type === 'number') {
    const at = Math.floor(pred.value as number);
    return (input) => {
      const items = Array.isArray(input) ? input : seq(input);
      const item = items[at < 0 ? items.length + at : at];
      if (item === undefined) return seq();
      return Array.isArray(item) ? item : seq(item);
    };
  }
  const test = compile(pred);
  return (input, env) => {
    const items = Array.isArray(input) ? input : seq(input);
    const out = seq();
    for (let i = 0; i < items.length; i++) {
      tick();
      let r = test(items[i], env);
      if (isNumeric(r)) r = [r];
      if (isArrayOfNumbers(r)) {
        for (const n of r as number[]) {
          const k = Math.floor(n);
          if ((k < 0 ? items.length + k : k) === i) out.push(items[i]);
        }
      } else if (toBoolean(r)) out.push(items[i]);
    }
    return out;
  };
}

export function compilePath(node: Node, compile: Compile, compileGroup: (g: { lhs: [Node, Node][] }) => Ev): Ev {
  if (node.tuple) throw new Unsupported('tuple stream');
  const steps = node.steps!;
  const relative = steps[0].type !== 'variable';
  const last = steps.length - 1;
  const compiled = steps.map((s, i) => {
    if (s.tuple || s.focus !== undefined || s.index !== undefined || s.ancestor !== undefined || s.type === 'sort') throw new Unsupported('tuple step');
    if (i === 0 && s.consarray) return { whole: compile(s) };
    const filters = (s.stages ?? []).map((st) => {
      if (st.type !== 'filter') throw new Unsupported('index stage');
      return compileFilter(st.expr, compile);
    });
    return { each: compile(s), filters, last: i === last };
  });
  const group = node.group ? compileGroup(node.group) : undefined;
  const keep = node.keepSingletonArray === true;
  // Nothing reads the path's result as a sequence: a single value may stand for the sequence of that one value.
  const bare = !keep && !group && !node.keepArray && !node.predicate;
  return (input, env) => {
    // One value at a time while the path yields one (the usual `$s.msg.id`), without a sequence per step; a step
    // that yields several switches to sequences, as evaluateStep() makes them.
    let items: unknown[] | undefined = relative && Array.isArray(input) ? input : undefined;
    let cur: unknown = input;
    let result: unknown;
    let single = items === undefined;
    for (const st of compiled) {
      if (st.whole) {
        result = st.whole(items ?? seq(cur), env);
        single = false;
      } else if (items === undefined) {
        let r = st.each!(cur, env);
        for (const f of st.filters!) r = f(r, env);
        if (r === undefined) { result = seq(); single = false; break; }
        if (st.last && Array.isArray(r) && !isSequence(r)) { result = r; single = false; break; }
        if (!Array.isArray(r) || (r as Seq).cons) { cur = r; continue; }
        const out = seq();
        for (let j = 0; j < r.length; j++) out.push(r[j]);
        result = out;
        single = false;
      } else {
        result = step(items, env, st.each!, st.filters!, st.last!);
      }
      if (result === undefined || (result as unknown[]).length === 0) break;
      items = result as unknown[];
    }
    if (single) {
      if (bare) return cur;
      result = seq(cur);
    }
    if (keep) {
      if (Array.isArray(result) && (result as Seq).cons && !(result as Seq).sequence) result = seq(result);
      (result as Seq).keepSingleton = true;
    }
    return group ? group(result, env) : result;
  };
}

function step(input: unknown[], env: Env, each: Ev, filters: ((v: unknown, env: Env) => Seq)[], last: boolean): Seq | unknown[] {
  const results: unknown[] = [];
  for (let i = 0; i < input.length; i++) {
    tick();
    let r = each(input[i], env);
    for (const f of filters) r = f(r, env);
    if (r !== undefined) results.push(r);
  }
  if (last && results.length === 1 && Array.isArray(results[0]) && !isSequence(results[0])) return results[0] as unknown[];
  const out = seq();
  for (const r of results) {
    if (!Array.isArray(r) || (r as Seq).cons) out.push(r);
    else for (let j = 0; j < r.length; j++) out.push(r[j]);
  }
  checkSize(out.length);
  return out;
}

/**
 * An object constructor, on its own or grouping a path's results. With constant keys and one input item (the usual
 * `{ "a": x, "b": y }`) each value is evaluated once, in order; otherwise the items are grouped by key first.
 */
export function compileGroup(pairs: [Node, Node][], compile: Compile): Ev {
  const keys = pairs.map(([k]) => compile(k));
  const values = pairs.map(([, v]) => compile(v));
  const constant = pairs.map(([k]) => (k.type === 'string' ? (k.value as string) : undefined));
  const simple = constant.every((k) => k !== undefined) && new Set(constant).size === constant.length
    && !constant.includes('_jsonata_lambda') && !constant.includes('_jsonata_function') && !constant.includes('__proto__');
  return (input, env) => {
    if (simple && !Array.isArray(input)) {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < values.length; i++) {
        const v = values[i](input, env);
        if (v !== undefined) out[constant[i]!] = v;
      }
      return out;
    }
    const items = Array.isArray(input) ? input : seq(input);
    if (items.length === 0) items.push(undefined);
    const groups: Record<string, { data: unknown; at: number }> = Object.create(null);
    for (const item of items) {
      tick();
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i](item, env);
        if (key === undefined) continue;
        if (typeof key !== 'string') throw new JsonataError('T1003', key);
        if (key === '_jsonata_lambda' || key === '_jsonata_function') throw new JsonataError('D1013', key);
        const g = groups[key];
        if (!g) groups[key] = { data: item, at: i };
        else if (g.at !== i) throw new JsonataError('D1009', key);
        else g.data = append(g.data, item);
      }
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(groups)) {
      const v = values[groups[key].at](groups[key].data, env);
      if (v !== undefined) setField(out, key, v);
    }
    return out;
  };
}
