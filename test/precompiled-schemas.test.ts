// The validators generated at build time (src/config/precompile-schemas.ts) are what a process uses for the shipped
// schemas, and they answer exactly as ajv's runtime compile does: the same verdict and the same errors, on the shipped
// config, every golden fixture (and pieces of it), those with a field removed or of the wrong type, and random values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { projectRoot } from '../src/config/load-config.js';
import { newAjv, SchemaRegistry } from '../src/config/schema-registry.js';

const schemas = join(projectRoot, 'schemas');
const registry = new SchemaRegistry(schemas);
const ids = [...registry.sources.keys()];

/** A runtime-compiled ajv over the same files, the reference. */
function referenceAjv() {
  const ajv = newAjv();
  for (const s of registry.sources.values()) ajv.addSchema(structuredClone(s));
  return ajv;
}

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? jsonFiles(p) : n.endsWith('.json') ? [p] : [];
  });
}

/** The fixtures and their object-valued fields, each also with its first field removed and with it of the wrong type. */
function instances(): unknown[] {
  const base: unknown[] = [
    parse(readFileSync(join(projectRoot, 'routes.yaml'), 'utf8'), { merge: true }),
    parse(readFileSync(join(projectRoot, 'channels.yaml'), 'utf8'), { merge: true }),
  ];
  for (const f of jsonFiles(join(projectRoot, 'test', 'golden'))) {
    const v = JSON.parse(readFileSync(f, 'utf8')) as unknown;
    base.push(v);
    if (v && typeof v === 'object') for (const x of Object.values(v)) if (x && typeof x === 'object') base.push(x);
  }
  const out = [...base];
  for (const v of base) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
    const [k] = Object.keys(v);
    if (k === undefined) continue;
    const { [k]: first, ...rest } = v as Record<string, unknown>;
    out.push(rest, { ...rest, [k]: typeof first === 'string' ? 12 : 'x' });
  }
  return out;
}

const verdict = (validate: (x: unknown) => boolean | Promise<unknown>, x: unknown) => {
  const valid = validate(x);
  return { valid, errors: (validate as unknown as { errors?: unknown }).errors ?? null };
};

test('the build generated validators for the shipped schemas, and a registry uses them', () => {
  const pre = ids.filter((id) => registry.isPrecompiled(id));
  assert.ok(pre.length >= ids.length - 5, `only ${pre.length} of ${ids.length} precompiled (npm run build makes them)`);
  for (const id of ['channels.schema.json', 'routes.schema.json', 'chat-completions.request.json']) assert.ok(registry.isPrecompiled(id), id);
});

test('each generated validator gives the verdict and the errors of a runtime compile', () => {
  const ajv = referenceAjv();
  const xs = instances();
  let compared = 0;
  for (const id of ids.filter((i) => registry.isPrecompiled(i))) {
    const mine = registry.get(id);
    const ref = ajv.getSchema(id)!;
    for (const x of xs) {
      assert.deepEqual(verdict(mine, x), verdict(ref, x), `${id} on ${JSON.stringify(x).slice(0, 200)}`);
      compared++;
    }
    fc.assert(fc.property(fc.jsonValue(), (x) => { assert.deepEqual(verdict(mine, x), verdict(ref, x)); }), { seed: 38, numRuns: 100 });
  }
  assert.ok(compared > 10_000, `${compared} comparisons`);
});

test('a schema file changed since the build is compiled from the file, not taken from the generated code', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-schemas-'));
  cpSync(schemas, dir, { recursive: true });
  const file = join(dir, 'api', 'chat-completions.request.json');
  const schema = JSON.parse(readFileSync(file, 'utf8')) as { required?: string[] };
  schema.required = [...(schema.required ?? []), 'a_field_added_after_the_build'];
  writeFileSync(file, JSON.stringify(schema));
  const changed = new SchemaRegistry(dir);
  assert.equal(changed.isPrecompiled('chat-completions.request.json'), false);
  assert.equal(changed.isPrecompiled('channels.schema.json'), false, 'one fingerprint covers every shipped file');
  const validate = changed.get('chat-completions.request.json');
  assert.equal(validate({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }), false);
  assert.match(JSON.stringify(validate.errors), /a_field_added_after_the_build/);
});
