// In-memory media state per simulator instance: Midjourney/Suno/Jimeng tasks on poll-count word ladders, result files, and test-facing logs.
import type { Control } from '../control.js';
import type { TaskPlan } from '../video/common.js';

/** A vendor's status vocabulary: the non-terminal ladder is walked one word per step, then success or failure. */
export interface StatusWords {
  ladder: string[];
  success: string;
  failure: string;
}

export interface MediaTask {
  vendor: string;
  id: string;
  /** Vendor sub-kind: Midjourney action, Suno MUSIC/LYRICS, Jimeng req_key. */
  kind: string;
  model: string;
  prompt: string;
  /** Status queries seen (fetch, batch fetch, GetResult); listings and files never count. */
  polls: number;
  /** Steps taken on its own (`[sim advance_ms=N]`), so callback-only flows progress without polling. */
  ticks: number;
  /** Non-terminal steps before the terminal one (default: the ladder's length, so every word shows once). */
  pollsBeforeDone: number;
  fail: boolean;
  failReason?: string;
  words: StatusWords;
  /** A parked status (Midjourney MODAL): the task does not advance until a follow-up request releases it. */
  hold?: string;
  notifyHook?: string;
  /** `http://host` of the submit, so URLs in callbacks (no request at hand) still point at this simulator. */
  base: string;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  /** Names under /files/media/ that appear once the task succeeded. */
  files: string[];
  extra: Record<string, unknown>;
}

export interface MediaFile {
  name: string;
  contentType: string;
  /** Byte size for pattern files; PNG files are generated from `png` instead. */
  size: number;
  png?: { width: number; height: number };
  /** Served only once this task succeeded; files without a task (sync image APIs) are served at once. */
  task?: MediaTask;
  createdAt: number;
  urlTtlMs?: number;
}

export interface CallbackRecord {
  vendor: string;
  taskId: string;
  url: string;
  status: string;
  progress?: string;
  body: unknown;
  at: number;
  result: 'pending' | 'delivered' | 'failed';
  httpStatus?: number;
  error?: string;
}

export interface SignatureRecord {
  at: number;
  /** The service whose endpoint checked it: `cv` (the visual API) or `ark` (Ark's OpenAPI, the assets). */
  service: string;
  action: string;
  ak: string | null;
  ok: boolean;
  code?: string;
  reason?: string;
  signedHeaders?: string;
  /** The canonical request the simulator computed, to diff against the client's on a mismatch. */
  canonicalRequest?: string;
}

export interface ImageRequestRecord {
  vendor: 'openai' | 'gemini';
  path: string;
  model: string;
  prompt: string;
  at: number;
  [field: string]: unknown;
}

export type NewMediaTask = Pick<MediaTask, 'vendor' | 'id' | 'kind' | 'model' | 'prompt' | 'words' | 'base'>
  & Partial<Pick<MediaTask, 'notifyHook' | 'hold' | 'extra'>>;

export class MediaStore {
  readonly tasks = new Map<string, MediaTask>();
  readonly files = new Map<string, MediaFile>();
  readonly callbacks: CallbackRecord[] = [];
  readonly signatures: SignatureRecord[] = [];
  readonly images: ImageRequestRecord[] = [];
  readonly sunoFetches = { batch: 0, single: 0, batches: [] as string[][] };
  readonly timers = new Set<NodeJS.Timeout>();
  /** Per-task promise chains so one task's callbacks arrive in order while never blocking a response. */
  readonly chains = new Map<string, Promise<void>>();

  create(init: NewMediaTask, plan: TaskPlan): MediaTask {
    const explicit = plan.directives.polls !== undefined;
    const task: MediaTask = {
      ...init, polls: 0, ticks: 0, pollsBeforeDone: explicit ? plan.pollsBeforeDone : init.words.ladder.length,
      fail: plan.fail, failReason: plan.failReason, createdAt: Date.now(), files: [], extra: init.extra ?? {},
    };
    this.tasks.set(key(task.vendor, task.id), task);
    return task;
  }

  get(vendor: string, id: string): MediaTask | undefined {
    return this.tasks.get(key(vendor, id));
  }

  clear(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers.clear();
    this.tasks.clear();
    this.files.clear();
    this.chains.clear();
    this.callbacks.length = 0;
    this.signatures.length = 0;
    this.images.length = 0;
    Object.assign(this.sunoFetches, { batch: 0, single: 0, batches: [] });
  }
}

function key(vendor: string, id: string): string {
  return `${vendor}\u0000${id}`;
}

function steps(t: MediaTask): number {
  return t.polls + t.ticks;
}

export function isDone(t: MediaTask): boolean {
  return t.hold === undefined && steps(t) > t.pollsBeforeDone;
}

export function succeeded(t: MediaTask): boolean {
  return isDone(t) && !t.fail;
}

/** Index into the ladder while running (0 before the first query); -1 once terminal or parked. */
export function ladderIndex(t: MediaTask): number {
  if (t.hold !== undefined || isDone(t)) return -1;
  return Math.min(Math.max(steps(t) - 1, 0), t.words.ladder.length - 1);
}

export function statusOf(t: MediaTask): string {
  if (t.hold !== undefined) return t.hold;
  if (isDone(t)) return t.fail ? t.words.failure : t.words.success;
  return t.words.ladder[ladderIndex(t)];
}

/** 0–100: 0 until the last (running) ladder word, then rising with each step; a failure keeps its last value. */
export function percentOf(t: MediaTask): number {
  if (succeeded(t)) return 100;
  const s = isDone(t) ? t.pollsBeforeDone : steps(t);
  const running = isDone(t) || ladderIndex(t) === t.words.ladder.length - 1;
  return running && s > 0 ? Math.min(99, Math.floor((100 * s) / (t.pollsBeforeDone + 1))) : 0;
}

/** One step (a status query or a timer tick); parked tasks stay put. Returns true when the step changed anything. */
export function advance(t: MediaTask, by: 'poll' | 'tick'): boolean {
  if (t.hold !== undefined) return false;
  if (isDone(t)) {
    if (by === 'poll') t.polls++; // still a query seen; terminal states are sticky
    return false;
  }
  if (by === 'poll') t.polls++;
  else t.ticks++;
  if (t.startedAt === undefined && (isDone(t) || ladderIndex(t) >= 1)) t.startedAt = Date.now();
  if (isDone(t) && t.finishedAt === undefined) t.finishedAt = Date.now();
  return true;
}

/** `[sim advance_ms=N]`: the task takes a step every N ms on its own until it is terminal. */
export function autoAdvance(store: MediaStore, t: MediaTask, ms: number, onStep: (t: MediaTask) => void): void {
  const timer = setInterval(() => {
    if (advance(t, 'tick')) onStep(t);
    if (isDone(t)) {
      clearInterval(timer);
      store.timers.delete(timer);
    }
  }, Math.max(1, ms));
  timer.unref(); // a forgotten task must never keep a test process alive
  store.timers.add(timer);
}

const stores = new WeakMap<Control, MediaStore>();

/** Keyed by the instance's Control so parallel simulators never share media state. */
export function mediaStoreOf(control: Control): MediaStore {
  let store = stores.get(control);
  if (!store) stores.set(control, (store = new MediaStore()));
  return store;
}
