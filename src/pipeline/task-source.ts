// Stage helper: a submit derived from one of the caller's finished tasks (route `task.source`, e.g. a remix). The
// source is found as a query finds it (another user's is 404), must be completed, and gives the new task its model,
// seconds and size (so the same price) and its channel, whose operation path gets `{source_upstream_id}`.
import { GatewayError } from '../http/errors.js';
import { ownTask } from './own-records.js';
import type { Exchange, Inbound, TaskSource } from './exchange.js';

/** Throws task_not_found (404), task_not_completed (400), invalid_request (400) when the source's vendor lacks the operation. */
export async function readSource(ex: Exchange, i: Inbound): Promise<{ body: Record<string, unknown>; source?: TaskSource }> {
  const param = i.route.task?.source;
  if (!param) return { body: i.body };
  const rec = await ownTask(ex, i, i.params[param]);
  if (rec.status !== 'completed') {
    throw new GatewayError('task_not_completed', `Task ${rec.id} is not completed (status: ${rec.status}); only a completed task can be the source of this request`);
  }
  const channel = ex.g.runtime.channel(rec.channel);
  if (!channel?.enabled || !channel.operations.has(i.route.operation) || !rec.upstream_id) {
    throw new GatewayError('invalid_request', `Task ${rec.id} (model ${rec.model}) cannot be the source of this request: its vendor does not offer it (operation ${i.route.operation})`)
      .because(!channel?.enabled ? `channel ${rec.channel} is disabled or gone` : !rec.upstream_id ? 'the source task has no vendor id' : `channel ${rec.channel} has no operation ${i.route.operation}`);
  }
  const { seconds, size } = rec.input;
  const body = { ...i.body, model: rec.model, ...(seconds !== undefined ? { seconds } : {}), ...(size !== undefined ? { size } : {}) };
  return { body, source: { id: rec.id, upstreamId: rec.upstream_id, channel: rec.channel } };
}
