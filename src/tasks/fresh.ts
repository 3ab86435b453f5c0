// A task as it is now: an unfinished one whose record is stale is refreshed from its vendor first.
import type { Gateway } from '../pipeline/gateway.js';
import { isFinal, nowSeconds, type TaskRecord } from '../records/task-record.js';
import { refreshTasks } from './refresh.js';

/** The lease keeps this from racing the poller, here or on another instance; without it the record is as good. */
export async function fresh(g: Gateway, rec: TaskRecord): Promise<TaskRecord> {
  const t = g.runtime.tasks;
  if (isFinal(rec.status) || (nowSeconds() - rec.updated_at) * 1000 < t.refresh_after_ms) return rec;
  const now = Date.now();
  // A lease of its own: an inline refresh must not share the poller's, or both could refresh at once.
  if (!(await g.store.tasks.lease(rec.id, `${g.store.instance}:q:${Math.random().toString(36).slice(2)}`, now, now + t.lease_ms))) return rec;
  const [updated] = await refreshTasks(g, [rec]).catch(() => [rec]);
  return updated ?? rec;
}
