// Property-based differential test of the compiled JSONata evaluator against jsonata's own: expressions generated from
// the grammar the compiler supports (paths with filters and sequences, operators, conditions, blocks and variables,
// constructors, built-in and higher-order functions, lambdas, recursion and tail calls, `~>`) on generated inputs
// (singletons and arrays, missing fields, nested arrays, mixed types). Both must give the same JSON, or both fail with
// an error (not always the same one: jsonata evaluates constructor items concurrently, and the first to fail wins;
// the gateway reruns a failed evaluation on jsonata, so a client always sees jsonata's error). FC_SEED and FC_RUNS reproduce or extend a run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileTransform } from '../src/transform/compile-transform.js';
import { compare } from './helpers/differential.js';

const fields = ['a', 'b', 'c', 'items', 'type'];

const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: -3, max: 5 }), fc.constantFrom('t', 'x', '', 'ab', '1'), fc.boolean(), fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...fields), tie('v'), { maxKeys: 4 }),
  ),
})).v;

const input = fc.oneof(fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: 5 }), fc.array(value, { maxLength: 3 }), value);

const name = fc.constantFrom(...fields);
const literal = fc.oneof(fc.integer({ min: -2, max: 4 }).map(String), fc.constantFrom('"t"', '"x"', '""', 'true', 'false', 'null', '1.5'));
const binop = fc.constantFrom('+', '-', '*', '=', '!=', '<', '>=', '&', 'and', 'or', 'in', '/', '%', '<=', '>');

const expr: fc.Arbitrary<string> = fc.letrec<{ e: string; path: string }>((tie) => ({
  path: fc.oneof(
    { depthSize: 'small' },
    name,
    fc.tuple(name, name).map(([x, y]) => `${x}.${y}`),
    fc.tuple(tie('path'), fc.constantFrom('[0]', '[-1]', '[1]', '[]', '[type = "t"]', '[a > 0]', '[$]', '[b]', '[0][0]')).map(([p, f]) => `${p}${f}`),
    fc.tuple(tie('path'), name).map(([p, n]) => `${p}.${n}`),
    fc.tuple(tie('path'), tie('e')).map(([p, e]) => `${p}.(${e})`),
    fc.constantFrom('$', '$$', '$.a', '$$.items', '*', 'items.*', '$v', '$v.a', '$w'),
  ),
  e: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    literal,
    tie('path'),
    fc.tuple(tie('e'), binop, tie('e')).map(([l, op, r]) => `(${l} ${op} ${r})`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([c, t, f]) => `(${c} ? ${t} : ${f})`),
    fc.tuple(tie('e'), tie('e')).map(([c, t]) => `(${c} ? ${t})`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `($v := ${x}; $w := $v; ${y})`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `[${x}, ${y}]`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `[${x}, [${y}]]`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `{ "k": ${x}, "m": ${y} }`),
    fc.tuple(tie('path'), tie('e')).map(([p, y]) => `${p}{ $string(type): ${y} }`),
    tie('e').map((x) => `-(${x})`),
    fc.tuple(fc.constantFrom('$count', '$exists', '$string', '$type', '$boolean', '$not', '$keys', '$reverse', '$distinct', '$sum', '$number', '$length', '$uppercase'), tie('e'))
      .map(([f, x]) => `${f}(${x})`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$append(${x}, ${y})`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$merge([${x}, ${y}])`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$lookup(${x}, ${y})`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$join(${x}, ${y})`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$contains(${x}, ${y})`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$split(${x}, ${y})`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$map(${x}, function($x, $i) { ${y} })`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$map(${x}, function($x) { [$x, ${y}] })`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$filter(${x}, function($x) { $x.${'a'} or ${y} })`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$reduce(${x}, function($acc, $x) { [$acc, $x, ${y}] }, [])`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$sift(${x}, function($v, $k) { $k = "a" or ${y} })`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `$each(${x}, function($v, $k) { $k & ${y} })`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `(${x}) ~> $map(function($x) { ${y} })`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `($f := function($x, $y) { $x ? [$x, $y] : $y }; $f(${x}, ${y}))`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `($g := function($x) { $map($x, function($z) { ${y} }) }; $g(${x}))`),
    tie('e').map((x) => `($down := function($n, $acc) { $n > 0 ? $down($n - 1, $append($acc, $n)) : $acc }; $down(3, ${x}))`),
    tie('e').map((x) => `($o := { "f": function($x) { { "got": $x } } }; $o.f(${x}))`),
    fc.tuple(tie('e'), tie('e')).map(([x, y]) => `(${x})[${y}]`),
    fc.tuple(literal, literal).map(([x, y]) => `[${x}..${y}]`),
  ),
})).e;

test('differential: generated expressions on generated inputs', async () => {
  const runs = Number(process.env.FC_RUNS ?? 600);
  const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
  let compiledCases = 0;
  await fc.assert(
    fc.asyncProperty(expr, input, async (source, data) => {
      let t;
      try { t = compileTransform(source, 1000); } catch { return true; } // not valid JSONata: nothing to compare
      if (!t.compiled) return true;
      compiledCases++;
      const r = await compare(t, data, { v: [1, 2], w: { a: 1 } }, false);
      if (r.diff) throw new Error(`${source} on ${JSON.stringify(data)}: ${r.diff}`);
      return true;
    }),
    { numRuns: runs, seed },
  );
  assert.ok(compiledCases > runs / 2, `only ${compiledCases} of ${runs} generated expressions compiled`);
});

// Cases where the two evaluators once differed, or where jsonata's rules are easy to get wrong, checked one by one.
const cases: [string, unknown][] = [
  ['$map([1, 2], function($v) { $map([$v], function($w) { $w }) })', {}],
  ['a[]', { a: 1 }],
  ['a.b[]', { a: [{ b: 1 }] }],
  ['[a]', { a: [1, 2] }],
  ['a.[b]', { a: [{ b: 1 }, { b: [2, 3] }] }],
  ['$', [1, 2]],
  ['$$[0]', [1, 2]],
  ['items[0]', { items: [[1, 2], [3]] }],
  ['items.*', { items: [{ a: [1, [2]] }, { b: 3 }] }],
  ['{ "a": 1, "a": 2 }', {}],
  ['items{ type: a }', { items: [{ type: 't', a: 1 }, { type: 't', a: 2 }, { type: 'x', a: 3 }] }],
  ['($x := 1; ($y := $x; $x := 2; [$x, $y]))', {}],
  ['($f := function($n) { $n = 0 ? 0 : $f($n - 1) }; $f(1000))', {}],
  ['$string(1/0)', {}],
  ['"a" & 1.5 & true & null & [1] & {"k": 1}', {}],
  ['[1..3][$ > 1]', {}],
  ['a.b.c', { a: [{ b: { c: 1 } }, { b: [{ c: 2 }, { c: [3, 4] }] }] }],
  ['a.[b].c', { a: { b: { c: 1 } } }],
  ['a.b.(c)', { a: { b: [[{ c: 1 }], { c: [2, [3]] }] } }],
  ['($x := [[1], [2, 3]]; $x.$)', {}],
  ['$merge([{ "a": 1 }, $])', JSON.parse('{"__proto__": {"polluted": true}}')],
  ['($k := "__proto__"; { $k: { "polluted": true } }).polluted', {}],
  ['$keys($sift($, function($v) { true }))', JSON.parse('{"__proto__": 1, "b": 2}')],
];

test('differential: cases that once differed or are easy to get wrong', async () => {
  for (const [source, data] of cases) {
    const t = compileTransform(source, 1000);
    assert.ok(t.compiled, `${source}: ${t.fallbackReason}`);
    const r = await compare(t, data, {});
    assert.equal(r.diff, undefined, `${source} on ${JSON.stringify(data)}`);
  }
});
