// Every example in the README and docs/ is executed or says why it cannot be. Shell and SDK blocks marked `run` run
// page by page against the demo (the gateway with its simulator, as `npm start` runs it); config snippets are validated
// against their JSON Schema; settings a test reads from its page (the coding agents') are named by that test; every
// other code block carries its reason. A code block that says none of these fails, so nothing is skipped silently.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { blocksOf, docFiles, problemOf, reasons, type Block } from './helpers/doc-blocks.js';
import { startDemo, type Demo } from './helpers/demo.js';
import { runSession, tail } from './helpers/doc-session.js';
import { projectRoot, schemaRegistry } from '../src/config/load-config.js';

const blocks: Block[] = docFiles().flatMap((f) => blocksOf(f));
const pages = [...new Set(blocks.filter((b) => b.kind === 'run').map((b) => b.file))];
let demo: Demo | undefined;

before(async () => { demo = await startDemo(); });
after(async () => {
  await demo?.stop();
  console.log(summary());
});

test('every code block says whether it runs, what validates it, or why it cannot run here', () => {
  assert.deepEqual(blocks.map(problemOf).filter(Boolean), []);
});

test('every config snippet is valid against the schema it names', () => {
  const ajv = schemaRegistry().ajv;
  for (const b of blocks.filter((x) => x.kind === 'schema')) {
    const [file, pointer = ''] = b.arg!.split('#');
    const id = `${file.endsWith('.json') ? file : `${file}.schema.json`}#${pointer}`;
    const validate = ajv.getSchema(id);
    assert.ok(validate, `${b.file}:${b.line}: no schema ${id}`);
    const value = b.lang === 'json' ? JSON.parse(b.text) : parse(b.text);
    // `each`: the block is a list of examples, each valid on its own.
    for (const v of b.each ? value : [value]) {
      assert.ok(validate(v), `${b.file}:${b.line} against ${id}: ${JSON.stringify(validate.errors)?.slice(0, 800)}`);
    }
  }
});

test('every block another test runs is named by that test', () => {
  for (const b of blocks.filter((x) => x.kind === 'by')) {
    const source = readFileSync(join(projectRoot, 'test', `${b.arg}.test.ts`), 'utf8');
    assert.ok(source.includes(`'${b.id}'`), `${b.file}:${b.line}: test/${b.arg}.test.ts does not read block ${b.id}`);
  }
});

for (const page of pages) {
  test(`the examples of ${page} run against the demo`, async () => {
    const r = await runSession(blocks.filter((b) => b.file === page && b.kind === 'run'), demo!);
    console.log(`${page}: ${r.ok ? 'ran' : 'FAILED'} in ${(r.ms / 1000).toFixed(1)} s`);
    assert.ok(r.ok, `failed at ${r.failedAt}:\n${tail(r.output)}`);
  });
}

/** What the reader is told in the test output: how many examples ran, and every one that did not, by reason. */
function summary(): string {
  const count = (f: (b: Block) => boolean) => blocks.filter(f).length;
  const norun = Object.keys(reasons).map((r) => `${r} ${count((b) => b.kind === 'norun' && b.arg === r)}`).join(', ');
  return [
    `doc examples: ${count((b) => b.kind === 'run')} run blocks on ${pages.length} pages, ${count((b) => b.kind === 'schema')} config snippets validated, `
      + `${count((b) => b.kind === 'by')} settings run by other tests;`,
    `not executed: ${count((b) => b.kind === 'norun')} (${norun}); outputs ${count((b) => b.kind === 'output')}, plain ${count((b) => b.kind === 'plain')}`,
  ].join(' ');
}
