// The OpenAPI 3.1 document of a running config: every compiled route as an operation, the schemas they use as
// components. Made from the Runtime alone, so it describes exactly what this instance serves (no admin routes
// without the admin key) and changes with each reload.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Runtime } from '../config/runtime.js';
import type { PolicyOf } from '../pipeline/policy.js';
import { projectRoot } from '../config/load-config.js';
import { SchemaComponents } from './convert-schema.js';
import { ErrorShapes } from './error-shapes.js';
import { operationOf } from './operation.js';
import { securitySchemes } from './security.js';
import { tagOf, tagsOf } from './tags.js';

const version = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** `policyOf`: which policy answers a route (the process's registry, src/policies/index.ts). */
export async function buildDocument(runtime: Runtime, policyOf: PolicyOf): Promise<Record<string, unknown>> {
  const components = new SchemaComponents(runtime.schemas);
  const errors = new ErrorShapes(components);
  await errors.learn(runtime.routes, (r) => tagOf(r, policyOf).name.replace(/[^A-Za-z0-9._-]/g, '-'));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of runtime.routes) {
    const at = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    const op = await operationOf(route, components, errors, policyOf);
    if (!at[method]) { at[method] = op; continue; }
    // Routes sharing a path (each for its own operation, chosen by the model the path names): the first is the
    // operation, the others its alternates, with their own request bodies and answers (their errors in their own
    // shape, whatever the refusal: the model picks the route before anything is refused).
    const first = at[method] as Record<string, unknown>;
    const alternate = { operationId: op.operationId, summary: op.summary, ...(op.requestBody ? { requestBody: op.requestBody } : {}), responses: op.responses };
    first['x-switchyard-alternates'] = [...(first['x-switchyard-alternates'] as unknown[] ?? []), alternate];
    first.description = `${first.description} The same path serves \`${route.id}\` for the models of its operation (${route.operation}).`;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchyard',
      version,
      description: 'One API in front of many generation-model vendors: chat, embeddings, images, video, image-art and music, '
        + 'in the unified format and in vendors\' own. Generated from the running config (routes.yaml and the JSON Schemas of '
        + `schemas/api/), config ${runtime.hash}. Errors are Shape A (\`{"error": {"message", "type", "param", "code"}}\`) unless a `
        + 'route says otherwise; every answer carries its request id in `x-request-id`.',
      'x-config-hash': runtime.hash,
    },
    servers: [{ url: '/' }],
    tags: tagsOf(runtime.routes, policyOf),
    paths,
    components: { schemas: sorted(components.schemas), securitySchemes: securitySchemes(runtime.routes) },
  };
}

const sorted = <T>(o: Record<string, T>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
