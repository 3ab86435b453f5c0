// Policy `task`, action `delete`: the caller's task is removed, answered with the route's `answer` over it. A
// finished task keeps its money as it is (charged if completed, refunded if failed) and its result is deleted at
// the vendor where the operation says how; an unfinished one is first cancelled at the vendor (tasks/cancel.ts),
// which fails and refunds it, or the delete is refused while it runs.
import { GatewayError } from '../http/errors.js';
import { baseUrlOf } from '../http/base-url.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';
import type { Gateway } from '../pipeline/gateway.js';
import { answerTask } from '../tasks/answer.js';
import { cancelTask } from '../tasks/cancel.js';
import { fetchUpstream } from '../transport/upstream-fetch.js';
import { isFinal, taskPath, type TaskRecord } from '../records/task-record.js';
import { ownTask } from '../pipeline/own-records.js';
import { callSpan, type RequestTrace } from '../tracing/tracing.js';

export async function deleteTask(ex: Exchange, c: Caller): Promise<void> {
  const { g } = ex;
  let rec = await ownTask(ex, c, c.params.id);
  let cancelled = false;
  if (!isFinal(rec.status)) ({ rec, cancelled } = await cancelTask(g, rec, ex.ctx.trace));
  ex.ctx.channel = rec.channel;
  // A cancel disposed of the vendor's task already; a finished one's result is deleted there.
  if (!cancelled) await deleteAtVendor(g, rec, ex.ctx.trace);
  await g.tasks.delete(rec.id);
  g.log.info({ task_id: rec.id, token_id: c.token.id, status: rec.status, cancelled, charged: rec.quota.charged }, 'task deleted');
  await answerTask(g, c.route, rec, ex.res, baseUrlOf(ex.req));
}

/**
 * The operation's `delete` call, where it has one. No answer or a server error keeps the record (502: the client
 * retries); a 404 means already gone; any other refusal is logged and the record goes anyway (the vendor will not
 * delete it, and the owner's wish stands where the gateway can honour it).
 */
async function deleteAtVendor(g: Gateway, rec: TaskRecord, trace: RequestTrace | undefined): Promise<void> {
  const channel = g.runtime.channel(rec.channel);
  const call = channel?.operations.get(rec.operation)?.delete;
  if (!channel || !call || !rec.upstream_id) return;
  const status = await fetchUpstream(channel, { method: call.method, path: taskPath(call.path, rec), span: callSpan(trace, channel, 'delete', rec.operation, rec.upstream_model) }).then((r) => r.status, () => 0);
  if (status === 0 || status === 429 || status >= 500) {
    throw new GatewayError('upstream_error', `The vendor could not delete the task's result (${status ? `HTTP ${status}` : 'no answer'}); nothing was deleted, retry`);
  }
  if (status >= 300 && status !== 404) g.log.warn({ task_id: rec.id, channel: channel.id, upstream_status: status }, 'the vendor refused to delete a finished task\'s result');
}
