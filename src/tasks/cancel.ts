// Cancels an unfinished task at its vendor, for its owner's delete: under the task's lease (so no poll races it),
// a refresh, then the operation's `cancel` call; accepted, the task fails and its reservation is refunded
// (applyUpdate, once). A vendor that refuses has usually started or finished the task: it is refreshed again.
import type { Gateway } from '../pipeline/gateway.js';
import { GatewayError, clip } from '../http/errors.js';
import { fetchUpstream } from '../transport/upstream-fetch.js';
import { applyUpdate } from './apply-update.js';
import { refreshTasks } from './refresh.js';
import { isFinal, taskPath, type TaskRecord } from '../records/task-record.js';
import { callSpan, type RequestTrace } from '../tracing/tracing.js';

/** How long a delete waits for a poll of the same task to finish before answering task_busy. */
const leaseWaitMs = 2000;

/** The task as it ends: `cancelled` when the vendor accepted the cancel, else finished on its own meanwhile. */
export interface Cancelled { rec: TaskRecord; cancelled: boolean }

/** Throws invalid_request (400) while the task runs and its vendor cannot or will not cancel it, upstream_error (502), task_busy (409). */
export async function cancelTask(g: Gateway, rec: TaskRecord, trace?: RequestTrace): Promise<Cancelled> {
  const op = g.runtime.channel(rec.channel)?.operations.get(rec.operation);
  if (!op?.cancel) throw stillRunning(rec, 'its vendor cannot cancel it').because(`operation ${rec.operation} of channel ${rec.channel} has no \`cancel\``);
  if (!op.cancel.endsTask) throw stillRunning(rec, 'its vendor ends a cancelled task only later').because(`the cancel of operation ${rec.operation} of channel ${rec.channel} has \`ends_task: false\``);
  const owner = `${g.store.instance}:c:${Math.random().toString(36).slice(2)}`;
  // First where the vendor stands: some vendors' one call cancels a queued task but deletes a finished one, and a
  // task that finished unseen must keep its charge, not be refunded as cancelled. The refresh releases the lease.
  const seen = await leased(g, rec.id, owner);
  const [fresh] = isFinal(seen.status) ? [seen] : await refreshTasks(g, [seen]);
  if (fresh && isFinal(fresh.status)) return { rec: fresh, cancelled: false };
  const current = await leased(g, rec.id, owner);
  if (isFinal(current.status)) return { rec: current, cancelled: false };
  const channel = g.runtime.channel(current.channel)!;
  let status: number;
  try {
    status = (await fetchUpstream(channel, { method: op.cancel.method, path: taskPath(op.cancel.path, current), span: callSpan(trace, channel, 'cancel', current.operation, current.upstream_model) })).status;
  } catch {
    status = 0;
  }
  if (status >= 200 && status < 300) {
    const failed = await applyUpdate(g, current, {
      status: 'failed', progress: 100, urls: [], errorCode: 'cancelled', error: 'cancelled by its owner before it finished; nothing is charged',
    });
    return { rec: failed, cancelled: true };
  }
  if (status === 0 || status === 429 || status >= 500) {
    await g.store.tasks.reschedule(current.id, Date.now()); // releases the lease
    throw new GatewayError('upstream_error', `The vendor could not be asked to cancel the task (${status ? `HTTP ${status}` : 'no answer'}); nothing changed, retry`)
      .because(`the cancel call of channel ${current.channel} ${status ? `answered HTTP ${status}` : 'got no answer'}`);
  }
  const [now] = await refreshTasks(g, [current]); // releases the lease whatever it finds
  if (now && isFinal(now.status)) return { rec: now, cancelled: false };
  throw stillRunning(now ?? current, 'its vendor refused to cancel it (it has started)').because(`the cancel call of channel ${current.channel} answered HTTP ${status}`);
}

/**
 * Asks the vendor to cancel a task it goes on to end itself (`cancel.ends_task: false`, a batch): under the task's
 * lease, the cancel call, then a refresh, so the answer shows where the vendor stands (cancelling). The task stays
 * unfinished and reserved; it is settled, for what it ran, when the vendor ends it. Throws invalid_request (400) when the
 * vendor refuses while it runs, upstream_error (502) when it cannot be asked, task_busy (409).
 */
export async function requestCancel(g: Gateway, rec: TaskRecord, trace?: RequestTrace): Promise<TaskRecord> {
  const op = g.runtime.channel(rec.channel)?.operations.get(rec.operation);
  if (!op?.cancel) throw stillRunning(rec, 'its vendor cannot cancel it').because(`operation ${rec.operation} of channel ${rec.channel} has no \`cancel\``);
  const current = await leased(g, rec.id, `${g.store.instance}:c:${Math.random().toString(36).slice(2)}`);
  if (isFinal(current.status)) return current;
  const channel = g.runtime.channel(current.channel)!;
  const status = await fetchUpstream(channel, { method: op.cancel.method, path: taskPath(op.cancel.path, current), span: callSpan(trace, channel, 'cancel', current.operation, current.upstream_model) }).then((r) => r.status, () => 0);
  if (status === 0 || status === 429 || status >= 500) {
    await g.store.tasks.reschedule(current.id, Date.now()); // releases the lease
    throw new GatewayError('upstream_error', `The vendor could not be asked to cancel the task (${status ? `HTTP ${status}` : 'no answer'}); nothing changed, retry`)
      .because(`the cancel call of channel ${current.channel} ${status ? `answered HTTP ${status}` : 'got no answer'}`);
  }
  const [now] = await refreshTasks(g, [current]); // releases the lease whatever it finds
  if (status >= 300 && now && !isFinal(now.status)) {
    throw stillRunning(now, 'its vendor refused to cancel it').because(`the cancel call of channel ${current.channel} answered HTTP ${status}`);
  }
  return now ?? current;
}

/** The task's lease and its record as of then; a task that finished meanwhile has no lease left to take. */
async function leased(g: Gateway, id: string, owner: string): Promise<TaskRecord> {
  const until = Date.now() + leaseWaitMs;
  for (;;) {
    const now = Date.now();
    const got = await g.store.tasks.lease(id, owner, now, now + g.runtime.tasks.lease_ms);
    const rec = await g.tasks.get(id);
    if (!rec) throw new GatewayError('task_not_found', `Task ${clip(id)} not found`);
    if (got || isFinal(rec.status)) return rec;
    if (now > until) throw new GatewayError('task_busy', `Task ${clip(id)} is being updated right now; retry in a moment`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const stillRunning = (rec: TaskRecord, why: string) =>
  new GatewayError('invalid_request', `Task ${rec.id} is still in progress (${rec.status}) and ${why}; delete it once it has finished`);
