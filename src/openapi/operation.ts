// One route as an OpenAPI operation: id, tag, summary, parameters, body, security, its answer and every error its
// stages can give, each status with the codes that cause it.
import type { CompiledRoute } from '../config/runtime.js';
import type { SchemaComponents } from './convert-schema.js';
import type { ErrorShapes } from './error-shapes.js';
import { answersOf } from './answers.js';
import { parametersOf } from './parameters.js';
import { refusalsOf, relaysVendorErrors, type Refusal } from './refusals.js';
import { requestBodyOf } from './request-body.js';
import { securityOf } from './security.js';
import { tagOf } from './tags.js';
import type { PolicyOf } from '../pipeline/policy.js';

type Json = Record<string, unknown>;

export async function operationOf(route: CompiledRoute, components: SchemaComponents, errors: ErrorShapes, policyOf: PolicyOf): Promise<Json> {
  const responses: Record<string, Json> = {};
  for (const a of await answersOf(route, components)) responses[a.status] = { description: a.description, content: a.content, ...(a.headers && { headers: a.headers }) };
  for (const [status, refusals] of byStatus(refusalsOf(route, policyOf))) {
    const error = errors.bodyOf(route, status);
    const mine = responses[status]; // a status the answer itself uses (a readiness probe's 503)
    const own = (mine?.content as Record<string, Json> | undefined)?.['application/json']?.schema;
    responses[status] = {
      description: [mine?.description, describe(refusals)].filter(Boolean).join(' '),
      content: { 'application/json': { schema: own ? { anyOf: [own, error] } : error } },
      ...(status === 429 || status === 503 ? { headers: { 'Retry-After': { description: 'Seconds to wait, when known.', schema: { type: 'integer' } } } } : {}),
    };
  }
  if (relaysVendorErrors(route, policyOf)) {
    responses.default = route.policy === 'passthrough'
      ? { description: 'The vendor\'s answer with any other status, relayed as it came.', content: { '*/*': { schema: {} } } }
      : { description: 'A vendor\'s own client error, relayed with its status and code (its 5xx become 502).', content: { 'application/json': { schema: errors.bodyOf(route, 400) } } };
  }
  const requestBody = requestBodyOf(route, components, policyOf);
  const parameters = parametersOf(route);
  return {
    operationId: route.id,
    tags: [tagOf(route, policyOf).name],
    summary: summaryOf(route),
    description: descriptionOf(route),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    security: securityOf(route),
    responses,
  };
}

function byStatus(refusals: Refusal[]): Map<number, Refusal[]> {
  const out = new Map<number, Refusal[]>();
  for (const r of refusals) out.set(r.status, [...(out.get(r.status) ?? []), r]);
  return out;
}

const describe = (refusals: Refusal[]) => `Refused: ${refusals.map((r) => `\`${r.code}\``).join(', ')}.`;

/** What the route does, from its policy and what it acts on. */
function summaryOf(r: CompiledRoute): string {
  if (r.task) return `Task ${r.task.action}${r.task.family ? ` (${r.task.family})` : r.task.families ? ` (${r.task.families.join(', ')})` : ''}`;
  if (r.action) return `${r.policy}: ${r.action.replace(/_/g, ' ')}`;
  return `${r.policy}${r.operation !== r.id ? ` (${r.operation})` : ''}`;
}

function descriptionOf(r: CompiledRoute): string {
  const parts = [`Route \`${r.id}\` of routes.yaml, policy \`${r.policy}\`${r.operation !== r.id ? `, operation \`${r.operation}\`` : ''}.`];
  if (r.dialect) parts.push(`Dialect \`${r.dialect.name}\`${r.dialect.description ? `: ${r.dialect.description}` : ''}`);
  if (r.model) parts.push(`Billed and dispatched as model \`${r.model}\`.`);
  if (r.task?.saturatedShape === 'B') parts.push('A saturated group answers 429 in Shape B.');
  if (r.errorType) parts.push(`Every Shape A error is typed \`${r.errorType}\`.`);
  if (r.policy === 'passthrough') parts.push('The query string is forwarded to the vendor as well.');
  if (r.limits.rateLimit) parts.push(`At most ${r.limits.rateLimit.requests} requests per ${r.limits.rateLimit.window_s} s per token.`);
  return parts.join(' ');
}
