// A task the vendor accepted becomes the gateway's: its record is saved whole, then the poller may claim it.
// Used by a submit's answer and by recovery when it finds a cut submit at the vendor.
import type { Gateway } from '../pipeline/gateway.js';
import type { CompiledOperation } from '../config/runtime.js';
import { GatewayError } from '../http/errors.js';
import { isFinal, type TaskRecord } from '../records/task-record.js';
import { normalise } from './status-map.js';
import { applyUpdate } from './apply-update.js';

/**
 * The vendor accepted: the record is saved before the client's answer, so a crash after the answer loses no task.
 * The task's lease is taken first: recovery takes it too before it touches a pending task, so the two never race,
 * and a task recovery already took (this process stalled past the owner timeout and was presumed dead; its money
 * went back) is not started again here. The channel is set last, once the record is whole, so the poller never
 * claims a half-written task.
 */
export async function acceptTask(g: Gateway, op: CompiledOperation, rec: TaskRecord, mapped: Record<string, unknown>): Promise<TaskRecord> {
  const now = Date.now();
  if (!(await g.store.tasks.lease(rec.id, g.store.instance, now, now + g.runtime.tasks.lease_ms))) {
    g.log.error({ task_id: rec.id, channel: rec.channel }, 'a task accepted upstream was already taken back by recovery');
    throw new GatewayError('upstream_error', 'The task could not be recorded; nothing is charged');
  }
  const initial = normalise(op, { ...mapped, status: mapped.status ?? 'queued' });
  const saved = await applyUpdate(g, { ...rec, submitting: undefined, polls: -1 }, initial ?? { status: 'queued', progress: 0, urls: [] },
    mapped.status === undefined ? undefined : String(mapped.status));
  if (!isFinal(saved.status)) await g.store.tasks.setChannel(rec.id, rec.channel);
  return saved;
}
