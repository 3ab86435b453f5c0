// Suno-API wrapper (/suno/*): Bearer auth, {code:"success",message,data} envelope, clip-derived statuses, unix-second times, counted batch fetches.
import { type Ctx, sendJson } from '../http.js';
import {
  type Json, type VendorError, bearer, parseJson, pathParams, planFrom, retryHeaders, route, str, submitFailure, unixSeconds,
} from '../video/common.js';
import { uuid } from '../video/task-store.js';
import { addFile, baseOf, mediaUrl } from './files.js';
import { type MediaTask, type StatusWords, advance, isDone, mediaStoreOf, statusOf, succeeded } from './store.js';

const VENDOR = 'suno';
const SUBMIT = /^\/suno\/submit\/([^/]+)$/;
const ONE = /^\/suno\/fetch\/([^/]+)$/;
const WORDS: StatusWords = { ladder: ['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS'], success: 'SUCCESS', failure: 'FAILURE' };
/** The wrapper derives task statuses from suno clip states; this is the reverse map for the clips it returns. */
const CLIP_STATUS: Record<string, string> = {
  NOT_START: 'submitted', SUBMITTED: 'submitted', QUEUED: 'queued', IN_PROGRESS: 'streaming', SUCCESS: 'complete', FAILURE: 'error',
};
const VERSIONS: Record<string, string> = {
  'chirp-v3-0': 'v3', 'chirp-v3-5': 'v3.5', 'chirp-v4': 'v4', 'chirp-auk': 'v4.5', 'chirp-bluejay': 'v4.5+', 'chirp-crow': 'v5',
};
const DEFAULT_FAIL = 'Song Description flagged for moderation';
const LYRICS = '[Verse]\nSimulated words on a simulated night\n\n[Chorus]\nSing it back, sing it right';
let serial = 0; // the wrapper's auto-increment row id; only needs to be unique

/** Error envelope of the wrapper: `code` is a string (`invalid_request`, `internal_error`), `data` null. */
function fail(ctx: Ctx, status: number, code: string, message: string): void {
  sendJson(ctx.res, status, { code, message, data: null });
}

export function sunoError(status: number, code?: string): VendorError {
  const c = code ?? (status >= 500 ? 'internal_error' : 'invalid_request');
  return { body: { code: c, message: `Simulated error (HTTP ${status}).`, data: null }, headers: retryHeaders(status) };
}

function authorized(ctx: Ctx): boolean {
  const key = bearer(ctx);
  if (key !== undefined && ctx.keys.has(key)) return true;
  fail(ctx, 401, 'invalid_request', 'unauthorized secret token');
  return false;
}

function musicProblem(b: Json): string | undefined {
  if (str(b.continue_clip_id) && !str(b.task_id)) return 'task_id is empty';
  if (!str(b.prompt) && !str(b.gpt_description_prompt) && b.make_instrumental !== true) return 'prompt is empty';
  if (b.mv !== undefined && !(typeof b.mv === 'string' && b.mv.startsWith('chirp-'))) return `invalid mv: ${String(b.mv)}`;
  return undefined;
}

async function submit(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const action = pathParams(ctx, SUBMIT)[0].toUpperCase();
  if (action !== 'MUSIC' && action !== 'LYRICS') return fail(ctx, 400, 'invalid_request', 'invalid action');
  const b = parseJson(ctx.raw);
  if (!b) return fail(ctx, 400, 'invalid_request', "invalid character looking for beginning of value");
  const plan = planFrom(`${str(b.prompt) ?? ''} ${str(b.gpt_description_prompt) ?? ''}`);
  if (submitFailure(ctx, plan, (s) => sunoError(s, plan.directives.code))) return;
  const problem = action === 'MUSIC' ? musicProblem(b) : str(b.prompt) ? undefined : 'prompt is empty';
  if (problem) return fail(ctx, 400, 'invalid_request', problem);
  const store = mediaStoreOf(ctx.control);
  const mv = str(b.mv) ?? 'chirp-v3-0'; // the wrapper's default
  const task = store.create({
    vendor: VENDOR, id: action === 'MUSIC' ? uuid().replace(/-/g, '') : uuid(), kind: action, model: action === 'MUSIC' ? mv : 'lyrics',
    prompt: str(b.prompt) ?? str(b.gpt_description_prompt) ?? '', words: WORDS, base: baseOf(ctx.req), extra: { body: b, serial: ++serial },
  }, plan);
  if (action === 'LYRICS' && plan.directives.polls === undefined) {
    // The wrapper waits for suno's lyrics before answering, so a lyrics task is already finished when submitted.
    task.pollsBeforeDone = -1;
    task.startedAt = task.finishedAt = task.createdAt;
  }
  if (action === 'MUSIC') {
    task.extra.clips = [uuid(), uuid()];
    for (const id of task.extra.clips as string[]) {
      for (const name of [`${id}.mp3`, `${id}.mp4`, `image_${id}.jpeg`, `image_large_${id}.jpeg`]) {
        addFile(store, { name, size: name.endsWith('.jpeg') ? 4096 : plan.sizeBytes, task, urlTtlMs: plan.urlTtlMs });
      }
    }
  }
  sendJson(ctx.res, 200, { code: 'success', message: '', data: task.id });
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function clip(t: MediaTask, id: string, i: number): Json {
  const b = t.extra.body as Json;
  const done = succeeded(t);
  const failed = isDone(t) && t.fail;
  const url = (name: string) => (done ? mediaUrl(t.base, name) : '');
  const described = !str(b.prompt) && !!str(b.gpt_description_prompt);
  return {
    id, video_url: url(`${id}.mp4`), audio_url: url(`${id}.mp3`), image_url: url(`image_${id}.jpeg`), image_large_url: url(`image_large_${id}.jpeg`),
    is_video_pending: false, major_model_version: VERSIONS[t.model] ?? 'v3', model_name: t.model, is_liked: false, user_id: 'sim-user',
    display_name: 'Simulator', handle: 'simulator', is_handle_updated: false, is_trashed: false, reaction: null, created_at: iso(t.createdAt),
    status: CLIP_STATUS[statusOf(t)], title: str(b.title) ?? (described && done ? 'Simulated Song' : ''), play_count: 0, upvote_count: 0, is_public: false,
    metadata: {
      tags: str(b.tags) ?? '', prompt: described ? (done ? LYRICS : '') : str(b.prompt) ?? '', gpt_description_prompt: str(b.gpt_description_prompt) ?? null,
      audio_prompt_id: null, history: null, concat_history: null, type: 'gen', duration: done ? 120.5 + i : null, refund_credits: failed ? true : null,
      stream: true, error_type: failed ? 'moderation' : null, error_message: failed ? t.failReason ?? DEFAULT_FAIL : null,
    },
  };
}

/** The wrapper's task row: unix-second times (0 until set), clips for MUSIC, one lyrics object for LYRICS. */
function view(t: MediaTask): Json {
  const failed = isDone(t) && t.fail;
  const data = t.kind === 'MUSIC'
    ? (t.extra.clips as string[]).map((id, i) => clip(t, id, i))
    : { id: t.id, status: CLIP_STATUS[statusOf(t)], title: succeeded(t) ? 'Simulated Lyrics' : '', text: succeeded(t) ? LYRICS : '' };
  return {
    id: t.extra.serial, created_at: iso(t.createdAt), updated_at: iso(t.finishedAt ?? t.startedAt ?? t.createdAt), task_id: t.id, action: t.kind,
    status: statusOf(t), fail_reason: failed ? t.failReason ?? DEFAULT_FAIL : '', submit_time: unixSeconds(t.createdAt),
    start_time: t.startedAt ? unixSeconds(t.startedAt) : 0, finish_time: t.finishedAt ? unixSeconds(t.finishedAt) : 0, search_item: '', data,
  };
}

/** Batch fetch (what gateways poll with); counted so tests can assert batching. Unknown ids are left out. */
async function fetchMany(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const b = parseJson(ctx.raw);
  if (!b) return fail(ctx, 400, 'invalid_request', 'invalid character looking for beginning of value');
  const ids = Array.isArray(b.ids) ? b.ids.filter((i): i is string => typeof i === 'string') : [];
  const store = mediaStoreOf(ctx.control);
  store.sunoFetches.batch++;
  store.sunoFetches.batches.push(ids);
  const found = [...store.tasks.values()].filter((t) => t.vendor === VENDOR && ids.includes(t.id));
  for (const t of found) advance(t, 'poll');
  sendJson(ctx.res, 200, { code: 'success', message: '', data: found.map(view) });
}

async function fetchOne(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const store = mediaStoreOf(ctx.control);
  store.sunoFetches.single++;
  const task = store.get(VENDOR, pathParams(ctx, ONE)[0]);
  if (!task) return fail(ctx, 400, 'invalid_request', 'task not exist');
  advance(task, 'poll');
  sendJson(ctx.res, 200, { code: 'success', message: '', data: view(task) });
}

/**
 * The wrapper's account check (it asks suno for the credits left): read-only, so it checks the key without spending
 * anything. The real wrapper also returns its suno session (cookie, JWT); the simulator's are placeholders.
 */
async function account(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const certificate = {
    session_id: 'sess_simulated', cookie: 'simulated', jwt: 'simulated', last_update: unixSeconds(), credits_left: 2500, monthly_limit: 2500,
    monthly_usage: 0, period: 'month', is_active: true,
  };
  sendJson(ctx.res, 200, { code: 'success', message: '', data: { certificate, msg: '' } });
}

export const sunoRoutes = [
  route('POST', SUBMIT, submit), route('POST', '/suno/fetch', fetchMany), route('GET', ONE, fetchOne), route('GET', '/suno/account', account),
];
