// MiniMax Hailuo video: base_resp envelope, Queueing→Processing→Success|Fail, then file_id → /v1/files/retrieve download_url.
import { type Ctx, sendJson } from '../http.js';
import {
  type Json, type VendorError, bearer, fileUrl, imageRefused, newTask, parseJson, planFrom, query, retryHeaders, route, str, submitDelay, submitFailure, unixSeconds,
} from './common.js';
import { type Phase, type VideoTask, numericId, poll, storeOf } from './task-store.js';

const VENDOR = 'minimax';
/** base_resp codes → messages (MiniMax error-code table). */
const MESSAGES: Record<number, string> = {
  1000: 'unknown error', 1001: 'request timeout', 1002: 'rate limit exceeded', 1004: "login fail: Please carry the API secret key in the 'Authorization' field of the request header",
  1008: 'insufficient balance', 1013: 'internal service error', 1026: 'input new_sensitive', 1027: 'output new_sensitive',
  2013: 'invalid params', 2049: 'invalid api key',
};
const STATUS_CODE: Record<number, number> = { 400: 2013, 401: 1004, 402: 1008, 429: 1002, 500: 1013, 503: 1013, 504: 1001 };
const RESOLUTIONS: Record<string, [number, number]> = { '512P': [912, 512], '720P': [1280, 720], '768P': [1366, 768], '1080P': [1920, 1080] };

function baseResp(code: number, detail = ''): Json {
  return { status_code: code, status_msg: (MESSAGES[code] ?? 'error') + detail };
}

function ok(): Json {
  return { status_code: 0, status_msg: 'success' };
}

export function minimaxError(status: number, wanted?: string): VendorError {
  const w = Number(wanted);
  const code = MESSAGES[w] ? w : STATUS_CODE[status] ?? (status >= 500 ? 1000 : 2013);
  return { body: { base_resp: baseResp(code) }, headers: retryHeaders(status) };
}

/** Business errors (bad params, unknown ids) come back as HTTP 200 with a non-zero status_code. */
function bizError(ctx: Ctx, code: number, detail = '', extra: Json = {}): void {
  sendJson(ctx.res, 200, { ...extra, base_resp: baseResp(code, detail) });
}

function authorized(ctx: Ctx): boolean {
  const key = bearer(ctx);
  if (key !== undefined && ctx.keys.has(key)) return true;
  sendJson(ctx.res, 401, { base_resp: baseResp(key === undefined ? 1004 : 2049) });
  return false;
}

function problem(b: Json): string | undefined {
  if (typeof b.model !== 'string' || b.model === '') return ', model is required';
  // A frame is a URL or a base64 data URI.
  for (const field of ['first_frame_image', 'last_frame_image'] as const) {
    const refused = b[field] === undefined ? undefined : imageRefused(field, b[field], ['url', 'data_uri']);
    if (refused) return `, ${refused}`;
  }
  const hasImage = str(b.first_frame_image) || Array.isArray(b.subject_reference);
  if (!hasImage && (typeof b.prompt !== 'string' || b.prompt === '')) return ', prompt is required';
  if (typeof b.prompt === 'string' && b.prompt.length > 2000) return ', prompt is too long';
  if (b.duration !== undefined && b.duration !== 6 && b.duration !== 10) return ', duration must be 6 or 10';
  if (b.resolution !== undefined && !(typeof b.resolution === 'string' && b.resolution in RESOLUTIONS)) return ', resolution must be one of 512P, 720P, 768P, 1080P';
  return undefined;
}

async function submit(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const body = parseJson(ctx.raw);
  if (!body) return bizError(ctx, 2013, ', invalid json body');
  const plan = planFrom(str(body.prompt) ?? '');
  if (submitFailure(ctx, plan, (s) => minimaxError(s, plan.directives.code))) return;
  if (plan.businessError !== undefined) return bizError(ctx, MESSAGES[plan.businessError] ? plan.businessError : 1008, '', { task_id: '' });
  const p = problem(body);
  if (p) return bizError(ctx, 2013, p, { task_id: '' });
  if ((body.model as string).startsWith('missing-')) return bizError(ctx, 2013, `, model ${String(body.model)} not found`, { task_id: '' });
  const task = newTask(ctx, plan, {
    vendor: VENDOR, id: numericId(15), kind: 'video_generation', model: body.model as string, prompt: str(body.prompt) ?? '',
    extra: { body, fileId: numericId(15) },
  });
  if (await submitDelay(ctx, plan)) sendJson(ctx.res, 200, { task_id: task.id, base_resp: ok() });
}

const STATUS: Record<Phase, string> = { queued: 'Queueing', running: 'Processing', succeeded: 'Success', failed: 'Fail' };

function dims(task: VideoTask): [number, number] {
  const r = (task.extra.body as Json).resolution;
  return RESOLUTIONS[typeof r === 'string' ? r : '768P'] ?? RESOLUTIONS['768P'];
}

async function get(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const id = query(ctx, 'task_id') ?? '';
  const task = storeOf(ctx.control).get(VENDOR, id);
  if (!task) return bizError(ctx, 2013, ', task not found', { task_id: id, status: '', file_id: '' });
  const phase = poll(task);
  if (phase === 'failed') {
    const code = Number(task.failReason);
    return bizError(ctx, MESSAGES[code] ? code : 1027, '', { task_id: task.id, status: 'Fail', file_id: '' });
  }
  const reply: Json = { task_id: task.id, status: STATUS[phase], file_id: '' };
  if (phase === 'succeeded') {
    const [w, h] = dims(task);
    Object.assign(reply, { file_id: task.extra.fileId, video_width: w, video_height: h });
  }
  sendJson(ctx.res, 200, { ...reply, base_resp: ok() });
}

async function retrieve(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const fileId = query(ctx, 'file_id') ?? '';
  const task = [...storeOf(ctx.control).tasks.values()].find((t) => t.vendor === VENDOR && t.extra.fileId === fileId && t.finishedAt !== undefined && !t.fail);
  if (!task) return bizError(ctx, 2013, ', file not found');
  const file = {
    file_id: Number(fileId), bytes: task.sizeBytes, created_at: unixSeconds(task.finishedAt), filename: 'output.mp4',
    purpose: 'video_generation', download_url: fileUrl(ctx.req, task),
  };
  sendJson(ctx.res, 200, { file, base_resp: ok() });
}

export const minimaxRoutes = [
  route('POST', '/v1/video_generation', submit),
  route('GET', '/v1/query/video_generation', get),
  route('GET', '/v1/files/retrieve', retrieve),
];
