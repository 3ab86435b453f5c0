// The task record: what the gateway knows about one asynchronous job, and the view clients may see.
import type { Level } from '../store/quota-ledger.js';
import { randomBytes } from 'node:crypto';
import type { UnifiedStatus } from '../config/runtime.js';
import { fillPath } from '../transform/fill-path.js';
import type { Video } from '../types/generated/video.response.js';
import type { Carrier } from '../tracing/tracing.js';
import type { ChosenPrice } from '../billing/price-rules.js';
import type { ChargeLine } from '../billing/price.js';
import type { Usage } from '../transform/usage.js';

export interface TaskRecord {
  id: string;
  family: string;
  route: string;
  operation: string;
  model: string;
  upstream_model: string;
  owner: { user: string; token: string };
  group: string;
  channel: string;
  upstream_id?: string;
  status: UnifiedStatus;
  upstream_status?: string;
  progress: number;
  created_at: number; // unix seconds, like every timestamp here
  updated_at: number;
  completed_at?: number;
  expires_at?: number;
  result_urls: string[];
  error?: { code: string; message: string };
  quota: TaskQuota;
  /** What was asked; for a batch, `lines_route`: the route its lines follow (where their answers report usage). */
  input: { seconds?: number; size?: string; prompt?: string; lines_route?: string };
  /** Values the vendor's answers asked to keep (e.g. which endpoint family to poll), used in poll and content paths. */
  vars: Record<string, string>;
  polls: number;
  /** Where the client wants state changes POSTed, and which route's answer shapes them. */
  callback?: { url: string; route: string; base_url?: string };
  /** The caller's task this one derives from (a remix's source), by its public id. */
  source_id?: string;
  /** Vendor data a format-specific answer may show (e.g. image-art buttons), kept small. */
  extra?: Record<string, unknown>;
  /**
   * Present while the submit is on its way to `channel` and the vendor has not answered: which process sends it,
   * since when, and to which path. If that process dies, recovery reconciles the task from this (recovery.ts).
   */
  submitting?: { owner: string; started_at: number; path: string };
  /** The submit's span context (W3C), when tracing was on: each poll's span links to it, on whichever instance polls. */
  trace?: Carrier;
}

/**
 * A task's money: what was reserved and charged, and what settles it. `price` is the price the task was sold at
 * (the variant its request chose), so a settle after a reload or on another instance charges the same; `units`
 * and `seconds` what was asked (the model's default seconds when the request named none). When the vendor reports them: `usage`, the charge's `lines`, and `vendor_charge`
 * (in the vendor's own unit) with `vendor_charged`, that figure in quota units (`price.vendor_unit`).
 */
export interface TaskQuota {
  reserved: number; charged?: number; state: 'reserved' | 'settled' | 'refunded';
  price?: ChosenPrice; units?: number; seconds?: number; vendor_unit?: number;
  usage?: Usage; lines?: ChargeLine[]; vendor_charge?: number; vendor_charged?: number;
  /** The levels reserved on beyond the token's own account (its user's wallet, its team's budget: src/accounts/). */
  levels?: Level[];
}

/** A task's vendor path: `{upstream_id}`, `{model}` and the `{var}`s its vendor asked to keep. */
export function taskPath(path: string, t: Pick<TaskRecord, 'upstream_id' | 'upstream_model' | 'vars'>): string {
  return fillPath(path, { ...t.vars, upstream_id: t.upstream_id, model: t.upstream_model });
}

/** Vendor extras are kept only when small: a record is not a place for payloads. */
export function smallObject(v: unknown): Record<string, unknown> | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  return JSON.stringify(v).length <= 16_384 ? (v as Record<string, unknown>) : undefined;
}

export function stringVars(v: unknown): Record<string, string> {
  if (!v || typeof v !== 'object') return {};
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined && x !== null).map(([k, x]) => [k, String(x)]));
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Public ids are random and never the upstream's, so they reveal neither vendor nor volume. */
export function newTaskId(): string {
  const bytes = randomBytes(32);
  let s = 'task_';
  for (const b of bytes) s += alphabet[b % 62];
  return s;
}

export const isFinal = (s: UnifiedStatus) => s === 'completed' || s === 'failed';
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** What answers and transforms may read: no owner, channel, upstream id or quota internals. */
export function publicView(t: TaskRecord, contentUrl?: string) {
  return {
    id: t.id,
    task_id: t.id,
    family: t.family,
    model: t.model,
    status: t.status,
    progress: t.progress,
    created_at: t.created_at,
    updated_at: t.updated_at,
    completed_at: t.completed_at ?? null,
    expires_at: t.expires_at ?? null,
    seconds: t.input.seconds !== undefined ? String(t.input.seconds) : null,
    size: t.input.size ?? null,
    prompt: t.input.prompt ?? null,
    error: t.error ?? null,
    content_url: t.status === 'completed' && contentUrl ? contentUrl : null,
    extra: t.extra ?? {},
  };
}

export type PublicTask = ReturnType<typeof publicView>;

/**
 * The default answer: OpenAI's video object, plus `video_url` once completed. `sourceId` (the record's `source_id`)
 * is OpenAI's `remixed_from_video_id`. Typed by schemas/api/video.response.json, which /openapi.json declares.
 */
export function videoObject(v: PublicTask, sourceId: string | null): Video {
  return {
    id: v.id, task_id: v.task_id, object: 'video', model: v.model, status: v.status, progress: v.progress,
    created_at: v.created_at, completed_at: v.completed_at, expires_at: v.expires_at, seconds: v.seconds, size: v.size,
    prompt: v.prompt, remixed_from_video_id: sourceId, error: v.error, ...(v.content_url ? { video_url: v.content_url } : {}),
  };
}
