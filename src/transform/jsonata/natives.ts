// JSONata's built-in functions for the compiled evaluator: jsonata's own definitions (implementation and parsed
// signature, taken from a jsonata evaluation at load), the engine's helpers beside them, and versions of our own of
// the built-ins jsonata writes as async functions (those that call functions, and those that may take a regex) and of
// $merge (objects with a prototype, see setField).
import jsonataModule from 'jsonata';
import { helperFunctions } from '../helpers.js';
import { GuardTrip, JsonataError, NeedsAsync, TailCall, seq, setField, toBoolean, maxSequence, type Seq } from './values.js';
import { frame, rt, tick, type Env } from './runtime.js';
import { plainArguments } from './signatures.js';

type Fn = (...args: any[]) => unknown;
interface Signature { definition: string; validate(args: unknown[], context: unknown): unknown[] }
export interface NativeDef { _jsonata_function: true; implementation: Fn; signature?: Signature }

const jsonata = jsonataModule as unknown as (expr: string) => {
  evaluate(input: unknown): Promise<unknown>; registerFunction(name: string, impl: Fn, signature?: string): void;
};

const builtinNames = ['sum', 'count', 'max', 'min', 'average', 'string', 'substring', 'substringBefore', 'substringAfter',
  'lowercase', 'uppercase', 'length', 'trim', 'pad', 'match', 'contains', 'replace', 'split', 'join', 'formatNumber',
  'formatBase', 'formatInteger', 'parseInteger', 'number', 'floor', 'ceil', 'round', 'abs', 'sqrt', 'power', 'random',
  'boolean', 'not', 'map', 'zip', 'filter', 'single', 'reduce', 'sift', 'keys', 'lookup', 'append', 'exists', 'spread',
  'merge', 'reverse', 'each', 'error', 'assert', 'type', 'sort', 'shuffle', 'distinct', 'base64encode', 'base64decode',
  'encodeUrlComponent', 'encodeUrl', 'decodeUrlComponent', 'decodeUrl', 'eval', 'toMillis', 'fromMillis', 'clone'];

async function loadDefinitions(): Promise<Record<string, NativeDef>> {
  const names = [...builtinNames, ...Object.keys(helperFunctions)];
  const probe = jsonata(`{ ${names.map((n) => `"${n}": $${n}`).join(', ')} }`);
  for (const [name, fn] of Object.entries(helperFunctions)) probe.registerFunction(name, fn.impl, fn.signature);
  return { ...(await probe.evaluate({}) as Record<string, NativeDef>) };
}

/** Every function a compiled expression may name without binding it: jsonata's built-ins and the engine's helpers. */
export const natives: Record<string, NativeDef> = await loadDefinitions();

/** A lambda of a compiled expression: what calling it needs. */
export interface LambdaInfo {
  readonly body: (input: unknown, env: Env) => unknown;
  readonly size: number; readonly arity: number; readonly env: Env; readonly input: unknown;
  readonly limitMs: number; readonly maxDepth: number;
}
const lambdaKey = Symbol('compiled lambda');
export type CompiledLambda = Fn & { arity: number; [lambdaKey]: LambdaInfo };

const isPromise = (v: unknown): v is Promise<unknown> => v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';
const isIterable = (v: unknown): v is Iterator<unknown> => v !== null && typeof v === 'object' && Symbol.iterator in v && typeof (v as { next?: unknown }).next === 'function';

/** A function answered a promise: the evaluation goes to jsonata (the promise is dropped, its failure too). */
function needsAsync(p: Promise<unknown>): never {
  p.catch(() => undefined);
  throw new NeedsAsync();
}

const focus = (input: unknown) => ({ input, options: { sequence: maxSequence }, createSequence: seq });

/** A compiled lambda as a JavaScript function: callable by jsonata too (then under a guard of its own). */
export function makeLambda(info: LambdaInfo): CompiledLambda {
  const f = function (this: unknown, ...args: unknown[]) {
    if (rt.guard) return invoke(info, args, this);
    rt.guard = { deadline: performance.now() + info.limitMs, depth: 0, ticks: 0, maxDepth: info.maxDepth };
    try { return invoke(info, args, this); } finally { rt.guard = undefined; }
  } as CompiledLambda;
  f.arity = info.arity;
  f[lambdaKey] = info;
  return f;
}

function enter(info: LambdaInfo, args: unknown[]): unknown {
  const env = frame(info.env, info.size);
  for (let i = 0; i < info.arity; i++) env.v[i] = args[i];
  return info.body(info.input, env);
}

/** applyProcedure() with the trampoline of apply(): tail calls do not nest. */
function invoke(info: LambdaInfo, args: unknown[], callerInput: unknown): unknown {
  const g = rt.guard!;
  if (++g.depth > g.maxDepth) { g.depth--; throw new GuardTrip('D1011'); }
  try {
    tick();
    let r = enter(info, args);
    while (r instanceof TailCall) {
      tick();
      const next = typeof r.proc === 'function' ? (r.proc as Partial<CompiledLambda>)[lambdaKey] : undefined;
      r = next ? enter(next, r.args) : apply(r.proc, r.args, callerInput);
    }
    return r;
  } finally {
    g.depth--;
  }
}

/** applyInner(): a compiled lambda, a built-in (arguments checked by its signature) or a JavaScript function. */
export function apply(proc: unknown, args: unknown[], input: unknown): unknown {
  if (typeof proc === 'function') {
    const info = (proc as Partial<CompiledLambda>)[lambdaKey];
    if (info) return invoke(info, args, input);
    const r = (proc as Fn).apply(input, args);
    return isPromise(r) ? needsAsync(r) : r;
  }
  if (proc !== null && typeof proc === 'object') {
    const def = proc as NativeDef & { _jsonata_lambda?: boolean };
    if (def._jsonata_function === true) {
      const valid = !def.signature || plain(def)(args) ? args : def.signature.validate(args, input);
      const own = syncVersions.get(def.implementation);
      let r = own ? own(...valid) : def.implementation.apply(focus(input), valid);
      if (isIterable(r)) r = r.next().value;
      return isPromise(r) ? needsAsync(r) : r;
    }
    if (def._jsonata_lambda === true) throw new NeedsAsync();
  }
  throw new JsonataError('T1006');
}

const plainTests = new Map<NativeDef, (args: unknown[]) => boolean>();
const never = () => false;

/** Whether a built-in's arguments are what its signature would hand back unchanged (see signatures.ts). */
function plain(def: NativeDef): (args: unknown[]) => boolean {
  let test = plainTests.get(def);
  if (!test) plainTests.set(def, test = plainArguments(def.signature!.definition) ?? never);
  return test;
}

/** getFunctionArity(). */
export function arityOf(f: unknown): number {
  const x = f as { arity?: unknown; implementation?: Fn; length?: unknown; arguments?: unknown[] };
  return typeof x.arity === 'number' ? x.arity : typeof x.implementation === 'function' ? x.implementation.length
    : typeof x.length === 'number' ? x.length : x.arguments!.length;
}

/** hofFuncArgs() and the call: a higher-order built-in calls its function as jsonata's closure does (no context). */
function callWith(func: unknown, value: unknown, pos: unknown, whole: unknown): unknown {
  const n = arityOf(func);
  const args = n >= 3 ? [value, pos, whole] : n >= 2 ? [value, pos] : [value];
  return apply(func, args, null);
}

const keys = (o: unknown) => (o !== null && typeof o === 'object' ? Object.keys(o) : []);

function map(arr: unknown[] | undefined, func: unknown): Seq | undefined {
  if (arr === undefined) return undefined;
  const out = seq();
  for (let i = 0; i < arr.length; i++) {
    const r = callWith(func, arr[i], i, arr);
    if (r !== undefined) out.push(r);
  }
  return out;
}

function filter(arr: unknown[] | undefined, func: unknown): Seq | undefined {
  if (arr === undefined) return undefined;
  const out = seq();
  for (let i = 0; i < arr.length; i++) if (toBoolean(callWith(func, arr[i], i, arr))) out.push(arr[i]);
  return out;
}

function single(arr: unknown[] | undefined, func: unknown): unknown {
  if (arr === undefined) return undefined;
  let found = false;
  let result: unknown;
  for (let i = 0; i < arr.length; i++) {
    if (func !== undefined && !toBoolean(callWith(func, arr[i], i, arr))) continue;
    if (found) throw new JsonataError('D3138', i);
    result = arr[i];
    found = true;
  }
  if (!found) throw new JsonataError('D3139');
  return result;
}

function reduce(list: unknown[] | undefined, func: unknown, init: unknown): unknown {
  if (list === undefined) return undefined;
  const n = arityOf(func);
  if (n < 2) throw new JsonataError('D3050');
  let i = init === undefined && list.length > 0 ? 1 : 0;
  let acc = i === 1 ? list[0] : init;
  for (; i < list.length; i++) {
    const args = [acc, list[i]];
    if (n >= 3) args.push(i);
    if (n >= 4) args.push(list);
    acc = apply(func, args, null);
  }
  return acc;
}

function sift(obj: unknown, func: unknown): unknown {
  const out: Record<string, unknown> = {};
  let any = false;
  for (const k of keys(obj)) {
    const v = (obj as Record<string, unknown>)[k];
    if (toBoolean(callWith(func, v, k, obj))) { setField(out, k, v); any = true; }
  }
  return any ? out : undefined;
}

function merge(list: unknown[] | undefined): unknown {
  if (list === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const o of list) for (const k of keys(o)) setField(out, k, (o as Record<string, unknown>)[k]);
  return out;
}

function each(obj: unknown, func: unknown): Seq {
  const out = seq();
  for (const k of keys(obj)) {
    const r = callWith(func, (obj as Record<string, unknown>)[k], k, obj);
    if (r !== undefined) out.push(r);
  }
  return out;
}

// The string forms of contains, split and replace; a regex or function argument goes to jsonata.
function contains(str: string | undefined, token: unknown): boolean | undefined {
  if (str === undefined || token === undefined) return undefined;
  if (typeof token !== 'string') throw new NeedsAsync();
  return str.indexOf(token) !== -1;
}

function split(str: string | undefined, sep: unknown, limit?: number): string[] | undefined {
  if (str === undefined) return undefined;
  if (limit !== undefined && limit < 0) throw new JsonataError('D3020', limit);
  if (typeof sep !== 'string') throw new NeedsAsync();
  return limit === undefined || limit > 0 ? str.split(sep, limit) : [];
}

function replace(str: string | undefined, pattern: unknown, replacement: unknown, limit?: number): string | undefined {
  if (str === undefined) return undefined;
  if (pattern === '') throw new JsonataError('D3010', pattern);
  if (limit !== undefined && limit < 0) throw new JsonataError('D3011', limit);
  if (typeof pattern !== 'string' || typeof replacement !== 'string') throw new NeedsAsync();
  if (limit !== undefined && limit <= 0) return str;
  let out = '';
  let at = 0;
  let count = 0;
  for (let i = str.indexOf(pattern); i !== -1 && (limit === undefined || count < limit); i = str.indexOf(pattern, at)) {
    out += str.substring(at, i) + replacement;
    at = i + pattern.length;
    count++;
  }
  return out + str.substring(at);
}

const own: Record<string, Fn> = { map, filter, single, reduce, sift, each, contains, split, replace, merge };
const syncVersions = new Map<Fn, Fn>(Object.entries(own).map(([name, f]) => [natives[name].implementation, f]));

/** Built-ins that only jsonata can run (async, no synchronous version here): an expression naming one goes to jsonata. */
export const asyncOnly = new Set(Object.entries(natives)
  .filter(([name, d]) => !own[name] && d.implementation.constructor.name === 'AsyncFunction').map(([name]) => name));
