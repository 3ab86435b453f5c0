// Applies a refreshed status to a task; a terminal status settles or refunds its quota exactly once.
import { levelsOfTask, refundLevels, settleLevels } from '../accounts/level-moves.js';
import type { Gateway } from '../pipeline/gateway.js';
import type { UnifiedStatus } from '../config/runtime.js';
import { isFinal, nowSeconds, type TaskRecord } from '../records/task-record.js';
import { taskRecord } from '../request-log/records.js';
import type { Usage } from '../transform/usage.js';
import { chargeOf } from '../billing/price.js';
import { classTags, tokenClasses } from '../billing/token-classes.js';
import type { ResultsRead } from './results.js';

/**
 * `usage` and `vendorCharge`: what the vendor reports the task used and charged, when it says (status-map.ts);
 * `charge`: what its result files' lines add up to, when its operation has `results` (results.ts).
 */
export interface TaskUpdate {
  status: UnifiedStatus; progress: number; urls: string[]; error?: string; errorCode?: string; usage?: Usage; vendorCharge?: number;
  charge?: ResultsRead['charge'];
}

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
  if (isFinal(next.status)) await finalize(g, next, update);
  await g.tasks.save(next);
  if (next.callback && (next.status !== rec.status || next.progress !== rec.progress)) g.callbacks.notify(next.id);
  if (isFinal(next.status)) await g.store.tasks.close(next.id);
  else await g.store.tasks.reschedule(next.id, Date.now() + backoffMs(g, next.polls));
  return next;
}

/**
 * Settles a completed task or refunds a failed one; the ledger's keys make a repeat a no-op. A vendor that reports
 * what the task used (tokens, seconds) is charged from it at the price the task was sold at, never above its
 * reservation; one that reports nothing is charged the reservation, the price of what was asked.
 */
async function finalize(g: Gateway, t: TaskRecord, update: TaskUpdate | undefined): Promise<void> {
  t.completed_at = nowSeconds();
  // The record (and so the download route) lives for the retention period.
  if (t.status === 'completed') t.expires_at = t.completed_at + g.runtime.tasks.retention_s;
  if (t.quota.state !== 'reserved') return;
  if (t.status === 'completed') {
    const bill = taskCharge(t, update);
    const settled = await settleLevels(g.store.quota, levelsOfTask(t.owner.token, t.id, t.quota.levels), t.quota.reserved, bill.actual, bill.tags);
    t.quota = { ...t.quota, state: 'settled', charged: settled.charged, ...bill.kept };
  } else {
    await refundLevels(g.store.quota, levelsOfTask(t.owner.token, t.id, t.quota.levels), t.quota.reserved, { channel: t.channel });
    t.quota = { ...t.quota, state: 'refunded', charged: 0 };
  }
  g.log.info({ task_id: t.id, status: t.status, token_id: t.owner.token, model: t.model, channel: t.channel, charged: t.quota.charged, error: t.error?.code }, 'task finished');
  g.requestLog?.add(taskRecord(t));
}

/** What a completed task is charged, its lines, and the vendor's own figure converted to units. */
function taskCharge(t: TaskRecord, update: TaskUpdate | undefined) {
  const q = t.quota;
  if (update?.charge) return resultsCharge(t, update.charge);
  const usage = update?.usage;
  // Without usage the lines are those of what was asked: the reservation, line by line.
  const c = q.price ? chargeOf(q.price, usage, { units: q.units ?? 1, seconds: q.seconds }) : undefined;
  const vendor = update?.vendorCharge !== undefined && q.vendor_unit ? Math.round(update.vendorCharge * q.vendor_unit) : undefined;
  const tokens = usage ? { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, ...classTags(tokenClasses(usage)) } : {};
  return {
    actual: c && usage ? c.total : q.reserved,
    tags: { channel: t.channel, ...tokens, ...(vendor !== undefined && { vendor_charged: vendor }) },
    kept: { ...(c && { lines: c.lines }), ...(usage && { usage }), ...(vendor !== undefined && { vendor_charged: vendor, vendor_charge: update!.vendorCharge }) },
  };
}

/** A task charged line by line from its result files: their sum (results.ts), its usage and lines kept. */
function resultsCharge(t: TaskRecord, c: ResultsRead['charge']) {
  const usage = c.usage;
  const tokens = usage ? { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, ...classTags(tokenClasses(usage)) } : {};
  return { actual: c.total, tags: { channel: t.channel, ...tokens }, kept: { lines: c.lines, ...(usage && { usage }) } };
}

/** Exponential backoff with ±20% jitter so tasks submitted together do not poll together. */
export function backoffMs(g: Gateway, polls: number): number {
  const { poll_base_ms, poll_max_ms } = g.runtime.tasks;
  const base = Math.min(poll_max_ms, poll_base_ms * 2 ** Math.min(polls, 20));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}
