// Kling (Kuaishou) video API: JWT auth, {code,message,request_id,data} envelope, external_task_id, submitted→processing→succeed|failed.
import { type Ctx, sendJson } from '../http.js';
import {
  type Json, type VendorError, fileUrl, imageRefused, newTask, parseJson, pathParams, planFrom, query, retryHeaders, route, str, submitDelay, submitFailure,
} from './common.js';
import { verifyKlingAuth } from './kling-jwt.js';
import { klingUnits, supportsSound } from './kling-units.js';
import { type Phase, type VideoTask, klingId, phaseOf, poll, storeOf, uuid } from './task-store.js';

const VENDOR = 'kling';
const SUBMIT = /^\/v1\/videos\/(text2video|image2video)$/;
const QUERY = /^\/v1\/videos\/(text2video|image2video)\/([^/]+)$/;

/** Service code → [HTTP status, message], from Kling's "Error Code" table. */
const CODES: Record<number, [number, string]> = {
  1000: [401, 'Auth failed'], 1001: [401, 'Authorization is empty'], 1002: [401, 'Authorization is invalid'],
  1003: [401, 'Authorization is not active yet'], 1004: [401, 'Authorization has expired'],
  1100: [429, 'Account exception'], 1101: [429, 'Account in arrears'], 1102: [429, 'Resource pack depleted or expired'],
  1103: [403, 'No permission to access the requested resource'],
  1200: [400, 'Invalid request parameters'], 1201: [400, 'Invalid parameter value'],
  1202: [404, 'Invalid request method'], 1203: [404, 'The requested resource does not exist'],
  1300: [400, 'Platform policy triggered'], 1301: [400, 'Content security policy triggered'],
  1302: [429, 'API request rate limit exceeded'], 1303: [429, 'parallel task over resource pack limit'], 1304: [429, 'IP whitelist policy triggered'],
  5000: [500, 'Server internal error'], 5001: [503, 'Server temporarily unavailable'], 5002: [504, 'Server internal timeout'],
};
const STATUS_CODE: Record<number, number> = { 400: 1201, 401: 1000, 403: 1103, 404: 1203, 429: 1302, 500: 5000, 503: 5001, 504: 5002 };
const DURATIONS = ['5', '10'];
const V3_DURATIONS = Array.from({ length: 13 }, (_, i) => String(i + 3));

function requestId(): string {
  return uuid();
}

function codeFor(status: number, wanted?: string): number {
  const w = Number(wanted);
  if (CODES[w]?.[0] === status) return w;
  return STATUS_CODE[status] ?? (status >= 500 ? 5000 : 1200);
}

export function klingError(status: number, wanted?: string): VendorError {
  const code = codeFor(status, wanted);
  return { body: { code, message: CODES[code][1], request_id: requestId() }, headers: retryHeaders(status) };
}

function fail(ctx: Ctx, code: number, message = CODES[code][1]): void {
  sendJson(ctx.res, CODES[code][0], { code, message, request_id: requestId() });
}

function authorized(ctx: Ctx): boolean {
  const result = verifyKlingAuth(ctx.req.headers.authorization);
  if ('ak' in result) return true;
  fail(ctx, result.code, result.message);
  return false;
}

function validate(kind: string, b: Json): string | undefined {
  const model = b.model_name ?? 'kling-v1';
  if (typeof model !== 'string') return 'model_name must be a string';
  const prompt = b.prompt;
  if (kind === 'text2video' && (typeof prompt !== 'string' || prompt.trim() === '')) return 'prompt is required';
  if (prompt !== undefined && (typeof prompt !== 'string' || prompt.length > 2500)) return 'prompt must be a string of at most 2500 characters';
  if (kind === 'image2video' && !str(b.image) && !str(b.image_tail)) return 'image or image_tail is required';
  // Kling takes an image as a URL or as base64 without the data: prefix.
  for (const field of ['image', 'image_tail'] as const) {
    const refused = b[field] === undefined || b[field] === '' ? undefined : imageRefused(field, b[field], ['url', 'base64']);
    if (refused) return refused;
  }
  const durations = model.startsWith('kling-v3') ? V3_DURATIONS : DURATIONS;
  if (b.duration !== undefined && !(typeof b.duration === 'string' && durations.includes(b.duration))) {
    return `duration must be one of ${durations.map((d) => `"${d}"`).join(', ')}`;
  }
  if (b.mode !== undefined && b.mode !== 'std' && b.mode !== 'pro') return 'mode must be std or pro';
  if (b.sound !== undefined && b.sound !== 'on' && b.sound !== 'off') return 'sound must be on or off';
  // Sound is kling-v2-6 and later; Kling refuses it on older models (1201) rather than rendering a silent clip.
  if (b.sound === 'on' && !supportsSound(model)) return `sound is not supported by model ${model}`;
  if (b.aspect_ratio !== undefined && !['16:9', '9:16', '1:1'].includes(b.aspect_ratio as string)) return 'aspect_ratio is invalid';
  if (b.cfg_scale !== undefined && !(typeof b.cfg_scale === 'number' && b.cfg_scale >= 0 && b.cfg_scale <= 1)) return 'cfg_scale must be within [0, 1]';
  const ext = b.external_task_id;
  if (ext !== undefined && ext !== null && !(typeof ext === 'string' && ext.length >= 1 && ext.length <= 64)) {
    return 'external_task_id must be a string of 1 to 64 characters';
  }
  return undefined;
}

/** The client's own id for a task (null or absent = none). */
function externalId(body: Json): string | undefined {
  return str(body.external_task_id);
}

/** external_task_id is unique per account (here: per simulator), across both families. */
function byExternalId(ctx: Ctx, ext: string): VideoTask | undefined {
  return [...storeOf(ctx.control).tasks.values()].find((t) => t.vendor === VENDOR && t.extra.externalTaskId === ext);
}

/** Queries take either the task id or the caller's external_task_id. */
function findTask(ctx: Ctx, id: string): VideoTask | undefined {
  return storeOf(ctx.control).get(VENDOR, id) ?? byExternalId(ctx, id);
}

async function submit(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const [kind] = pathParams(ctx, SUBMIT);
  const body = parseJson(ctx.raw);
  if (!body) return fail(ctx, 1200);
  const plan = planFrom(str(body.prompt) ?? '');
  if (submitFailure(ctx, plan, (s) => klingError(s, plan.directives.code))) return;
  if (plan.businessError !== undefined) {
    // Kling reports some business failures with HTTP 200 and a non-zero code.
    const code = CODES[plan.businessError] ? plan.businessError : 1303;
    return sendJson(ctx.res, 200, { code, message: CODES[code][1], request_id: requestId(), data: null });
  }
  const problem = validate(kind, body);
  if (problem) return fail(ctx, 1201, problem);
  const model = (body.model_name as string | undefined) ?? 'kling-v1';
  if (model.startsWith('missing-')) return fail(ctx, 1203, `model ${model} not found`);
  const ext = externalId(body);
  if (ext !== undefined && byExternalId(ctx, ext)) return fail(ctx, 1201, `external_task_id ${ext} already exists`);
  const task = newTask(ctx, plan, { vendor: VENDOR, id: klingId(), kind, model, prompt: str(body.prompt) ?? '', extra: { body, externalTaskId: ext } });
  const data = { task_id: task.id, task_status: 'submitted', task_info: taskInfo(task), created_at: task.createdAt, updated_at: task.createdAt };
  if (await submitDelay(ctx, plan)) sendJson(ctx.res, 200, { code: 0, message: 'SUCCEED', request_id: requestId(), data });
}

/** Kling always sends `task_info`, empty when the client gave no external id. */
function taskInfo(task: VideoTask): Json {
  const ext = task.extra.externalTaskId;
  return typeof ext === 'string' ? { external_task_id: ext } : {};
}

const STATUS: Record<Phase, string> = { queued: 'submitted', running: 'processing', succeeded: 'succeed', failed: 'failed' };

function taskData(ctx: Ctx, task: VideoTask, phase: Phase): Json {
  const body = task.extra.body as Json;
  const duration = (body.duration as string | undefined) ?? '5';
  const data: Json = {
    task_id: task.id,
    task_status: STATUS[phase],
    task_status_msg: phase === 'failed' ? task.failReason ?? 'Failure to pass the risk control system' : '',
    task_info: taskInfo(task),
    watermark_info: { enabled: false },
    created_at: task.createdAt,
    updated_at: task.finishedAt ?? (phase === 'queued' ? task.createdAt : Date.now()),
  };
  if (phase !== 'succeeded') return data;
  const url = fileUrl(ctx.req, task);
  return {
    ...data,
    task_result: { videos: [{ id: uuid(), url, watermark_url: url, duration: `${duration}.1` }] },
    // What Kling charged: per second of the requested duration (a failed task deducts nothing and has no field).
    final_unit_deduction: klingUnits(body, task.model),
  };
}

async function get(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const [kind, id] = pathParams(ctx, QUERY);
  const task = findTask(ctx, id);
  // The path family must match the submit family, as on the real API.
  if (!task || task.kind !== kind) return fail(ctx, 1203, 'task not found');
  const phase = poll(task);
  sendJson(ctx.res, 200, { code: 0, message: 'SUCCEED', request_id: requestId(), data: taskData(ctx, task, phase) });
}

/** List (`?pageNum=&pageSize=`), newest first; listing does not count as a poll. */
async function list(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const [kind] = pathParams(ctx, SUBMIT);
  const page = Math.max(1, Number(query(ctx, 'pageNum')) || 1);
  const size = Math.min(500, Math.max(1, Number(query(ctx, 'pageSize')) || 30));
  const tasks = [...storeOf(ctx.control).tasks.values()].filter((t) => t.vendor === VENDOR && t.kind === kind).reverse();
  const data = tasks.slice((page - 1) * size, page * size).map((t) => taskData(ctx, t, phaseOf(t)));
  sendJson(ctx.res, 200, { code: 0, message: 'SUCCEED', request_id: requestId(), data });
}

export const klingRoutes = [route('POST', SUBMIT, submit), route('GET', SUBMIT, list), route('GET', QUERY, get)];
