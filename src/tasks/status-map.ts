// Maps what a vendor says about a task onto the four unified statuses, without ever leaking the vendor's words.
import type { CompiledOperation, UnifiedStatus } from '../config/runtime.js';
import type { Usage } from '../transform/usage.js';
import type { TaskUpdate } from './apply-update.js';

const unified = new Set<string>(['queued', 'in_progress', 'completed', 'failed']);
const defaultProgress: Record<UnifiedStatus, number> = { queued: 0, in_progress: 50, completed: 100, failed: 100 };

export interface PollResult {
  status?: unknown; progress?: unknown; result_url?: unknown; result_urls?: unknown; error?: unknown; upstream_id?: unknown; vars?: unknown; extra?: unknown;
  usage?: unknown; vendor_charge?: unknown;
}

/** undefined when the vendor status is unknown: the task then stays as it was and keeps being polled. */
export function normalise(op: CompiledOperation, r: PollResult): TaskUpdate | undefined {
  const raw = r.status === undefined || r.status === null ? '' : String(r.status);
  const status = op.statusMap[raw] ?? (unified.has(raw) ? (raw as UnifiedStatus) : undefined);
  if (!status) return undefined;
  const p = Number(typeof r.progress === 'string' ? r.progress.replace('%', '') : r.progress);
  const progress = status === 'completed' ? 100 : Number.isFinite(p) ? Math.max(0, Math.min(99, Math.round(p))) : defaultProgress[status];
  const urls = [r.result_url, ...(Array.isArray(r.result_urls) ? r.result_urls : [])].filter((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u));
  const text = r.error === undefined || r.error === null || r.error === '' ? undefined : typeof r.error === 'string' ? r.error : JSON.stringify(r.error);
  // A vendor's failure reason is kept bounded: it is stored on the record and shown to the client.
  const error = text && text.length > 500 ? `${text.slice(0, 500)}…` : text;
  return { status, progress, urls, error, usage: taskUsage(r.usage), vendorCharge: vendorCharge(r.vendor_charge) };
}

const count = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);

/** What the vendor reports the task used (poll-result.json `usage`), read strictly: anything malformed is none. */
function taskUsage(u: unknown): Usage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const { prompt_tokens, completion_tokens, seconds, details } = u as Record<string, unknown>;
  const usage: Usage = { prompt_tokens: count(prompt_tokens) ?? 0, completion_tokens: count(completion_tokens) ?? 0 };
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 && seconds <= 86_400) usage.seconds = seconds;
  if (details && typeof details === 'object') {
    const kept = Object.entries(details).filter(([, n]) => count(n) !== undefined);
    if (kept.length) usage.details = Object.fromEntries(kept) as Usage['details'];
  }
  return usage.prompt_tokens || usage.completion_tokens || usage.seconds !== undefined ? usage : undefined;
}

/** The vendor's own figure for what it charged (a number or a decimal string), in its unit. */
function vendorCharge(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^[0-9]{1,12}(\.[0-9]{1,6})?$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 && n < 1e12 ? n : undefined;
}
