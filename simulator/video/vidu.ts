// Vidu (ShengShu) /ent/v2 video API: `Token` auth, per-action image rules, created→queueing→processing→success|failed.
import { type Ctx, requestId, sendJson } from '../http.js';
import {
  type Json, type VendorError, fileUrl, imageRefused, isObject, newTask, parseJson, pathParams, planFrom, retryHeaders, route, str, submitDelay, submitFailure,
} from './common.js';
import { type Phase, type VideoTask, numericId, poll, storeOf } from './task-store.js';
import { viduCredits, viduDuration, viduResolution } from './vidu-credits.js';

const VENDOR = 'vidu';
const SUBMIT = /^\/ent\/v2\/(text2video|img2video|start-end2video|reference2video)$/;
const QUERY = /^\/ent\/v2\/tasks\/([^/]+)\/creations$/;

/** Reasons and messages from platform.vidu.com/docs/error-code. */
const REASONS: Record<string, [number, string]> = {
  BadRequest: [400, 'bad request'],
  FieldLacking: [400, 'field is missing or empty: '],
  FieldUnwanted: [400, 'unwanted field: '],
  FieldInvalid: [400, 'invalid field: '],
  FieldItemCountOutOfRange: [400, 'field item count out of range: '],
  TaskPromptPolicyViolation: [400, 'prompt policy violation'],
  CreditInsufficient: [400, 'insufficient credits'],
  CreationPolicyViolation: [400, 'creation policy violation'],
  ModelUnavailable: [400, 'model unavailable'],
  Unauthorized: [401, 'unauthorized'],
  Forbidden: [403, 'forbidden'],
  TaskNotFound: [404, 'task not found'],
  NotFound: [404, 'not found'],
  Conflict: [409, 'resource conflict'],
  QuotaExceeded: [429, 'quota exceeded'],
  TooManyRequests: [429, 'too many requests'],
  SystemThrottling: [429, 'system is throttling'],
  Canceled: [499, 'request canceled by client'],
  InternalServiceFailure: [500, 'internal service failure'],
};

const STATUS_REASON: Record<number, string> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 429: 'TooManyRequests', 499: 'Canceled',
};

/** Kratos-style body: `code` is the HTTP status, `reason` the machine code. */
function viduBody(reason: string, detail = ''): { status: number; body: Json } {
  const [status, message] = REASONS[reason] ?? [400, reason];
  return { status, body: { code: status, reason, message: message + detail, metadata: { trace_id: requestId().slice(4) } } };
}

export function viduError(status: number, reason?: string): VendorError {
  const r = reason && REASONS[reason]?.[0] === status ? reason : STATUS_REASON[status] ?? (status >= 500 ? 'InternalServiceFailure' : 'BadRequest');
  const { body } = viduBody(r);
  return { body: { ...body, code: status }, headers: retryHeaders(status) };
}

function reply(ctx: Ctx, reason: string, detail = ''): void {
  const { status, body } = viduBody(reason, detail);
  sendJson(ctx.res, status, body);
}

function authorized(ctx: Ctx): boolean {
  const m = /^Token\s+(.+)$/.exec(ctx.req.headers.authorization ?? '');
  if (m && ctx.keys.has(m[1].trim())) return true;
  reply(ctx, 'Unauthorized');
  return false;
}

/** Image-count rules per action; returns [reason, fields] on violation. */
function imageProblem(action: string, body: Json): [string, string] | undefined {
  const images = body.images;
  if (images !== undefined && !Array.isArray(images)) return ['FieldInvalid', 'images'];
  const n = Array.isArray(images) ? images.length : 0;
  // Each image is a URL or a base64 data URI (data:image/…;base64,…); bare base64 or anything else is refused.
  if (Array.isArray(images) && images.some((u) => imageRefused('images', u, ['url', 'data_uri']))) return ['FieldInvalid', 'images'];
  switch (action) {
    case 'text2video':
      return n > 0 ? ['FieldUnwanted', 'images'] : undefined;
    case 'img2video':
      return n === 1 ? undefined : n === 0 ? ['FieldLacking', 'images'] : ['FieldItemCountOutOfRange', 'images'];
    case 'start-end2video':
      return n === 2 ? undefined : n === 0 ? ['FieldLacking', 'images'] : ['FieldItemCountOutOfRange', 'images'];
    default:
      return referenceProblem(body, n);
  }
}

/** reference2video: 1–7 images (non-subject mode) or 1–7 subjects with ≤3 images each. */
function referenceProblem(body: Json, n: number): [string, string] | undefined {
  const subjects = body.subjects;
  if (subjects === undefined) return n === 0 ? ['FieldLacking', 'images'] : n > 7 ? ['FieldItemCountOutOfRange', 'images'] : undefined;
  if (n > 0) return ['FieldUnwanted', 'images'];
  if (!Array.isArray(subjects) || subjects.length === 0) return ['FieldLacking', 'subjects'];
  if (subjects.length > 7) return ['FieldItemCountOutOfRange', 'subjects'];
  const bad = subjects.findIndex((s) => !isObject(s) || !Array.isArray(s.images) || s.images.length < 1 || s.images.length > 3);
  return bad >= 0 ? ['FieldItemCountOutOfRange', `subjects[${bad}].images`] : undefined;
}

/** Durations and resolutions each model family takes (platform.vidu.com/docs, per model); other models are not checked. */
const FAMILIES: [RegExp, (d: number) => boolean, string[]][] = [
  [/^viduq3/, (d) => d >= 1 && d <= 16, ['540p', '720p', '1080p']],
  [/^viduq2/, (d) => d >= 1 && d <= 10, ['540p', '720p', '1080p']],
  [/^viduq1/, (d) => d === 5, ['1080p']],
  [/^vidu(2\.0|1\.5)$/, (d) => d === 4 || d === 8, ['360p', '720p', '1080p']],
];

/** `FieldInvalid` for a duration or resolution the model does not render. */
function modelProblem(body: Json): [string, string] | undefined {
  const family = FAMILIES.find(([re]) => re.test(String(body.model)));
  if (!family) return undefined;
  const [, durationOk, resolutions] = family;
  if (body.duration !== undefined && !(Number.isInteger(body.duration) && durationOk(body.duration as number))) return ['FieldInvalid', 'duration'];
  if (body.resolution !== undefined && !resolutions.includes(body.resolution as string)) return ['FieldInvalid', 'resolution'];
  return undefined;
}

async function submit(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const [action] = pathParams(ctx, SUBMIT);
  const body = parseJson(ctx.raw);
  if (!body) return reply(ctx, 'BadRequest');
  const plan = planFrom(str(body.prompt) ?? '');
  if (submitFailure(ctx, plan, (s) => viduError(s, plan.directives.code))) return;
  if (typeof body.model !== 'string' || body.model === '') return reply(ctx, 'FieldLacking', 'model');
  const needsPrompt = action === 'text2video' || action === 'reference2video';
  if (needsPrompt && (typeof body.prompt !== 'string' || body.prompt === '')) return reply(ctx, 'FieldLacking', 'prompt');
  if (typeof body.prompt === 'string' && body.prompt.length > 5000) return reply(ctx, 'FieldInvalid', 'prompt');
  const problem = imageProblem(action, body) ?? modelProblem(body);
  if (problem) return reply(ctx, problem[0], problem[1]);
  const task = newTask(ctx, plan, { vendor: VENDOR, id: numericId(18), kind: action, model: body.model, prompt: str(body.prompt) ?? '', extra: { body } });
  if (await submitDelay(ctx, plan)) sendJson(ctx.res, 200, echo(task, body));
}

/** The submit answer echoes the request with Vidu's defaults filled in, and the credits the task costs. */
function echo(task: VideoTask, body: Json): Json {
  return {
    task_id: task.id,
    type: task.kind,
    state: 'created',
    model: task.model,
    style: body.style ?? 'general',
    prompt: task.prompt,
    images: body.images ?? [],
    duration: viduDuration(body),
    seed: body.seed || 1 + (Number(task.id.slice(-6)) % 2147483646),
    aspect_ratio: body.aspect_ratio ?? '16:9',
    resolution: viduResolution(body),
    movement_amplitude: body.movement_amplitude ?? 'auto',
    bgm: body.bgm ?? false,
    payload: body.payload ?? '',
    off_peak: body.off_peak ?? false,
    credits: viduCredits(body, task.kind),
    created_at: new Date(task.createdAt).toISOString(),
  };
}

const STATE: Record<Phase, string> = { queued: 'queueing', running: 'processing', succeeded: 'success', failed: 'failed' };

async function creations(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const [id] = pathParams(ctx, QUERY);
  const task = storeOf(ctx.control).get(VENDOR, id);
  if (!task) return reply(ctx, 'TaskNotFound');
  const phase = poll(task);
  const body = task.extra.body as Json;
  const url = fileUrl(ctx.req, task);
  sendJson(ctx.res, 200, {
    id: task.id,
    state: STATE[phase],
    err_code: phase === 'failed' ? task.failReason ?? 'CreationPolicyViolation' : '',
    // The credits the task costs, in every state as the submit answer gave them (what Vidu reports for a failed task is not known).
    credits: viduCredits(body, task.kind),
    payload: body.payload ?? '',
    bgm: body.bgm ?? false,
    off_peak: body.off_peak ?? false,
    creations: phase === 'succeeded'
      ? [{ id: `${task.id}01`, url, cover_url: url.replace(/\.mp4$/, '.mp4?cover=1'), watermarked_url: '' }]
      : [],
  });
}

export const viduRoutes = [route('POST', SUBMIT, submit), route('GET', QUERY, creations)];
