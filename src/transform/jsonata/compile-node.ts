// A JSONata syntax tree compiled to synchronous closures: each node's evaluation in jsonata's evaluate() (its
// operators, functions, lambdas, blocks and variables), then its filters, grouping and the sequence rules every
// result goes through. A construct outside the subset throws Unsupported at compile time and the whole expression
// stays with jsonata.
import { Unsupported, type Node } from './ast.js';
import { compileFilter, compileGroup, compilePath, type Ev } from './compile-path.js';
import { apply, asyncOnly, makeLambda, natives } from './natives.js';
import { frame, unbound, type Env } from './runtime.js';
import { analyseScopes, resolve, type Scope } from './scope.js';
import { JsonataError, NeedsAsync, TailCall, append, checkSize, isFunction, isNumeric, normalize, seq, toBoolean, type Seq } from './values.js';
import { binary } from './operators.js';

export interface CompileOptions { limitMs: number; maxDepth: number }

export class NodeCompiler {
  private scope: Scope;
  private readonly scopes: Map<Node, Scope>;
  /** Inside an array or object constructor's item, whose siblings jsonata evaluates concurrently. */
  private inConstructor = false;

  constructor(root: Node, private readonly opts: CompileOptions) {
    const a = analyseScopes(root);
    this.scope = a.root;
    this.scopes = a.of;
  }

  get rootSize(): number { return this.scope.names.size; }

  /** evaluate(): the node, its predicates, its grouping, then the sequence rules (unless a tail call). */
  compile(node: Node, tail = false): Ev {
    const base = this.base(node, tail);
    if (tail && (node.predicate || node.group || node.keepArray) && (node.type === 'block' || node.type === 'condition')) {
      throw new Unsupported('filtered tail position');
    }
    const preds = (node.predicate ?? []).map((p) => compileFilter(p.expr, (n) => this.compile(n)));
    const group = node.type !== 'path' && node.group ? this.group(node.group.lhs) : undefined;
    const keep = node.keepArray === true;
    if (!preds.length && !group) {
      if (literal.has(node.type) || (node.type === 'unary' && node.value !== '-') || (node.type === 'lambda')) return base;
      return keep ? (i, e) => normalize(base(i, e), true) : (i, e) => normalize(base(i, e), false);
    }
    return (input, env) => {
      let r = base(input, env);
      for (const p of preds) r = p(r, env);
      if (group) r = group(r, env);
      return normalize(r, keep);
    };
  }

  private group(pairs: [Node, Node][]): Ev {
    return this.constructorItems(() => compileGroup(pairs, (n) => this.compile(n)));
  }

  private constructorItems<T>(f: () => T): T {
    const outer = this.inConstructor;
    this.inConstructor = true;
    try { return f(); } finally { this.inConstructor = outer; }
  }

  private base(node: Node, tail: boolean): Ev {
    switch (node.type) {
      case 'string': case 'number': case 'value': { const v = node.value; return () => v; }
      case 'path': return compilePath(node, (n) => this.compile(n), (g) => this.group(g.lhs));
      case 'name': { const key = node.value as string; return (input) => lookupName(input, key); }
      case 'wildcard': return wildcard;
      case 'variable': return this.variable(node.value as string);
      case 'binary': return this.binary(node);
      case 'unary': return this.unary(node);
      case 'condition': return this.condition(node, tail);
      case 'block': return this.block(node, tail);
      case 'bind': return this.bind(node);
      case 'function': return this.call(node);
      case 'lambda': return node.thunk ? this.thunk(node, tail) : this.lambda(node);
      case 'apply': return this.applyOp(node);
      default: throw new Unsupported(node.type);
    }
  }

  private variable(name: string): Ev {
    if (name === '') return (input) => (input && (input as Seq).outerWrapper ? (input as Seq)[0] : input);
    if (name === '$') return (_i, env) => env.x.root;
    const found = resolve(this.scope, name);
    const global = this.global(name);
    if (found.length === 1 && this.alwaysBound(name)) {
      const { hops, slot } = found[0];
      return (_i, env) => { let e = env; for (let h = 0; h < hops; h++) e = e.p!; return e.v[slot]; };
    }
    return (_i, env) => {
      let e = env;
      let h = 0;
      for (const f of found) {
        for (; h < f.hops; h++) e = e.p!;
        const v = e.v[f.slot];
        if (v !== unbound) return v;
      }
      return global(env);
    };
  }

  /** A lambda's parameter in its own body: bound before anything reads it. */
  private alwaysBound(name: string): boolean {
    for (let s: Scope | undefined = this.scope; s; s = s.parent) {
      const slot = s.names.get(name);
      if (slot !== undefined) return s.lambda && slot < this.paramCount.get(s)!;
    }
    return false;
  }

  private readonly paramCount = new Map<Scope, number>();

  /** A name no frame of the expression binds: the evaluation's bindings, else a built-in or helper. */
  private global(name: string): (env: Env) => unknown {
    if (name === 'now' || name === 'millis') throw new Unsupported(`$${name}`);
    const def = natives[name];
    return (env) => (Object.prototype.hasOwnProperty.call(env.x.bindings, name) ? env.x.bindings[name] : def);
  }

  private binary(node: Node): Ev {
    const op = node.value as string;
    const l = this.compile(node.lhs!);
    const r = this.compile(node.rhs!);
    if (op === 'and') return (i, e) => toBool(l(i, e)) && toBool(r(i, e));
    if (op === 'or') return (i, e) => toBool(l(i, e)) || toBool(r(i, e));
    const f = binary[op];
    if (!f) throw new Unsupported(`operator ${op}`);
    return (i, e) => { const a = l(i, e); return f(a, r(i, e)); };
  }

  private unary(node: Node): Ev {
    if (node.value === '-') {
      const x = this.compile(node.expression!);
      return (i, e) => {
        const v = x(i, e);
        if (v === undefined) return undefined;
        if (isNumeric(v)) return -v;
        throw new JsonataError('D1002', v);
      };
    }
    if (node.value === '{') return this.group(node.lhs as [Node, Node][]);
    if (node.value !== '[') throw new Unsupported(`unary ${String(node.value)}`);
    const items = this.constructorItems(() => node.expressions!.map((x) => ({ ev: this.compile(x), nested: x.value === '[' })));
    const cons = node.consarray === true;
    return (input, env) => {
      let out: unknown[] = [];
      for (const it of items) {
        const v = it.ev(input, env);
        if (v === undefined) continue;
        if (it.nested) out.push(v);
        else if (Array.isArray(v)) { checkSize(out.length + v.length); out = out.concat(v); }
        else out.push(v);
      }
      if (cons) Object.defineProperty(out, 'cons', { enumerable: false, configurable: false, value: true });
      return out;
    };
  }

  private condition(node: Node, tail: boolean): Ev {
    const c = this.compile(node.condition!);
    const t = this.compile(node.then!, tail);
    const f = node.else ? this.compile(node.else, tail) : undefined;
    return (i, e) => (toBoolean(c(i, e)) ? t(i, e) : f ? f(i, e) : undefined);
  }

  private inScope<T>(node: Node, f: () => T): T {
    const outer = this.scope;
    const ctor = this.inConstructor;
    this.scope = this.scopes.get(node)!;
    this.inConstructor = false;
    try { return f(); } finally { this.scope = outer; this.inConstructor = ctor; }
  }

  private block(node: Node, tail: boolean): Ev {
    const s = this.scopes.get(node)!;
    const exprs = this.inScope(node, () => node.expressions!.map((x, i, all) => this.compile(x, tail && i === all.length - 1)));
    const size = s.names.size;
    return (input, env) => {
      const inner = size ? frame(env, size) : env;
      let r: unknown;
      for (let i = 0; i < exprs.length; i++) r = exprs[i](input, inner);
      return r;
    };
  }

  private bind(node: Node): Ev {
    const name = node.lhs!.value as string;
    if (this.inConstructor) throw new Unsupported('binding inside a constructor');
    if (name === '' || name === '$') throw new Unsupported('binding $');
    const slot = this.scope.names.get(name)!;
    const rhs = this.compile(node.rhs!);
    return (i, env) => { const v = rhs(i, env); env.v[slot] = v; return v; };
  }

  private lambda(node: Node): Ev {
    if (node.signature !== undefined) throw new Unsupported('lambda signature');
    const s = this.scopes.get(node)!;
    const arity = node.arguments!.length;
    this.paramCount.set(s, arity);
    const body = this.inScope(node, () => this.compile(node.body!, true));
    const { limitMs, maxDepth } = this.opts;
    const size = s.names.size;
    return (input, env) => makeLambda({ body, size, arity, env, input, limitMs, maxDepth });
  }

  /** A call in a lambda's tail position: handed to the caller, which makes it without nesting (jsonata's thunk). */
  private thunk(node: Node, tail: boolean): Ev {
    const call = node.body!;
    if (!tail || call.type !== 'function' || call.group) throw new Unsupported('thunk');
    const proc = this.compile(call.procedure!);
    const args = call.arguments!.map((a) => this.compile(a));
    return (i, e) => new TailCall(proc(i, e), args.map((a) => a(i, e)));
  }

  private call(node: Node): Ev {
    const p = node.procedure!;
    if (p.type === 'variable' && asyncOnly.has(p.value as string) && !resolve(this.scope, p.value as string).length) {
      throw new Unsupported(`$${String(p.value)}`);
    }
    const proc = this.compile(p);
    const args = node.arguments!.map((a) => this.compile(a));
    const forgot = p.type === 'path' && p.steps![0].type === 'name' ? this.variable(p.steps![0].value as string) : undefined;
    return (input, env) => {
      const f = proc(input, env);
      if (f === undefined && forgot && forgot(input, env) !== undefined) throw new JsonataError('T1005');
      const vals = new Array<unknown>(args.length);
      for (let k = 0; k < args.length; k++) vals[k] = args[k](input, env);
      return apply(f, vals, input);
    };
  }

  private applyOp(node: Node): Ev {
    const lhs = this.compile(node.lhs!);
    if (node.rhs!.type === 'function') {
      const call = node.rhs!;
      const proc = this.compile(call.procedure!);
      const args = call.arguments!.map((a) => this.compile(a));
      return (input, env) => {
        const first = lhs(input, env);
        const f = proc(input, env);
        return apply(f, [first, ...args.map((a) => a(input, env))], input);
      };
    }
    const rhs = this.compile(node.rhs!);
    return (input, env) => {
      const v = lhs(input, env);
      const f = rhs(input, env);
      if (!isFunction(f)) throw new JsonataError('T2006', f);
      if (isFunction(v)) throw new NeedsAsync(); // function composition: left to jsonata
      return apply(f, [v], null);
    };
  }
}

const literal = new Set(['string', 'number', 'value']);

function toBool(v: unknown): boolean {
  return toBoolean(v) ?? false;
}

function lookupName(input: unknown, key: string): unknown {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    return Object.prototype.hasOwnProperty.call(input, key) && !isFunction(input) ? (input as Record<string, unknown>)[key] : undefined;
  }
  return Array.isArray(input) ? lookupArray(input, key) : undefined;
}

function lookupArray(input: unknown[], key: string): Seq {
  const out = seq();
  for (let i = 0; i < input.length; i++) {
    const r = lookupName(input[i], key);
    if (r === undefined) continue;
    if (Array.isArray(r)) for (let j = 0; j < r.length; j++) out.push(r[j]);
    else out.push(r);
  }
  return out;
}

/** evaluateWildcard(). */
function wildcard(input: unknown): Seq {
  let out: unknown = seq();
  let v = input;
  if (Array.isArray(v) && (v as Seq).outerWrapper && v.length > 0) v = v[0];
  if (v !== null && typeof v === 'object' && !isFunction(v)) {
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (Array.isArray(x)) out = append(out, flatten(x, []));
      else (out as unknown[]).push(x);
    }
  }
  return out as Seq;
}

function flatten(v: unknown, into: unknown[]): unknown[] {
  if (Array.isArray(v)) for (const x of v) flatten(x, into);
  else into.push(v);
  return into;
}

