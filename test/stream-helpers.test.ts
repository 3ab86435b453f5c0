// A dialect's stream helpers ($fn) keep the hooks' time limit however long the stream lasts: a helper that runs away
// inside a hook is stopped at the limit, and helpers still work in a stream older than the limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { compileDialects } from '../src/config/compile-dialects.js';
import { StreamTransformer } from '../src/transform/stream-transform.js';
import type { Dialect } from '../src/types/generated/routes.js';

const limitMs = 40;
/** JSONata builds objects without a prototype; compared as JSON. */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

function stream(): StreamTransformer {
  const dialect = {
    client: {
      request: '$',
      response: '$',
      // $burn(n) doubles its work at each level: at depth 40 it never ends, yet never nests deeply.
      functions: '($burn := function($n) { $n = 0 ? 1 : $burn($n - 1) + $burn($n - 1) }; { "burn": $burn, "echo": function($v) { { "echo": $v } } })',
      stream: {
        // A $fn.f(…) call reads paths from $fn: fields go in through variables.
        event: '($d := depth; $t := text; $d ? [{ "data": { "burnt": $fn.burn($d) } }] : [{ "data": $fn.echo($t) }])',
      },
    },
  } as unknown as Dialect;
  const compiled = compileDialects({ test: dialect }, limitMs).get('test')!;
  return new StreamTransformer(compiled.client!.stream, {});
}

test('a stream helper that runs away inside a hook is stopped at the time limit', { timeout: 10_000 }, async () => {
  const s = stream();
  assert.deepEqual(plain(await s.push({ text: 'a' })), [{ data: { echo: 'a' } }]);
  const t0 = performance.now();
  await assert.rejects(s.push({ depth: 40 }), /exceeded 40 ms/);
  const took = performance.now() - t0;
  assert.ok(took < 1000, `the runaway helper ran ${Math.round(took)} ms`);
});

test('helpers keep working in a stream that outlives the time limit', async () => {
  const s = stream();
  assert.deepEqual(plain(await s.push({ text: 'first' })), [{ data: { echo: 'first' } }]);
  await sleep(limitMs * 3);
  assert.deepEqual(plain(await s.push({ text: 'later' })), [{ data: { echo: 'later' } }]);
  assert.deepEqual(plain(await s.push({ depth: 3 })), [{ data: { burnt: 8 } }]);
});

test('the shipped dialects\' stream hooks answer each event at once, without a promise (the hot path)', async () => {
  const { loadRuntime, projectRoot } = await import('../src/config/load-config.js');
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { runtime } = loadRuntime(projectRoot, { ...process.env, OPENAI_API_KEY: undefined });
  const checked: string[] = [];
  for (const d of new Set(runtime.routes.map((r) => r.dialect).filter((x) => x?.client))) {
    const fx = JSON.parse(readFileSync(join(projectRoot, 'test', 'golden', 'dialects', d!.name, 'client.stream.text.json'), 'utf8'));
    const s = new StreamTransformer(d!.client!.stream, fx.bindings);
    await s.open();
    for (const e of fx.input) {
      const out = s.step(e.data, e.event);
      assert.ok(Array.isArray(out), `${d!.name}: an event answered a promise`);
    }
    checked.push(d!.name);
  }
  assert.ok(checked.length >= 2, `dialects checked: ${checked.join(', ')}`);
});
