// The house rules of src/: no import circles (type-only imports count), every import runs down the layers that
// docs/contributors/architecture.md names, and no file outgrows 300 lines. A new directory is placed in a layer there
// before anything in it may be imported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { projectRoot } from '../src/config/load-config.js';
import { documentedLayers, importCircles, importGraph, layerBreaches } from './helpers/import-graph.js';

const src = join(projectRoot, 'src');
const layers = documentedLayers(readFileSync(join(projectRoot, 'docs', 'contributors', 'architecture.md'), 'utf8'));
/** Every file, the generated types included (they are the bottom layer). */
const everything = /^$/;

test('src/ has no import circles, type-only imports included', () => {
  assert.deepEqual(importCircles(importGraph(src, everything)).map((c) => c.join(' → ')), []);
});

test('every import in src/ runs down the layers of docs/contributors/architecture.md', () => {
  assert.deepEqual(layerBreaches(importGraph(src, everything), layers), []);
});

test('every directory of src/ is in exactly one layer', () => {
  const units = layers.flat();
  assert.deepEqual(units.filter((u, i) => units.indexOf(u) !== i), [], 'a directory named in two layers');
  const present = new Set([...importGraph(src, everything).edges.keys()].map((f) => (f.includes('/') ? f.split('/')[0] : '.')));
  assert.deepEqual([...present].filter((u) => !units.includes(u)).sort(), [], 'directories in no layer');
  assert.deepEqual(units.filter((u) => !present.has(u)), [], 'layers that name a directory src/ does not have');
});

test('no file in src/ is over 300 lines (generated types aside)', () => {
  const long = [...importGraph(src).edges.keys()]
    .map((f) => [f, readFileSync(join(src, f), 'utf8').split('\n').length - 1] as const)
    .filter(([, n]) => n > 300).map(([f, n]) => `${f}: ${n} lines`);
  assert.deepEqual(long, []);
});

test('the checks catch a circle, an import up a layer and one across a layer', () => {
  const root = mkdtempSync(join(tmpdir(), 'switchyard-layers-'));
  const put = (file: string, text: string) => { mkdirSync(dirname(join(root, file)), { recursive: true }); writeFileSync(join(root, file), text); };
  try {
    put('low/a.ts', "import type { B } from './b.js';\nexport type A = B;\n");
    put('low/b.ts', "import { up } from '../high/up.js';\nexport type B = import('./a.js').A;\nexport const b = up;\n");
    put('high/up.ts', "export const up = 1;\n");
    put('side/c.ts', "export { b } from '../low/b.js';\n");
    put('lost/d.ts', "export const d = 1;\n");
    const g = importGraph(root);
    assert.deepEqual(importCircles(g), [['low/a.ts', 'low/b.ts']]);
    const breaches = layerBreaches(g, [['low', 'side'], ['high']]);
    assert.equal(breaches.length, 3, breaches.join('\n'));
    assert.match(breaches.join('\n'), /low\/b\.ts imports high\/up\.ts: low \(layer 1\) may not import high \(layer 2, above it\)/);
    assert.match(breaches.join('\n'), /side\/c\.ts imports low\/b\.ts: side and low share layer 1/);
    assert.match(breaches.join('\n'), /lost\/d\.ts: its directory lost\/ is in no layer/);
    assert.deepEqual(documentedLayers('# x\n## Layers\n| layer | directories |\n|---|---|\n| 2 | `high/` |\n| 1 | `low/`, `side/` |\n| 3 | `*.ts` |\n'), [['low', 'side'], ['high'], ['.']]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
