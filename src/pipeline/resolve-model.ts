// Stage: which model the request names (the route's fixed model, its expression over the body, or `body.model`),
// whether the caller may use it, and its family's own body rules. A follow-up naming one of the caller's tasks
// (`task.refs`) gets the vendor's id in its place and is pinned to the channel that holds that task; one derived from
// a task (`task.source`, task-source.ts) takes that task's model and channel.
import { GatewayError, clip } from '../http/errors.js';
import { describeAjvErrors } from '../config/schema-registry.js';
import type { Gateway } from './gateway.js';
import { queryOf } from './match-route.js';
import { readSource } from './task-source.js';
import { readBatch } from './batch-input.js';
import { checkAccess } from './model-access.js';
import type { Exchange, Inbound, Resolved } from './exchange.js';

/** Throws invalid_request (400), task_not_completed (400), model_not_allowed (403), model_not_found (404), task_not_found (404). */
export async function resolveModel(ex: Exchange, i: Inbound): Promise<Resolved> {
  if (i.route.task?.inputFile) return readBatch(ex, i); // a batch: its model, price and channel are its input file's
  const swapped = await swapRefs(ex.g, i);
  // Copies of the request only where a body changed: most requests have no refs and no source.
  const { body, source } = await readSource(ex, swapped.body === i.body ? i : { ...i, body: swapped.body });
  const pin = source?.channel ?? swapped.pin;
  const model = await pickModel(ex, body === i.body ? i : { ...i, body });
  ex.ctx.model = model;
  if (i.grant?.model && model !== i.grant.model) throw new GatewayError('model_not_allowed', `This client secret is for model ${clip(i.grant.model)} only`);
  const price = checkAccess(ex.g, i.token, model, i.route.operation);
  const family = ex.g.runtime.modelSchemas.get(model);
  if (family && !family(body)) throw new GatewayError('invalid_request', describeAjvErrors(family.errors));
  return { ...i, body, model, price, pin, source };
}

async function pickModel(ex: Exchange, i: Inbound): Promise<string> {
  const { route } = i;
  const m = route.model ?? (route.modelExpr
    ? await route.modelExpr.run(i.body, { params: i.params, query: queryOf(ex.ctx.url) }).catch(() => {
      throw new GatewayError('invalid_request', 'The model cannot be determined from this request (check the types of its fields)');
    })
    : i.body.model);
  if (typeof m !== 'string' || !m) throw new GatewayError('invalid_request', '`model` is required');
  return m;
}

/** Swaps the caller's task ids in `refs` fields for the vendor's, and pins the channel that holds them. */
async function swapRefs(g: Gateway, i: Inbound): Promise<{ body: Record<string, unknown>; pin?: string }> {
  const refs = i.route.task?.refs ?? [];
  if (!refs.length) return { body: i.body };
  let pin: string | undefined;
  const body = { ...i.body };
  for (const field of refs) {
    const ref = i.body[field];
    if (ref === undefined || ref === null || ref === '') continue;
    if (typeof ref !== 'string') throw new GatewayError('invalid_request', `\`${field}\` must be a task id string`);
    const rec = await g.tasks.get(ref);
    if (!rec || rec.owner.user !== i.token.user || !rec.upstream_id) throw new GatewayError('task_not_found', `\`${field}\`: task ${clip(ref)} not found`);
    body[field] = rec.upstream_id;
    pin = rec.channel;
  }
  return { body, pin };
}
