// A route's request body: its `body_schema` as JSON (and as multipart/form-data where the route takes uploads), a
// JSON object where the policy reads one without a schema, the raw bytes a passthrough route forwards.
import type { CompiledRoute } from '../config/runtime.js';
import type { PolicyOf } from '../pipeline/policy.js';
import type { SchemaComponents } from './convert-schema.js';

export function requestBodyOf(route: CompiledRoute, components: SchemaComponents, policyOf: PolicyOf): Record<string, unknown> | undefined {
  const limit = `At most ${route.limits.maxBodyBytes} bytes, nested at most ${route.limits.maxJsonDepth} levels.`;
  if (route.bodySchema) {
    const schema = components.ref(route.bodySchema);
    const multipart = route.multipart
      ? { 'multipart/form-data': { schema, 'x-files': 'Each file part becomes {filename, content_type, size, data (base64)} under its field name; files are spooled to disk, not held in memory.' } }
      : {};
    return { required: true, description: `Checked against ${route.bodySchema} before anything else. ${limit}`, content: { 'application/json': { schema }, ...multipart } };
  }
  const p = policyOf(route);
  const readsJson = (p.kind === 'proxied' && p.policy.body === 'json') || route.task?.action === 'list' || route.policy === 'count_tokens';
  if (readsJson) return { required: true, description: `A JSON object. ${limit}`, content: { 'application/json': { schema: { type: 'object' } } } };
  if (p.kind === 'proxied') return { required: false, description: `Forwarded to the vendor as it is, with its content type. At most ${route.limits.maxBodyBytes} bytes.`, content: { '*/*': { schema: {} } } };
  return undefined;
}
