// Request and response schemas (JSON Schema draft-07, one file each) as OpenAPI 3.1 components: each file and each
// of its `definitions` becomes one entry of `components/schemas`, and every `$ref` (same file, another file, by $id)
// a reference to that entry. Only the schemas the document uses are converted, with what they refer to.
import type { SchemaRegistry } from '../config/schema-registry.js';

type Node = Record<string, unknown>;

// Keywords whose value is a schema, a list of schemas, or a map of name → schema.
const oneSchema = new Set(['additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']);
const schemaList = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const schemaMap = new Set(['properties', 'patternProperties', 'dependentSchemas']);
// Keywords JSON Schema 2020-12 and OpenAPI 3.1 know, kept as they are. Anything else (e.g. `imageLimits`, `tsType`)
// becomes an `x-` extension, which OpenAPI tools and validators leave alone.
const known = new Set(['type', 'enum', 'const', 'required', 'title', 'description', 'default', 'examples', 'format', '$comment',
  'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems',
  'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties', 'dependentRequired', 'readOnly',
  'writeOnly', 'deprecated', 'contentMediaType', 'contentEncoding', 'contentSchema', 'discriminator', 'xml', 'externalDocs', 'example']);

/** The `#/components/schemas/…` reference a converted schema is known by. */
export const componentRef = (name: string) => `#/components/schemas/${name}`;

export class SchemaComponents {
  readonly schemas: Record<string, Node> = {};
  private readonly done = new Set<string>();

  constructor(private readonly registry: SchemaRegistry) {}

  /** A reference to the schema with this $id (a file name), converting it and what it refers to on first use. */
  ref(id: string): { $ref: string } {
    this.convertFile(id);
    return { $ref: componentRef(nameOf(id)) };
  }

  /** Adds a schema made elsewhere (an inferred error shape); throws if the name is taken by another schema. */
  add(name: string, schema: Node): { $ref: string } {
    const had = this.schemas[name];
    if (had && JSON.stringify(had) !== JSON.stringify(schema)) throw new Error(`two different schemas are named ${name}`);
    this.schemas[name] = schema;
    return { $ref: componentRef(name) };
  }

  private convertFile(id: string): void {
    if (this.done.has(id)) return;
    this.done.add(id);
    const source = this.registry.sources.get(id);
    if (!source) throw new Error(`no schema "${id}"`);
    const { $schema: _dialect, $id: _id, definitions, $defs, ...body } = source;
    const base = nameOf(id);
    for (const [def, schema] of Object.entries({ ...(definitions as Node), ...($defs as Node) })) {
      this.put(`${base}.${def}`, this.convert(schema, id));
    }
    this.put(base, this.convert(body, id));
  }

  private put(name: string, schema: unknown): void {
    if (this.schemas[name]) throw new Error(`two schemas are named ${name} (a file and another file's definition)`);
    this.schemas[name] = schema as Node;
  }

  /** One schema node, within the file `id` (its refs are relative to it). */
  private convert(node: unknown, id: string): unknown {
    if (typeof node === 'boolean') return node;
    if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
    const out: Node = {};
    const n = node as Node;
    for (const [k, v] of Object.entries(n)) {
      if (k === '$ref' && typeof v === 'string') out.$ref = this.refTo(v, id);
      else if (k === 'items') Object.assign(out, Array.isArray(v) ? { prefixItems: v.map((s) => this.convert(s, id)) } : { items: this.convert(v, id) });
      else if (k === 'additionalItems') out[Array.isArray(n.items) ? 'items' : 'x-additionalItems'] = this.convert(v, id);
      else if (k === 'dependencies') Object.assign(out, this.dependencies(v as Node, id));
      else if (k === 'definitions' || k === '$defs') out.$defs = mapValues(v as Node, (s) => this.convert(s, id));
      else if (oneSchema.has(k)) out[k] = this.convert(v, id);
      else if (schemaList.has(k)) out[k] = (v as unknown[]).map((s) => this.convert(s, id));
      else if (schemaMap.has(k)) out[k] = mapValues(v as Node, (s) => this.convert(s, id));
      else out[known.has(k) || k.startsWith('x-') ? k : `x-${k}`] = v;
    }
    return out;
  }

  /** draft-07 `dependencies`: lists of names became `dependentRequired`, schemas `dependentSchemas`. */
  private dependencies(deps: Node, id: string): Node {
    const required = Object.entries(deps).filter(([, v]) => Array.isArray(v));
    const schemas = Object.entries(deps).filter(([, v]) => !Array.isArray(v));
    return {
      ...(required.length ? { dependentRequired: Object.fromEntries(required) } : {}),
      ...(schemas.length ? { dependentSchemas: Object.fromEntries(schemas.map(([k, v]) => [k, this.convert(v, id)])) } : {}),
    };
  }

  /** `other.json#/definitions/X`, `#/definitions/X` or `other.json`, seen from file `id` → the component's ref. */
  private refTo(ref: string, id: string): string {
    const [uri, pointer = ''] = ref.split('#');
    const target = uri ? resolveId(uri, id) : id;
    this.convertFile(target);
    const path = pointer.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const base = nameOf(target);
    if ((path[0] === 'definitions' || path[0] === '$defs') && path[1]) return componentRef([`${base}.${path[1]}`, ...rest(path.slice(2))].join('/'));
    return componentRef([base, ...rest(path)].join('/'));
  }
}

/** Pointer segments below a component, as they are named after conversion. */
const rest = (path: string[]) => path.map((s) => (s === 'definitions' ? '$defs' : s.replace(/~/g, '~0').replace(/\//g, '~1')));

const mapValues = (o: Node, f: (v: unknown) => unknown): Node => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

/** A `$ref`'s file part resolved against the referring schema's $id, as ajv resolves it (ids may be relative names). */
function resolveId(uri: string, from: string): string {
  const base = 'schema://local/';
  const resolved = new URL(uri, new URL(from, base)).href;
  return resolved.startsWith(base) ? resolved.slice(base.length) : resolved;
}

/** The component name of a schema file: its $id without `.json`, in the characters OpenAPI allows in names. */
export function nameOf(id: string): string {
  const last = id.replace(/[?#].*$/, '').split('/').filter(Boolean).at(-1) ?? id;
  return last.replace(/\.json$/, '').replace(/[^A-Za-z0-9._-]/g, '_');
}
