// Midjourney-proxy task objects: the proxy's JSON view (ms times, "N%" progress, plus-style buttons), result files and change callbacks.
import { createHash } from 'node:crypto';
import type { Ctx } from '../http.js';
import type { Json, TaskPlan } from '../video/common.js';
import { numericId } from '../video/task-store.js';
import { addFile, baseOf, mediaUrl } from './files.js';
import { notifyChange } from './notify.js';
import {
  type MediaStore, type MediaTask, type StatusWords, advance, autoAdvance, isDone, mediaStoreOf, percentOf, statusOf, succeeded,
} from './store.js';

export const MJ = 'midjourney';
export const MJ_WORDS: StatusWords = { ladder: ['NOT_START', 'SUBMITTED', 'IN_PROGRESS'], success: 'SUCCESS', failure: 'FAILURE' };
const DEFAULT_FAIL = '[Invalid parameter] Invalid value';
/** Grid results are 2048² (four 1024² tiles); single-image results are 1024². */
const SINGLE = ['UPSCALE', 'DESCRIBE', 'SWAP_FACE', 'VIDEO'];
const GRID_ACTIONS = ['IMAGINE', 'VARIATION', 'REROLL', 'BLEND', 'HIGH_VARIATION', 'LOW_VARIATION', 'PAN', 'ZOOM', 'CUSTOM_ZOOM', 'INPAINT'];

export interface NewMjTask {
  action: string;
  prompt: string;
  description: string;
  body: Json;
  hold?: string;
}

/** Creates the task, its result files and (with `[sim advance_ms=N]`) its own clock. */
export function createMjTask(ctx: Ctx, plan: TaskPlan, init: NewMjTask): MediaTask {
  const store = mediaStoreOf(ctx.control);
  const b = init.body;
  const task = store.create({
    vendor: MJ, id: numericId(16), kind: init.action, model: init.body.botType === 'NIJI_JOURNEY' ? 'niji' : 'midjourney', prompt: init.prompt,
    words: MJ_WORDS, base: baseOf(ctx.req), hold: init.hold,
    notifyHook: typeof b.notifyHook === 'string' && b.notifyHook !== '' ? b.notifyHook : undefined,
    extra: { description: init.description, state: b.state ?? null, botType: b.botType ?? 'MID_JOURNEY', customId: b.customId ?? '' },
  }, plan);
  task.extra.lastNotified = `${statusOf(task)}|0%`; // the submit reply already told the client; only changes are sent
  const ttl = plan.urlTtlMs;
  if (init.action !== 'SHORTEN') {
    const side = SINGLE.includes(init.action) ? 1024 : 2048;
    addFile(store, { name: `${task.id}.png`, png: { width: side, height: side }, task, urlTtlMs: ttl });
  }
  if (init.action === 'VIDEO') addFile(store, { name: `${task.id}.mp4`, size: plan.sizeBytes, task, urlTtlMs: ttl });
  const every = Number(plan.directives.advance_ms);
  if (Number.isInteger(every) && every > 0) autoAdvance(store, task, every, (t) => announce(store, t));
  return task;
}

/** Code 21 "task exists": the result is already there, so the task is born SUCCESS. */
export function finishNow(task: MediaTask): void {
  task.pollsBeforeDone = -1;
  task.fail = false;
  task.startedAt = task.finishedAt = task.createdAt;
}

function hashOf(id: string): string {
  const h = createHash('sha256').update(id).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function button(customId: string, label: string, emoji = ''): Json {
  return { customId, emoji, label, type: 2, style: 2 };
}

/** The plus proxy's buttons; their customIds feed /mj/submit/action. */
function buttonsOf(t: MediaTask): Json[] {
  if (!succeeded(t)) return [];
  const h = hashOf(t.id);
  if (GRID_ACTIONS.includes(t.kind)) {
    const row = (job: string, l: string) => [1, 2, 3, 4].map((i) => button(`MJ::JOB::${job}::${i}::${h}`, `${l}${i}`));
    return [...row('upsample', 'U'), button(`MJ::JOB::reroll::0::${h}::SOLO`, '', '🔄'), ...row('variation', 'V')];
  }
  if (t.kind !== 'UPSCALE') return [];
  return [
    button(`MJ::JOB::high_variation::1::${h}::SOLO`, 'Vary (Strong)', '🪄'), button(`MJ::JOB::low_variation::1::${h}::SOLO`, 'Vary (Subtle)', '🪄'),
    button(`MJ::Outpaint::50::1::${h}::SOLO`, 'Zoom Out 2x', '🔍'), button(`MJ::CustomZoom::${h}`, 'Custom Zoom', '🔍'),
    button(`MJ::Inpaint::1::${h}::SOLO`, 'Vary (Region)', '🖌️'), button(`MJ::JOB::pan_left::1::${h}::SOLO`, '', '⬅️'),
    button(`MJ::JOB::pan_right::1::${h}::SOLO`, '', '➡️'), button(`MJ::JOB::pan_up::1::${h}::SOLO`, '', '⬆️'), button(`MJ::JOB::pan_down::1::${h}::SOLO`, '', '⬇️'),
  ];
}

function finalPrompt(t: MediaTask): string {
  if (t.kind === 'DESCRIBE' && succeeded(t)) return [1, 2, 3, 4].map((i) => `${['1️⃣', '2️⃣', '3️⃣', '4️⃣'][i - 1]} a simulated description ${i} --ar 1:1`).join('\n\n');
  if (t.kind === 'SHORTEN' && succeeded(t)) return ['1️⃣', '2️⃣', '3️⃣', '4️⃣', '5️⃣'].map((e) => `${e} ${t.prompt.split(/\s+/).slice(0, 3).join(' ')}`).join('\n\n');
  return t.prompt;
}

/** The task object exactly as fetch, list-by-condition and the notifyHook body carry it. */
export function mjView(t: MediaTask): Json {
  const ok = succeeded(t);
  const url = (ext: string) => (ok && t.files.includes(`${t.id}.${ext}`) ? mediaUrl(t.base, `${t.id}.${ext}`) : null);
  const view: Json = {
    id: t.id, action: t.kind, customId: t.extra.customId, botType: t.extra.botType, prompt: t.prompt, promptEn: t.prompt,
    description: t.extra.description, state: t.extra.state, submitTime: t.createdAt, startTime: t.startedAt ?? null,
    finishTime: t.finishedAt ?? null, imageUrl: url('png'), status: statusOf(t), progress: `${percentOf(t)}%`,
    failReason: isDone(t) && t.fail ? t.failReason ?? DEFAULT_FAIL : null,
    properties: { finalPrompt: finalPrompt(t), notifyHook: t.notifyHook ?? null, discordInstanceId: 'sim-instance' },
    buttons: buttonsOf(t),
  };
  if (t.kind === 'VIDEO') Object.assign(view, { videoUrl: url('mp4'), videoUrls: url('mp4') ? [{ url: url('mp4') }] : [] });
  return view;
}

/** Sends the task to its hook if status or progress changed since the last callback. */
export function announce(store: MediaStore, t: MediaTask): void {
  const view = mjView(t);
  notifyChange(store, t, { status: view.status as string, progress: view.progress as string }, view);
}

/** One status query: a step, a callback if that changed anything, and the fresh view. */
export function mjPoll(store: MediaStore, t: MediaTask): Json {
  if (advance(t, 'poll')) announce(store, t);
  return mjView(t);
}
