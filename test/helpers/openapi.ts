// OpenAPI test helpers: the document's component schemas compiled with ajv (JSON Schema 2020-12, strict), and the
// schema an operation declares for one status and media type, ready to validate a real answer.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
type Json = Record<string, any>;

/** Every key used anywhere in a value, for the `x-` extension keywords ajv must be told about. */
function keysOf(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) v.forEach((x) => keysOf(x, out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { out.add(k); keysOf(x, out); }
  return out;
}

// The document refers to `#/components/schemas/X`; ajv gets the components as one schema's $defs.
const rebase = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll('"#/components/schemas/', '"components#/$defs/'));

export class DocumentSchemas {
  readonly ajv: Ajv2020;

  constructor(readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addFormat('json-string', true);
    // Extensions are annotations: declared, so strict mode accepts them and nothing checks them.
    this.ajv.addVocabulary([...keysOf(doc.components.schemas)].filter((k) => k.startsWith('x-')));
    this.ajv.addSchema({ $id: 'components', $defs: rebase(doc.components.schemas) });
  }

  /** Compiles every component (strict mode fails on anything JSON Schema 2020-12 does not allow). */
  compileAll(): number {
    const names = Object.keys(this.doc.components.schemas);
    for (const n of names) this.ajv.compile({ $ref: `components#/$defs/${n}` });
    return names.length;
  }

  component(name: string): ValidateFunction {
    return this.ajv.compile({ $ref: `components#/$defs/${name}` });
  }

  /** The schema an operation declares for `status` under `media` (or its `x-itemSchema`, one stream event). */
  declared(path: string, method: string, status: number | string, media = 'application/json', item = false): ValidateFunction {
    const content = this.doc.paths[path]?.[method]?.responses?.[String(status)]?.content?.[media];
    if (!content) throw new Error(`${method} ${path} declares no ${status} ${media} answer`);
    return this.ajv.compile(rebase(item ? content['x-itemSchema'] : content.schema));
  }
}

/** Validates and returns ajv's errors as text for the assertion message. */
export function check(v: ValidateFunction, value: unknown): string | undefined {
  return v(value) ? undefined : JSON.stringify(v.errors).slice(0, 1500);
}
