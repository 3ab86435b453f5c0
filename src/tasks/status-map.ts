// Maps what a vendor says about a task onto the four unified statuses, without ever leaking the vendor's words.
import type { CompiledOperation, UnifiedStatus } from '../config/runtime.js';

const unified = new Set<string>(['queued', 'in_progress', 'completed', 'failed']);
const defaultProgress: Record<UnifiedStatus, number> = { queued: 0, in_progress: 50, completed: 100, failed: 100 };

export interface PollResult { status?: unknown; progress?: unknown; result_url?: unknown; result_urls?: unknown; error?: unknown; upstream_id?: unknown; vars?: unknown; extra?: unknown }

/** undefined when the vendor status is unknown: the task then stays as it was and keeps being polled. */
export function normalise(op: CompiledOperation, r: PollResult): { status: UnifiedStatus; progress: number; urls: string[]; error?: string } | undefined {
  const raw = r.status === undefined || r.status === null ? '' : String(r.status);
  const status = op.statusMap[raw] ?? (unified.has(raw) ? (raw as UnifiedStatus) : undefined);
  if (!status) return undefined;
  const p = Number(typeof r.progress === 'string' ? r.progress.replace('%', '') : r.progress);
  const progress = status === 'completed' ? 100 : Number.isFinite(p) ? Math.max(0, Math.min(99, Math.round(p))) : defaultProgress[status];
  const urls = [r.result_url, ...(Array.isArray(r.result_urls) ? r.result_urls : [])].filter((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u));
  const text = r.error === undefined || r.error === null || r.error === '' ? undefined : typeof r.error === 'string' ? r.error : JSON.stringify(r.error);
  // A vendor's failure reason is kept bounded: it is stored on the record and shown to the client.
  const error = text && text.length > 500 ? `${text.slice(0, 500)}…` : text;
  return { status, progress, urls, error };
}
