// In-memory video task store (one per simulator instance): vendor-style ids and poll-count driven status progression.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Control } from '../control.js';

/** Vendor-neutral lifecycle; each vendor file maps it onto its own status words. */
export type Phase = 'queued' | 'running' | 'succeeded' | 'failed';

export interface VideoTask {
  vendor: string;
  id: string;
  /** Vendor sub-family (Kling text2video/image2video, Vidu action, …); queries must match it where the vendor does. */
  kind: string;
  model: string;
  prompt: string;
  /** Query calls seen so far; the status is a pure function of this count, so tests are deterministic. */
  polls: number;
  /** Polls answered with a non-terminal status before the terminal one (`[sim polls=N]`, default 2). */
  pollsBeforeDone: number;
  fail: boolean;
  failReason?: string;
  sizeBytes: number;
  /** Name served by GET /files/<fileName>. */
  fileName: string;
  urlTtlMs?: number;
  createdAt: number;
  finishedAt?: number;
  /** Vendor-specific values echoed back on queries (duration, size, resolution, …). */
  extra: Record<string, unknown>;
}

/** Ark asset: Processing until the second GetAsset, then Active (or Failed). */
export interface ArkAsset {
  Id: string;
  Name: string;
  URL: string;
  AssetType: string;
  GroupId: string;
  ProjectName: string;
  gets: number;
  fail: boolean;
  CreateTime: string;
  UpdateTime: string;
}

export interface ArkAssetGroup {
  Id: string;
  Name: string;
  Description: string;
  GroupType: string;
  ProjectName: string;
  CreateTime: string;
}

export type NewTask = Pick<VideoTask, 'vendor' | 'id' | 'kind' | 'model' | 'prompt' | 'pollsBeforeDone' | 'fail' | 'failReason' | 'sizeBytes' | 'urlTtlMs'> & { extra?: Record<string, unknown> };

export class TaskStore {
  readonly tasks = new Map<string, VideoTask>();
  readonly assets = new Map<string, ArkAsset>();
  readonly groups = new Map<string, ArkAssetGroup>();
  readonly #files = new Map<string, VideoTask>();

  create(init: NewTask): VideoTask {
    const task: VideoTask = { ...init, polls: 0, fileName: `${fileSafe(init.id)}.mp4`, createdAt: Date.now(), extra: init.extra ?? {} };
    this.tasks.set(storeKey(task.vendor, task.id), task);
    this.#files.set(task.fileName, task);
    return task;
  }

  get(vendor: string, id: string): VideoTask | undefined {
    return this.tasks.get(storeKey(vendor, id));
  }

  byFile(name: string): VideoTask | undefined {
    return this.#files.get(name);
  }

  clear(): void {
    this.tasks.clear();
    this.assets.clear();
    this.groups.clear();
    this.#files.clear();
  }
}

function storeKey(vendor: string, id: string): string {
  return `${vendor}\u0000${id}`;
}

/** Unified ids contain `:`; keep file names URL-path friendly. */
function fileSafe(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Counts one query and returns the status it should report. */
export function poll(task: VideoTask): Phase {
  task.polls++;
  const phase = phaseAt(task, task.polls);
  if ((phase === 'succeeded' || phase === 'failed') && task.finishedAt === undefined) task.finishedAt = Date.now();
  return phase;
}

/** Status without counting a poll (listings, downloads); a never-polled task is queued. */
export function phaseOf(task: VideoTask): Phase {
  return task.polls === 0 ? 'queued' : phaseAt(task, task.polls);
}

function phaseAt(task: VideoTask, polls: number): Phase {
  if (polls > task.pollsBeforeDone) return task.fail ? 'failed' : 'succeeded';
  return polls <= 1 ? 'queued' : 'running';
}

/** Progress percentage for vendors that report one (OpenAI, unified). */
export function progressOf(task: VideoTask, phase: Phase): number {
  if (phase === 'succeeded') return 100;
  if (phase === 'queued' || phase === 'failed') return 0;
  return Math.min(99, Math.floor((100 * task.polls) / (task.pollsBeforeDone + 1)));
}

const stores = new WeakMap<Control, TaskStore>();

/** Keyed by the instance's Control so parallel simulators (tests on port 0) never share tasks. */
export function storeOf(control: Control): TaskStore {
  let store = stores.get(control);
  if (!store) stores.set(control, (store = new TaskStore()));
  return store;
}

// ---- vendor id styles ----

const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';
const MIXED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function pick(alphabet: string, n: number): string {
  let out = '';
  for (const b of randomBytes(n)) out += alphabet[b % alphabet.length];
  return out;
}

/** Snowflake-like decimal string, e.g. Vidu `809387572068364288`, MiniMax `106916112212032`. */
export function numericId(digits = 18): string {
  let out = String(1 + (randomBytes(1)[0] % 9));
  for (const b of randomBytes(digits - 1)) out += String(b % 10);
  return out;
}

/** `YYYYMMDDhhmmss` in UTC, the date part of Ark ids. */
export function compactStamp(ms = Date.now()): string {
  return new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Ark style: `cgt-20250101123456-abcde`, `asset-…`, `group-…`. */
export function arkId(prefix: string): string {
  return `${prefix}-${compactStamp()}-${pick(LOWER, 5)}`;
}

export function openaiVideoId(): string {
  return `video_${randomBytes(16).toString('hex')}`;
}

/** Kling ids are opaque base64-ish strings starting with `Cj`. */
export function klingId(): string {
  return `Cj${pick(MIXED, 20)}`;
}

export function uuid(): string {
  return randomUUID();
}

/** Stable per-task number (seeds, fake token counts) so repeated queries agree. */
export function stableNumber(id: string, mod: number): number {
  return createHash('sha256').update(id).digest().readUInt32BE(0) % mod;
}
