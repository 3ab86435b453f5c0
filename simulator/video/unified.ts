// Reseller "unified video" format: POST /v1/video/create → `<model>:<id>`, GET /v1/video/query?id= (pending→processing→completed|failed).
import { type Ctx, errorBody, sendJson, statusError } from '../http.js';
import { type Json, bearer, fileUrl, newTask, parseJson, planFrom, query, route, str, submitDelay, submitFailure } from './common.js';
import { type Phase, poll, storeOf, uuid } from './task-store.js';

const VENDOR = 'unified';
const STATUS: Record<Phase, string> = { queued: 'pending', running: 'processing', succeeded: 'completed', failed: 'failed' };

function fail(ctx: Ctx, status: number, message: string, code: string | null = null): void {
  sendJson(ctx.res, status, errorBody(message, status === 401 ? 'invalid_request_error' : status >= 500 ? 'server_error' : 'invalid_request_error', null, code));
}

function authorized(ctx: Ctx): boolean {
  const key = bearer(ctx);
  if (key !== undefined && ctx.keys.has(key)) return true;
  fail(ctx, 401, key === undefined ? 'Missing API key.' : 'Invalid API key.', 'invalid_api_key');
  return false;
}

async function create(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const body = parseJson(ctx.raw);
  if (!body) return fail(ctx, 400, 'Invalid JSON body.', 'invalid_request');
  const plan = planFrom(str(body.prompt) ?? '');
  if (submitFailure(ctx, plan, (s) => statusError(s))) return;
  if (typeof body.model !== 'string' || body.model === '') return fail(ctx, 400, 'model is required', 'invalid_request');
  if (typeof body.prompt !== 'string' || body.prompt === '') return fail(ctx, 400, 'prompt is required', 'invalid_request');
  if (body.images !== undefined && !(Array.isArray(body.images) && body.images.every((i) => typeof i === 'string'))) {
    return fail(ctx, 400, 'images must be an array of URLs', 'invalid_request');
  }
  // The model travels inside the id, which is how these resellers route the later query.
  const task = newTask(ctx, plan, { vendor: VENDOR, id: `${body.model}:${uuid()}`, kind: 'video', model: body.model, prompt: body.prompt, extra: { body } });
  task.extra.statusTime = task.createdAt;
  task.extra.status = 'pending';
  if (await submitDelay(ctx, plan)) sendJson(ctx.res, 200, { id: task.id, status: 'pending', status_update_time: task.createdAt });
}

async function get(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const id = query(ctx, 'id') ?? '';
  const task = storeOf(ctx.control).get(VENDOR, id);
  if (!task) return fail(ctx, 404, `task ${id} not found`, 'task_not_found');
  const phase = poll(task);
  const status = STATUS[phase];
  if (task.extra.status !== status) Object.assign(task.extra, { status, statusTime: Date.now() });
  const body = task.extra.body as Json;
  const videoUrl = phase === 'succeeded' ? fileUrl(ctx.req, task) : null;
  const detail: Json = {
    id: task.id, model: task.model, status, prompt: task.prompt, images: body.images ?? [], aspect_ratio: body.aspect_ratio ?? '16:9', video_url: videoUrl,
  };
  if (phase === 'failed') detail.fail_reason = task.failReason ?? 'generation failed: content policy violation';
  sendJson(ctx.res, 200, {
    id: task.id, status, video_url: videoUrl, enhanced_prompt: body.enhance_prompt ? task.prompt : null,
    status_update_time: task.extra.statusTime, detail,
  });
}

export const unifiedRoutes = [route('POST', '/v1/video/create', create), route('GET', '/v1/video/query', get)];
