// OpenAI Videos (Sora 2): JSON or multipart create, remix, list/delete, the `video` object (queued→in_progress→completed|failed), bytes at /content.
import { type Ctx, errorBody, openaiAuthorized, sendJson, statusError } from '../http.js';
import {
  type Json, isObject, newTask, parseJson, pathParams, planFrom, query, route, submitDelay, submitFailure, unixSeconds,
} from './common.js';
import { serveVideoBytes } from './files.js';
import { rawBodyOf } from './raw-body.js';
import { type Phase, type VideoTask, openaiVideoId, phaseOf, poll, progressOf, storeOf } from './task-store.js';

const VENDOR = 'sora';
// Kling owns /v1/videos/{text2video,image2video}; everything else under /v1/videos/ is a Sora id.
const ONE = /^\/v1\/videos\/(?!text2video$|image2video$)([^/]+)$/;
const CONTENT = /^\/v1\/videos\/([^/]+)\/content$/;
const REMIX = /^\/v1\/videos\/([^/]+)\/remix$/;
const SECONDS = ['4', '8', '12'];
const SIZES = ['720x1280', '1280x720'];
const PRO_SIZES = [...SIZES, '1024x1792', '1792x1024'];
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'];
// An OpenAI-compatible reseller tier on the same API (the contract's fixed-duration family): fixed seconds, several references.
const RESELLER_SECONDS: Record<string, string> = { 'fixdur-pro': '10', 'fixdur-max': '15' };

function invalid(ctx: Ctx, message: string, param: string | null, code: string | null, status = 400): void {
  sendJson(ctx.res, status, errorBody(message, 'invalid_request_error', param, code));
}


interface CreateFields {
  model: unknown;
  prompt: unknown;
  seconds: unknown;
  size: unknown;
  input_reference: unknown;
}

/** multipart/form-data (the documented form) or JSON; undefined = unparseable, already answered. */
async function readFields(ctx: Ctx): Promise<CreateFields | undefined> {
  const ct = String(ctx.req.headers['content-type'] ?? '');
  if (/^multipart\/form-data|^application\/x-www-form-urlencoded/i.test(ct)) {
    try {
      // Undici's parser: no dependency, and it handles boundaries and binary parts.
      const form = await new Response(new Uint8Array(rawBodyOf(ctx.req, ctx.raw)), { headers: { 'content-type': ct } }).formData();
      const get = (k: string): unknown => form.get(k) ?? undefined;
      const refs = form.getAll('input_reference');
      return { model: get('model'), prompt: get('prompt'), seconds: get('seconds'), size: get('size'), input_reference: refs.length > 1 ? refs : refs[0] };
    } catch {
      invalid(ctx, 'Could not parse multipart form data.', null, null);
      return undefined;
    }
  }
  const body = parseJson(ctx.raw);
  if (!body) {
    invalid(ctx, "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)", null, null);
    return undefined;
  }
  return body as unknown as CreateFields;
}

function choice(value: unknown, allowed: string[], param: string): [string, string, string] | undefined {
  const list = allowed.map((v) => `'${v}'`).join(', ');
  if (typeof value !== 'string') return [`Invalid type for '${param}': expected one of ${list}, but got ${typeof value} instead.`, param, 'invalid_type'];
  return allowed.includes(value) ? undefined : [`Invalid value: '${value}'. Supported values are: ${list}.`, param, 'invalid_value'];
}

/** Returns [message, param, code] for the first problem. */
function problem(f: CreateFields, model: string): [string, string, string] | undefined {
  if (typeof f.prompt !== 'string' || f.prompt.trim() === '') return ["Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter'];
  if (RESELLER_SECONDS[model]) return resellerProblem(f, RESELLER_SECONDS[model]);
  if (!model.startsWith('sora-2')) return [`Invalid value: '${model}'. Supported values are: 'sora-2', 'sora-2-pro'.`, 'model', 'invalid_value'];
  if (f.seconds !== undefined) {
    const p = choice(f.seconds, SECONDS, 'seconds');
    if (p) return p;
  }
  if (f.size !== undefined) {
    const p = choice(f.size, model.startsWith('sora-2-pro') ? PRO_SIZES : SIZES, 'size');
    if (p) return p;
  }
  const ref = f.input_reference;
  if (ref === undefined) return undefined;
  if (ref instanceof Blob) {
    const name = String((ref as Blob & { name?: string }).name ?? '');
    const typed = IMAGE_TYPES.includes(ref.type) || (/octet-stream|^$/.test(ref.type) && /\.(png|jpe?g|webp)$/i.test(name));
    return typed ? undefined : [`Invalid file type '${ref.type}' for 'input_reference'. Supported types: ${IMAGE_TYPES.join(', ')}.`, 'input_reference', 'invalid_value'];
  }
  const okJson = isObject(ref) && (typeof ref.image_url === 'string' || typeof ref.file_id === 'string');
  return okJson ? undefined : ["Invalid 'input_reference': expected a file, or an object with 'image_url' or 'file_id'.", 'input_reference', 'invalid_type'];
}

function resellerProblem(f: CreateFields, seconds: string): [string, string, string] | undefined {
  if (f.seconds !== undefined && String(f.seconds) !== seconds) return [`Invalid value: '${String(f.seconds)}'. This tier renders exactly ${seconds} seconds.`, 'seconds', 'invalid_value'];
  const refs = Array.isArray(f.input_reference) ? f.input_reference : f.input_reference === undefined ? [] : [f.input_reference];
  return refs.every((r) => r instanceof Blob) ? undefined : ["'input_reference' must be uploaded files for this tier.", 'input_reference', 'invalid_type'];
}

async function create(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const f = await readFields(ctx);
  if (!f) return;
  const plan = planFrom(typeof f.prompt === 'string' ? f.prompt : '');
  if (submitFailure(ctx, plan, (s) => statusError(s))) return;
  const model = f.model === undefined ? 'sora-2' : String(f.model);
  const p = problem(f, model);
  if (p) return invalid(ctx, ...p);
  const asRef = (r: unknown) => (r instanceof Blob ? { bytes: r.size, type: r.type } : r);
  const ref = Array.isArray(f.input_reference) ? f.input_reference.map(asRef) : asRef(f.input_reference) ?? null;
  const task = newTask(ctx, plan, {
    vendor: VENDOR, id: openaiVideoId(), kind: 'video', model, prompt: f.prompt as string,
    extra: { seconds: (f.seconds as string | undefined) ?? '4', size: (f.size as string | undefined) ?? '720x1280', input_reference: ref },
  });
  if (await submitDelay(ctx, plan)) sendJson(ctx.res, 200, videoObject(task, 'queued'));
}

const STATUS: Record<Phase, string> = { queued: 'queued', running: 'in_progress', succeeded: 'completed', failed: 'failed' };

function videoObject(task: VideoTask, phase: Phase): Json {
  const done = phase === 'succeeded' && task.finishedAt !== undefined;
  const ttl = task.urlTtlMs !== undefined ? Math.ceil(task.urlTtlMs / 1000) : 3600;
  return {
    id: task.id, object: 'video', model: task.model, status: STATUS[phase], progress: progressOf(task, phase),
    created_at: unixSeconds(task.createdAt), completed_at: done ? unixSeconds(task.finishedAt) : null,
    expires_at: done ? unixSeconds(task.finishedAt) + ttl : null,
    prompt: task.prompt, seconds: task.extra.seconds, size: task.extra.size,
    remixed_from_video_id: (task.extra.remixed_from_video_id as string | undefined) ?? null,
    error: phase === 'failed' ? { code: task.failReason ?? 'moderation_blocked', message: 'Your request was blocked by our moderation system.' } : null,
  };
}

function find(ctx: Ctx, id: string): VideoTask | undefined {
  const task = storeOf(ctx.control).get(VENDOR, id);
  if (!task || task.extra.deleted) {
    invalid(ctx, `Video with id '${id}' not found.`, null, 'video_not_found', 404);
    return undefined;
  }
  return task;
}

async function retrieve(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const task = find(ctx, pathParams(ctx, ONE)[0]);
  if (task) sendJson(ctx.res, 200, videoObject(task, poll(task)));
}

async function remove(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const task = find(ctx, pathParams(ctx, ONE)[0]);
  if (!task) return;
  task.extra.deleted = true;
  sendJson(ctx.res, 200, { id: task.id, object: 'video.deleted', deleted: true });
}

/** Newest first unless `order=asc`; `after` is the last id of the previous page (deleted ids still work as cursors). */
async function list(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const rawLimit = query(ctx, 'limit');
  const limit = rawLimit === null ? 20 : Number(rawLimit);
  if (!Number.isInteger(limit)) return invalid(ctx, `Invalid type for 'limit': expected an integer, but got a string instead.`, 'limit', 'invalid_type');
  if (limit < 0) return invalid(ctx, `Invalid 'limit': integer below minimum value. Expected a value >= 0, but got ${limit} instead.`, 'limit', 'integer_below_min_value');
  if (limit > 100) return invalid(ctx, `Invalid 'limit': integer above maximum value. Expected a value <= 100, but got ${limit} instead.`, 'limit', 'integer_above_max_value');
  const order = query(ctx, 'order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') return invalid(ctx, `Invalid value: '${order}'. Supported values are: 'asc' and 'desc'.`, 'order', 'invalid_value');
  const all = [...storeOf(ctx.control).tasks.values()].filter((t) => t.vendor === VENDOR);
  if (order === 'desc') all.reverse();
  const after = query(ctx, 'after');
  // An unknown cursor gives an empty page rather than an error, so a paging client always terminates.
  const start = after === null ? 0 : all.findIndex((t) => t.id === after) + 1 || all.length;
  const rest = all.slice(start).filter((t) => !t.extra.deleted);
  const data = rest.slice(0, limit).map((t) => videoObject(t, phaseOf(t)));
  sendJson(ctx.res, 200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rest.length > limit });
}

/**
 * `POST /v1/videos/{id}/remix {prompt}` (JSON or multipart): a new task with the source's model, seconds and size and
 * `remixed_from_video_id`, progressing like any other. Unknown/deleted source → 404; a source that is not `completed` → 400.
 */
async function remix(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const f = await readFields(ctx);
  if (!f) return;
  const plan = planFrom(typeof f.prompt === 'string' ? f.prompt : '');
  if (submitFailure(ctx, plan, (s) => statusError(s))) return;
  if (typeof f.prompt !== 'string' || f.prompt.trim() === '') return invalid(ctx, "Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter');
  const source = find(ctx, pathParams(ctx, REMIX)[0]);
  if (!source) return;
  const phase = phaseOf(source);
  if (phase !== 'succeeded') {
    return invalid(ctx, `Video '${source.id}' cannot be remixed because its status is '${STATUS[phase]}'. Only completed videos can be remixed.`, null, null);
  }
  const task = newTask(ctx, plan, {
    vendor: VENDOR, id: openaiVideoId(), kind: 'video', model: source.model, prompt: f.prompt,
    extra: { seconds: source.extra.seconds, size: source.extra.size, input_reference: null, remixed_from_video_id: source.id },
  });
  if (await submitDelay(ctx, plan)) sendJson(ctx.res, 200, videoObject(task, 'queued'));
}

/** Bytes only once completed (404 before, like the live API); `variant=thumbnail|spritesheet` get small images. */
async function content(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const task = find(ctx, pathParams(ctx, CONTENT)[0]);
  if (!task) return;
  if (phaseOf(task) !== 'succeeded') {
    return invalid(ctx, `Video is not ready yet, use GET /v1/videos/${task.id} to check the status.`, null, 'video_not_ready', 404);
  }
  const variant = query(ctx, 'variant') ?? 'video';
  if (variant === 'video') return serveVideoBytes(ctx, task.fileName, task.sizeBytes);
  if (variant !== 'thumbnail' && variant !== 'spritesheet') return invalid(ctx, `Invalid value: '${variant}'. Supported values are: 'video', 'thumbnail', 'spritesheet'.`, 'variant', 'invalid_value');
  return serveVideoBytes(ctx, `${task.fileName}.${variant}`, 4096, { 'content-type': variant === 'thumbnail' ? 'image/webp' : 'image/jpeg' });
}

export const soraRoutes = [
  route('POST', '/v1/videos', create),
  route('GET', '/v1/videos', list),
  route('GET', ONE, retrieve),
  route('DELETE', ONE, remove),
  route('GET', CONTENT, content),
  route('POST', REMIX, remix),
];
