// The body of a route's errors: Shape A, Shape B for a saturated `saturated_shape: B` task route, or the family's
// own shape where the route has `error_answer` or a dialect with `error` (src/server.ts inFamilyShape). A family's
// shape is read off its transform, run over every catalogued error once per config.
import type { CompiledRoute } from '../config/runtime.js';
import { catalog } from '../http/errors.js';
import type { Transform } from '../transform/compile-transform.js';
import type { SchemaComponents } from './convert-schema.js';
import { inferSchema } from './infer-schema.js';

type Schema = Record<string, unknown>;

export class ErrorShapes {
  private readonly families = new Map<string, { $ref: string }>();

  constructor(private readonly components: SchemaComponents) {}

  get shapeA() { return this.components.ref('error-a.response.json'); }
  get shapeB() { return this.components.ref('error-b.response.json'); }

  /** Reads the family shape of every route that has one; `family` names a shape (e.g. the route's tag). */
  async learn(routes: CompiledRoute[], family: (r: CompiledRoute) => string): Promise<void> {
    for (const r of routes) {
      if (!r.errorAnswer || this.families.has(r.errorAnswer.source)) continue;
      const own = r.dialect?.error === r.errorAnswer ? r.dialect.name : family(r);
      const taken = Object.keys(this.components.schemas).includes(`${own}.error`);
      const schema = await shapeOf(r.errorAnswer, r.errorType, own);
      if (schema) this.families.set(r.errorAnswer.source, this.components.add(taken ? `${r.id}.error` : `${own}.error`, schema));
    }
  }

  /** The schema of an error with this status on the route. */
  bodyOf(route: CompiledRoute, status: number): Schema {
    const family = route.errorAnswer && this.families.get(route.errorAnswer.source);
    // Shape A stays possible: errors before the route is known (slow headers, too many connections), or a
    // transform that fails, answer in it.
    if (family) return { anyOf: [family, this.shapeA] };
    if (status === 429 && route.task?.saturatedShape === 'B') return this.shapeB;
    return this.shapeA;
  }
}

/** What the transform makes of every catalogued error and of a vendor's own relayed one; nothing if it never answers. */
async function shapeOf(t: Transform, errorType: string | undefined, family: string): Promise<Schema | undefined> {
  const cases = [
    ...Object.entries(catalog).map(([code, e]) => ({ status: e.status, code, type: errorType ?? e.type, message: e.message })),
    { status: 422, code: 'vendor_code', type: 'upstream_error', message: 'A vendor\'s own refusal' },
  ];
  const samples: unknown[] = [];
  for (const c of cases) {
    const out = await t.run({}, { ...c, message: `${c.message} (request id: req_0)` }).catch(() => undefined);
    if (out !== undefined) samples.push(JSON.parse(JSON.stringify(out)));
  }
  if (!samples.length) return undefined;
  return {
    description: `The error body of the ${family} routes, in their own shape (read off the route's error transform over every catalogued error).`,
    ...inferSchema(samples),
  };
}
