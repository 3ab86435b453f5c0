// One ajv instance holding every schema under schemas/, compiled once at load.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { pointerToField } from './diagnostics.js';
import { imageLimitsKeyword } from './image-limits.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export class SchemaRegistry {
  readonly ajv: Ajv;
  /** Each schema as its file holds it, by $id: what the API document (src/openapi/) converts. */
  readonly sources = new Map<string, Record<string, unknown>>();
  /** `extraApiDirs`: more request schemas (an operator's), added after the shipped ones; a clashing `$id` is an error. */
  constructor(readonly schemasDir: string, extraApiDirs: string[] = []) {
    // strictRequired is off: anyOf branches name required fields declared one level up, which is valid JSON Schema.
    this.ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats(this.ajv);
    // json-schema-to-typescript keywords: declared so strict mode accepts them.
    this.ajv.addVocabulary(['tsType', 'tsEnumNames']);
    this.ajv.addKeyword(imageLimitsKeyword);
    // A string that must itself hold JSON (vendor fields such as meta_data).
    this.ajv.addFormat('json-string', (v: string) => { try { JSON.parse(v); return true; } catch { return false; } });
    const ids = new Set<string>();
    // transform/: what each kind of JSONata slot must produce (golden fixtures are checked against them).
    for (const dir of [join(schemasDir, 'config'), join(schemasDir, 'api'), join(schemasDir, 'transform'), ...extraApiDirs]) {
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
        const schema = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { $id?: string };
        schema.$id ??= f; // a schema is named by its file, as routes.yaml refers to it
        if (ids.has(schema.$id)) throw new Error(`${join(dir, f)}: a schema named "${schema.$id}" already exists`);
        ids.add(schema.$id);
        this.sources.set(schema.$id, schema);
        this.ajv.addSchema(schema);
      }
    }
  }

  /** Whether a schema exists and compiles; the reason when it does not. */
  problem(id: string): string | undefined {
    try {
      return this.ajv.getSchema(id) ? undefined : `no schema "${id}" in schemas/api/`;
    } catch (err) {
      return `schema "${id}" does not compile: ${(err as Error).message}`;
    }
  }

  /** The compiled validator of a schema by its $id (its file name). */
  get(id: string): ValidateFunction {
    const v = this.ajv.getSchema(id);
    if (!v) throw new Error(`unknown schema ${id}`);
    return v;
  }
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
      return `${name(field)} must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'format':
      return p.format === 'json-string' ? `${name(field)} must be a string holding JSON` : `${name(field)} ${e.message}`;
    case 'const':
      return `${name(field)} must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return `${name(field)} ${e.message ?? 'is invalid'}`;
  }
}
