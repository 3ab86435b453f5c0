// Alibaba DashScope (Wan) video synthesis: Bearer + X-DashScope-Async, upper-case PENDING→RUNNING→SUCCEEDED|FAILED, W*H sizes.
import { type Ctx, sendJson } from '../http.js';
import {
  type Json, type VendorError, bearer, fileUrl, imageRefused, isObject, newTask, parseJson, pathParams, planFrom, retryHeaders, route, str, submitDelay, submitFailure,
} from './common.js';
import { type Phase, type VideoTask, poll, storeOf, uuid } from './task-store.js';

const VENDOR = 'dashscope';
const SUBMIT = '/api/v1/services/aigc/video-generation/video-synthesis';
const QUERY = /^\/api\/v1\/tasks\/([^/]+)$/;
const STATUS_CODE: Record<number, string> = {
  400: 'InvalidParameter', 401: 'InvalidApiKey', 403: 'AccessDenied', 404: 'ModelNotFound', 429: 'Throttling', 500: 'InternalError', 503: 'ServiceUnavailable',
};
const RESOLUTIONS = ['480P', '720P', '1080P'];

function fail(ctx: Ctx, status: number, code: string, message: string): void {
  sendJson(ctx.res, status, { request_id: uuid(), code, message });
}

export function dashscopeError(status: number, code?: string): VendorError {
  const c = code ?? STATUS_CODE[status] ?? (status >= 500 ? 'InternalError' : 'InvalidParameter');
  const message = status === 429 ? 'Requests rate limit exceeded, please try again later.' : `Simulated error (HTTP ${status}).`;
  return { body: { request_id: uuid(), code: c, message }, headers: retryHeaders(status) };
}

function authorized(ctx: Ctx): boolean {
  const key = bearer(ctx);
  if (key !== undefined && ctx.keys.has(key)) return true;
  fail(ctx, 401, 'InvalidApiKey', 'Invalid API-key provided.');
  return false;
}

/** Model-family rules: t2v sizes are `W*H`; i2v/kf2v take a first frame and an upper-case resolution. */
function problem(model: string, input: Json, params: Json): string | undefined {
  if (model.includes('t2v')) {
    if (typeof input.prompt !== 'string' || input.prompt === '') return 'Field required: input.prompt';
    if (params.size !== undefined && !(typeof params.size === 'string' && /^\d+\*\d+$/.test(params.size))) {
      return `The size parameter is invalid, it should be in the form of width*height, e.g. 1280*720. Got: ${String(params.size)}`;
    }
  }
  if (model.includes('i2v') && !str(input.img_url) && !Array.isArray(input.media)) return 'Field required: input.img_url';
  // The first frame is a URL or a base64 data URI.
  if (input.img_url !== undefined) {
    const refused = imageRefused('input.img_url', input.img_url, ['url', 'data_uri']);
    if (refused) return `The image parameter is invalid: ${refused}.`;
  }
  if (model.includes('kf2v') && !str(input.first_frame_url)) return 'Field required: input.first_frame_url';
  if (params.resolution !== undefined && !RESOLUTIONS.includes(params.resolution as string)) return 'The resolution parameter is invalid, it should be one of 480P, 720P, 1080P.';
  if (params.duration !== undefined && !(Number.isInteger(params.duration) && (params.duration as number) > 0)) return 'The duration parameter is invalid.';
  return undefined;
}

async function submit(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  // Video synthesis is async-only; without the header DashScope refuses with 403.
  if (String(ctx.req.headers['x-dashscope-async'] ?? '').toLowerCase() !== 'enable') {
    return fail(ctx, 403, 'AccessDenied', 'current user api does not support synchronous calls');
  }
  const body = parseJson(ctx.raw);
  if (!body) return fail(ctx, 400, 'InvalidParameter', 'The request body is not valid JSON.');
  const input = isObject(body.input) ? body.input : {};
  const params = isObject(body.parameters) ? body.parameters : {};
  const plan = planFrom(str(input.prompt) ?? '');
  if (submitFailure(ctx, plan, (s) => dashscopeError(s, plan.directives.code))) return;
  if (typeof body.model !== 'string' || body.model === '') return fail(ctx, 400, 'InvalidParameter', 'Model not exist.');
  if (body.model.startsWith('missing-')) return fail(ctx, 404, 'ModelNotFound', 'Model not exist.');
  if (!isObject(body.input)) return fail(ctx, 400, 'InvalidParameter', 'Field required: input');
  const p = problem(body.model, input, params);
  if (p) return fail(ctx, 400, 'InvalidParameter', p);
  const task = newTask(ctx, plan, { vendor: VENDOR, id: uuid(), kind: 'video-synthesis', model: body.model, prompt: str(input.prompt) ?? '', extra: { body } });
  if (await submitDelay(ctx, plan)) sendJson(ctx.res, 200, { request_id: uuid(), output: { task_id: task.id, task_status: 'PENDING' } });
}

const STATUS: Record<Phase, string> = { queued: 'PENDING', running: 'RUNNING', succeeded: 'SUCCEEDED', failed: 'FAILED' };

/** `2025-01-08 16:43:59.120`, Beijing time, as DashScope prints it. */
function cnTime(ms: number): string {
  return new Date(ms + 8 * 3600_000).toISOString().replace('T', ' ').replace('Z', '');
}

function output(ctx: Ctx, task: VideoTask, phase: Phase): Json {
  const out: Json = { task_id: task.id, task_status: STATUS[phase], submit_time: cnTime(task.createdAt) };
  if (phase !== 'queued') out.scheduled_time = cnTime(task.createdAt + 1);
  if (phase === 'succeeded' || phase === 'failed') out.end_time = cnTime(task.finishedAt ?? task.createdAt);
  if (phase === 'failed') {
    out.code = task.failReason ?? 'DataInspectionFailed';
    out.message = 'Output data may contain inappropriate content.';
  }
  if (phase === 'succeeded') {
    out.orig_prompt = task.prompt;
    out.actual_prompt = task.prompt;
    out.video_url = fileUrl(ctx.req, task);
  }
  return out;
}

/** The 16:9 output size of an i2v/kf2v resolution tier (the real one follows the input image's shape). */
const TIER_SIZE: Record<string, string> = { '480P': '832*480', '720P': '1280*720', '1080P': '1920*1080' };

/**
 * What DashScope bills by: `video_duration` seconds (× the resolution's per-second price), the output size as
 * `video_ratio`, one video: the request's `size`, else its `resolution` tier's size, else the model's default (t2v
 * 1920*1080 for wan2.2 and later, 1280*720 for wanx2.1; i2v/kf2v 1080P for wan2.2-plus and later, 720P for flash and
 * wanx2.1). The duration is the request's (default 5); the real figure can be a fraction off it.
 */
function usage(task: VideoTask): Json {
  const params = ((task.extra.body as Json).parameters ?? {}) as Json;
  const newer = /^wan(2\.[2-9]|[3-9])/.test(task.model);
  const byDefault = task.model.includes('t2v') ? (newer ? '1920*1080' : '1280*720') : TIER_SIZE[newer && !task.model.includes('flash') ? '1080P' : '720P'];
  const ratio = typeof params.size === 'string' ? params.size : TIER_SIZE[params.resolution as string] ?? byDefault;
  return { video_duration: Number(params.duration) || 5, video_ratio: ratio, video_count: 1 };
}

async function get(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const [id] = pathParams(ctx, QUERY);
  const task = storeOf(ctx.control).get(VENDOR, id);
  // DashScope answers an unknown task id with 200 and UNKNOWN rather than 404.
  if (!task) return sendJson(ctx.res, 200, { request_id: uuid(), output: { task_id: id, task_status: 'UNKNOWN' } });
  const phase = poll(task);
  const reply: Json = { request_id: uuid(), output: output(ctx, task, phase) };
  if (phase === 'succeeded') reply.usage = usage(task);
  sendJson(ctx.res, 200, reply);
}

export const dashscopeRoutes = [route('POST', SUBMIT, submit), route('GET', QUERY, get)];
