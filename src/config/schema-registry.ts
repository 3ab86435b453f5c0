// One ajv instance holding every schema under schemas/, compiled once at load. The shipped schemas' validators are
// also generated at build time (precompile-schemas.ts): a process loads them instead of compiling them again, which
// took about half of a start's CPU. They are used only when the files read now are the ones they were made from.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { pointerToField } from './diagnostics.js';
import { imageLimitsKeyword } from './image-limits.js';
import { fingerprintKey, schemaFingerprint, precompiledFile, type PrecompiledModule } from './schema-fingerprint.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** A string that must itself hold JSON (vendor fields such as meta_data). Self-contained: precompiled code embeds it. */
export const jsonString = (v: string) => { try { JSON.parse(v); return true; } catch { return false; } };

/** The one ajv set-up, for runtime compiles and for the generated validators alike. */
export function newAjv(code?: Options['code']): Ajv {
  // strictRequired is off: anyOf branches name required fields declared one level up, which is valid JSON Schema.
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, code });
  addFormats(ajv);
  // json-schema-to-typescript keywords: declared so strict mode accepts them.
  ajv.addVocabulary(['tsType', 'tsEnumNames']);
  ajv.addKeyword(imageLimitsKeyword);
  ajv.addFormat('json-string', jsonString);
  return ajv;
}

/** The schema directories under schemas/, in the order their files are added. */
export const schemaDirs = (schemasDir: string) => ['config', 'api', 'transform'].map((d) => join(schemasDir, d));

export class SchemaRegistry {
  readonly ajv: Ajv;
  /** Each schema as its file holds it, by $id: what the API document (src/openapi/) converts. */
  readonly sources = new Map<string, Record<string, unknown>>();
  private readonly precompiled: Record<string, ValidateFunction | undefined>;
  /** `extraApiDirs`: more request schemas (an operator's), added after the shipped ones; a clashing `$id` is an error. */
  constructor(readonly schemasDir: string, extraApiDirs: string[] = []) {
    this.ajv = newAjv();
    const ids = new Set<string>();
    const shipped: [string, string][] = [];
    // transform/: what each kind of JSONata slot must produce (golden fixtures are checked against them).
    for (const dir of [...schemaDirs(schemasDir), ...extraApiDirs]) {
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
        const text = readFileSync(join(dir, f), 'utf8');
        if (!extraApiDirs.includes(dir)) shipped.push([f, text]);
        const schema = JSON.parse(text) as { $id?: string };
        schema.$id ??= f; // a schema is named by its file, as routes.yaml refers to it
        if (ids.has(schema.$id)) throw new Error(`${join(dir, f)}: a schema named "${schema.$id}" already exists`);
        ids.add(schema.$id);
        this.sources.set(schema.$id, schema);
        this.ajv.addSchema(schema);
      }
    }
    this.precompiled = loadPrecompiled(schemaFingerprint(shipped));
  }

  /** Whether a schema exists and compiles; the reason when it does not. */
  problem(id: string): string | undefined {
    try {
      return this.precompiled[id] || this.ajv.getSchema(id) ? undefined : `no schema "${id}" in schemas/api/`;
    } catch (err) {
      return `schema "${id}" does not compile: ${(err as Error).message}`;
    }
  }

  /** Whether a schema's validator is the one generated at build time (test/precompiled-schemas.test.ts). */
  isPrecompiled(id: string): boolean {
    return this.precompiled[id] !== undefined;
  }

  /** The compiled validator of a schema by its $id (its file name). */
  get(id: string): ValidateFunction {
    const pre = this.precompiled[id];
    // check.ts reads a validator's schema to explain an if/then finding; a generated one does not carry it.
    if (pre) pre.schema ??= this.sources.get(id)!;
    const v = pre ?? this.ajv.getSchema(id);
    if (!v) throw new Error(`unknown schema ${id}`);
    return v;
  }
}

/** The generated validators, when they were made from these very files (else none: each is compiled when asked). */
function loadPrecompiled(fingerprint: string): Record<string, ValidateFunction | undefined> {
  let mod: PrecompiledModule;
  try {
    mod = createRequire(import.meta.url)(`./${precompiledFile}`) as PrecompiledModule;
  } catch (err) {
    if ((err as { code?: string }).code === 'MODULE_NOT_FOUND') return {};
    throw err;
  }
  return mod[fingerprintKey] === fingerprint ? mod as Record<string, ValidateFunction | undefined> : {};
}

/** The most specific ajv error as one sentence naming the field. */
export function describeAjvErrors(errors: ErrorObject[] | null | undefined, root = 'body'): string {
  if (!errors?.length) return `${root} is invalid`;
  const concrete = errors.filter((e) => !['anyOf', 'oneOf', 'if'].includes(e.keyword));
  const pool = concrete.length ? concrete : errors;
  const best = pool.reduce((a, b) => (b.instancePath.length > a.instancePath.length ? b : a));
  return describeOne(best, root);
}

export function describeOne(e: ErrorObject, root = 'body'): string {
  const field = pointerToField(e.instancePath);
  // Field names may be the client's own (an unexpected property): quoted, never at full length.
  const name = (f: string) => (f ? `\`${f.length > 100 ? `${f.slice(0, 100)}…` : f}\`` : root);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${name(field ? `${field}.${p.missingProperty}` : String(p.missingProperty))} is required`;
    case 'additionalProperties':
      return `${name(field ? `${field}.${p.additionalProperty}` : String(p.additionalProperty))} is not allowed`;
    case 'enum':
      return `${name(field)} must be one of: ${(p.allowedValues as unknown[]).map((v) => (v === null ? 'null' : String(v))).join(', ')}`;
    case 'format':
      return p.format === 'json-string' ? `${name(field)} must be a string holding JSON` : `${name(field)} ${e.message}`;
    case 'const':
      return `${name(field)} must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return `${name(field)} ${e.message ?? 'is invalid'}`;
  }
}
