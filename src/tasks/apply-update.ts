// Applies a refreshed status to a task; a terminal status settles or refunds its quota exactly once.
import type { Gateway } from '../gateway.js';
import type { UnifiedStatus } from '../config/runtime.js';
import { isFinal, nowSeconds, type TaskRecord } from './task-record.js';

export interface TaskUpdate { status: UnifiedStatus; progress: number; urls: string[]; error?: string; errorCode?: string }

/** `update` undefined means the vendor said something unknown: keep the task as it is, only note the poll. */
export async function applyUpdate(g: Gateway, rec: TaskRecord, update: TaskUpdate | undefined, upstreamStatus?: string): Promise<TaskRecord> {
  if (isFinal(rec.status)) return rec;
  // Another refresh may have finished the task since this copy was read: a final record is never overwritten.
  const current = rec.polls >= 0 ? await g.tasks.get(rec.id) : undefined;
  if (current && isFinal(current.status)) return current;
  const next: TaskRecord = { ...rec, polls: rec.polls + 1, updated_at: nowSeconds(), upstream_status: upstreamStatus ?? rec.upstream_status };
  if (update) {
    // Statuses only move forward: a vendor that regresses (completed → running) is not believed.
    next.status = update.status;
    next.progress = Math.max(rec.progress, update.progress);
    if (update.urls.length) next.result_urls = update.urls;
    if (update.status === 'failed') next.error = { code: update.errorCode ?? 'upstream_failed', message: update.error ?? 'the upstream task failed' };
  }
  if (isFinal(next.status)) await finalize(g, next);
  await g.tasks.save(next);
  if (next.callback && (next.status !== rec.status || next.progress !== rec.progress)) g.callbacks.notify(next.id);
  if (isFinal(next.status)) await g.store.tasks.close(next.id);
  else await g.store.tasks.reschedule(next.id, Date.now() + backoffMs(g, next.polls));
  return next;
}

/** Settles a completed task's reservation or refunds a failed one; the ledger's keys make a repeat a no-op. */
async function finalize(g: Gateway, t: TaskRecord): Promise<void> {
  t.completed_at = nowSeconds();
  // The record (and so the download route) lives for the retention period.
  if (t.status === 'completed') t.expires_at = t.completed_at + g.runtime.tasks.retention_s;
  if (t.quota.state !== 'reserved') return;
  if (t.status === 'completed') {
    await g.store.quota.settle(t.owner.token, t.id, t.quota.reserved, t.quota.reserved, { channel: t.channel });
    t.quota = { ...t.quota, state: 'settled', charged: t.quota.reserved };
  } else {
    await g.store.quota.refund(t.owner.token, t.id, t.quota.reserved, { channel: t.channel });
    t.quota = { ...t.quota, state: 'refunded', charged: 0 };
  }
  g.log.info({ task_id: t.id, status: t.status, token_id: t.owner.token, model: t.model, channel: t.channel, charged: t.quota.charged, error: t.error?.code }, 'task finished');
}

/** Exponential backoff with ±20% jitter so tasks submitted together do not poll together. */
export function backoffMs(g: Gateway, polls: number): number {
  const { poll_base_ms, poll_max_ms } = g.runtime.tasks;
  const base = Math.min(poll_max_ms, poll_base_ms * 2 ** Math.min(polls, 20));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}
