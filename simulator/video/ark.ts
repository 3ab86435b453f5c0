// Volcengine Ark (Seedance) video tasks: Bearer auth, content[] validation incl. asset:// refs, queued→running→succeeded|failed,
// and DELETE, which cancels a queued task or deletes a finished one.
import { type Ctx, sendJson } from '../http.js';
import {
  type Json, type VendorError, bearer, fileUrl, imageRefused, isObject, newTask, parseJson, pathParams, planFrom, retryHeaders, route, submitDelay, submitFailure, unixSeconds,
} from './common.js';
import { assetStatus } from './ark-assets.js';
import { arkDuration, arkResolution, arkTokens } from './ark-tokens.js';
import { type Phase, type VideoTask, arkId, phaseOf, poll, stableNumber, storeOf } from './task-store.js';

const VENDOR = 'ark';
const SUBMIT = '/api/v3/contents/generations/tasks';
const QUERY = /^\/api\/v3\/contents\/generations\/tasks\/([^/]+)$/;

const ROLES: Record<string, (string | undefined)[]> = {
  text: [undefined],
  image_url: [undefined, 'first_frame', 'last_frame', 'reference_image'],
  video_url: [undefined, 'reference_video'],
  audio_url: [undefined, 'reference_audio'],
};
const ASSET_TYPE: Record<string, string> = { image_url: 'Image', video_url: 'Video', audio_url: 'Audio' };
const TYPES: Record<number, [string, string]> = {
  400: ['InvalidParameter', 'BadRequest'], 401: ['AuthenticationError', 'Unauthorized'], 403: ['AccessDenied', 'Forbidden'],
  404: ['ResourceNotFound', 'NotFound'], 429: ['RateLimitExceeded', 'TooManyRequests'], 500: ['InternalServiceError', 'InternalServerError'],
  503: ['ServiceUnavailable', 'ServiceUnavailable'],
};
const RATIOS = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', 'adaptive'];
const RESOLUTIONS = ['480p', '720p', '1080p', '4k'];

function rid(): string {
  return `0217${Date.now()}${Math.random().toString(16).slice(2, 14)}`;
}

/** Ark appends the request id to every message. */
function arkBody(status: number, message: string, code?: string, param = ''): Json {
  const [defCode, type] = TYPES[status] ?? (status >= 500 ? TYPES[500] : TYPES[400]);
  return { error: { code: code ?? defCode, message: `${message} Request id: ${rid()}`, param, type } };
}

export function arkError(status: number, code?: string): VendorError {
  return { body: arkBody(status, `Simulated error (HTTP ${status}).`, code), headers: retryHeaders(status) };
}

function fail(ctx: Ctx, status: number, message: string, code?: string, param = ''): void {
  sendJson(ctx.res, status, arkBody(status, message, code, param));
}

function authorized(ctx: Ctx): boolean {
  const key = bearer(ctx);
  if (key !== undefined && ctx.keys.has(key)) return true;
  fail(ctx, 401, 'The API key or AK/SK in the request is missing or invalid.', 'AuthenticationError');
  return false;
}

type Problem = [message: string, param: string, code?: string];

/** Item types, roles, role mixing rules and asset:// references. */
function contentProblem(ctx: Ctx, model: string, content: unknown): Problem | undefined {
  if (!Array.isArray(content) || content.length === 0) return ['The request failed because it is missing one or multiple required parameters.', 'content', 'MissingParameter'];
  const roles: string[] = [];
  for (const [i, item] of content.entries()) {
    const p = `content[${i}]`;
    if (!isObject(item) || typeof item.type !== 'string' || !(item.type in ROLES)) return [`The parameter \`${p}.type\` specified in the request is not valid.`, `${p}.type`];
    if (!ROLES[item.type].includes(item.role as string | undefined)) return [`The parameter \`${p}.role\` specified in the request is not valid.`, `${p}.role`];
    if (item.type === 'text') {
      if (typeof item.text !== 'string') return [`The parameter \`${p}.text\` specified in the request is not valid.`, `${p}.text`];
      continue;
    }
    if ((item.type === 'video_url' || item.type === 'audio_url') && /seedance-1-/.test(model)) {
      return [`The parameter \`${p}.type\` specified in the request is not valid: ${item.type} is not supported by model ${model}.`, `${p}.type`];
    }
    const media = item[item.type];
    const url = isObject(media) ? media.url : undefined;
    if (typeof url !== 'string' || url === '') return [`The parameter \`${p}.${item.type}.url\` specified in the request is not valid.`, `${p}.${item.type}.url`];
    // An image is a URL, a base64 data URI or an asset:// reference.
    if (item.type === 'image_url' && imageRefused('url', url, ['url', 'data_uri', 'asset'])) {
      return [`The parameter \`${p}.image_url.url\` specified in the request is not valid: ${imageRefused('url', url, ['url', 'data_uri', 'asset'])}.`, `${p}.image_url.url`];
    }
    const assetProblem = url.startsWith('asset://') ? checkAsset(ctx, url.slice(8), ASSET_TYPE[item.type]) : undefined;
    if (assetProblem) return [assetProblem, `${p}.${item.type}.url`];
    if (item.role) roles.push(item.role as string);
  }
  if (roles.includes('last_frame') && !roles.includes('first_frame')) return ['The parameter `content` specified in the request is not valid: last_frame requires first_frame.', 'content'];
  if (roles.includes('reference_image') && roles.some((r) => r === 'first_frame' || r === 'last_frame')) {
    return ['The parameter `content` specified in the request is not valid: reference_image cannot be mixed with first_frame/last_frame.', 'content'];
  }
  return undefined;
}

/** Only an Active asset of the matching type, created through the assets API of this simulator, may be referenced. */
function checkAsset(ctx: Ctx, id: string, type: string): string | undefined {
  const asset = storeOf(ctx.control).assets.get(id);
  if (!asset) return `The asset \`${id}\` does not exist.`;
  const status = assetStatus(asset);
  if (status !== 'Active') return `The asset \`${id}\` is not available (Status: ${status}).`;
  return asset.AssetType === type ? undefined : `The asset \`${id}\` is of type ${asset.AssetType}, expected ${type}.`;
}

async function submit(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const body = parseJson(ctx.raw);
  if (!body) return fail(ctx, 400, 'The request body is not valid JSON.', 'InvalidParameter');
  const texts = Array.isArray(body.content) ? body.content.filter((c) => isObject(c) && c.type === 'text').map((c) => String((c as Json).text)) : [];
  const plan = planFrom(texts.join(' '));
  if (submitFailure(ctx, plan, (s) => arkError(s, plan.directives.code))) return;
  if (typeof body.model !== 'string' || body.model === '') return fail(ctx, 400, 'The request failed because it is missing one or multiple required parameters.', 'MissingParameter', 'model');
  if (body.model.startsWith('missing-')) {
    return fail(ctx, 404, `The model or endpoint ${body.model} does not exist or you do not have access to it.`, 'InvalidEndpointOrModel.NotFound');
  }
  const problem = contentProblem(ctx, body.model, body.content) ?? optionProblem(body);
  if (problem) return fail(ctx, 400, problem[0], problem[2] ?? 'InvalidParameter', problem[1]);
  const task = newTask(ctx, plan, { vendor: VENDOR, id: arkId('cgt'), kind: 'video', model: body.model, prompt: texts.join(' '), extra: { body } });
  if (await submitDelay(ctx, plan)) sendJson(ctx.res, 200, { id: task.id });
}

function optionProblem(b: Json): Problem | undefined {
  if (b.ratio !== undefined && !RATIOS.includes(b.ratio as string)) return ['The parameter `ratio` specified in the request is not valid.', 'ratio'];
  if (b.resolution !== undefined && !RESOLUTIONS.includes(b.resolution as string)) return ['The parameter `resolution` specified in the request is not valid.', 'resolution'];
  if (b.duration !== undefined && !(Number.isInteger(b.duration) && (b.duration as number) >= -1)) return ['The parameter `duration` specified in the request is not valid.', 'duration'];
  return undefined;
}

const STATUS: Record<Phase, string> = { queued: 'queued', running: 'running', succeeded: 'succeeded', failed: 'failed' };

function view(ctx: Ctx, task: VideoTask, phase: Phase): Json {
  const b = task.extra.body as Json;
  const resolution = arkResolution(task.model, b);
  const ratio = (b.ratio as string | undefined) ?? '16:9';
  const duration = arkDuration(b);
  const out: Json = {
    id: task.id, model: task.model, status: STATUS[phase], error: null,
    created_at: unixSeconds(task.createdAt), updated_at: unixSeconds(task.finishedAt ?? task.createdAt),
    seed: typeof b.seed === 'number' && b.seed >= 0 ? b.seed : stableNumber(task.id, 2 ** 31),
    resolution, ratio, duration, framespersecond: 24,
    service_tier: b.service_tier ?? 'default', execution_expires_after: b.execution_expires_after ?? 172800,
  };
  if (phase === 'failed') {
    out.error = { code: task.failReason ?? 'OutputVideoSensitiveContentDetected', message: `The request failed because the output video may contain sensitive information. Request id: ${rid()}` };
  }
  if (phase !== 'succeeded') return out;
  // What Ark bills: the video's tokens (ark-tokens.ts), completion_tokens = total_tokens as in every real answer.
  const tokens = arkTokens(task.model, b);
  return { ...out, content: { video_url: fileUrl(ctx.req, task) }, usage: { completion_tokens: tokens, total_tokens: tokens } };
}

/** The task, or a 404 answered (unknown or deleted). */
function find(ctx: Ctx): VideoTask | undefined {
  const [id] = pathParams(ctx, QUERY);
  const task = storeOf(ctx.control).get(VENDOR, id);
  if (task && !task.extra.deleted) return task;
  fail(ctx, 404, `The specified task \`${id}\` is not found.`, 'ResourceNotFound');
  return undefined;
}

async function get(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const task = find(ctx);
  if (!task) return;
  // A cancelled task stays queryable (Ark keeps it for 24 h) and no longer progresses.
  if (task.extra.cancelled) return sendJson(ctx.res, 200, { ...view(ctx, task, 'queued'), status: 'cancelled', updated_at: unixSeconds(task.finishedAt!) });
  sendJson(ctx.res, 200, view(ctx, task, poll(task)));
}

/**
 * `DELETE …/tasks/{id}`: Ark picks the effect from the status. Queued → cancelled (`{}`; later queries say
 * `cancelled`); succeeded or failed → the record is deleted (`{}`; later queries 404); running or cancelled → 400
 * (the wording is the simulator's).
 */
async function remove(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const task = find(ctx);
  if (!task) return;
  const phase = phaseOf(task);
  if (task.extra.cancelled || phase === 'running') {
    return fail(ctx, 400, `The task \`${task.id}\` is ${task.extra.cancelled ? 'cancelled' : 'running'} and can be neither cancelled nor deleted.`, 'InvalidParameter');
  }
  if (phase === 'queued') {
    task.extra.cancelled = true;
    task.finishedAt = Date.now();
  } else {
    task.extra.deleted = true;
  }
  sendJson(ctx.res, 200, {});
}

const LIST_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

/**
 * `GET …/tasks?page_num=&page_size=&filter.status=&filter.task_ids=&filter.model=`: the account's tasks, newest first,
 * `{items, total}`. Listing never counts as a poll. page_num and page_size are 1–500 (Ark's bounds); a bad one, or an
 * unknown status, is 400 naming the parameter. The cheapest call that checks a key.
 */
async function list(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const url = new URL(ctx.req.url ?? '/', 'http://sim');
  const bounded = (name: string, dflt: number): number | undefined => {
    const raw = url.searchParams.get(name);
    const n = raw === null ? dflt : Number(raw);
    return Number.isInteger(n) && n >= 1 && n <= 500 ? n : undefined;
  };
  const pageNum = bounded('page_num', 1);
  const pageSize = bounded('page_size', 10);
  if (pageNum === undefined) return fail(ctx, 400, 'The parameter `page_num` specified in the request is not valid.', 'InvalidParameter', 'page_num');
  if (pageSize === undefined) return fail(ctx, 400, 'The parameter `page_size` specified in the request is not valid.', 'InvalidParameter', 'page_size');
  const status = url.searchParams.get('filter.status');
  if (status !== null && !LIST_STATUSES.includes(status)) return fail(ctx, 400, 'The parameter `filter.status` specified in the request is not valid.', 'InvalidParameter', 'filter.status');
  const ids = url.searchParams.getAll('filter.task_ids');
  const model = url.searchParams.get('filter.model');
  const items = [...storeOf(ctx.control).tasks.values()]
    .filter((t) => t.vendor === VENDOR && !t.extra.deleted)
    .map((t) => (t.extra.cancelled ? { ...view(ctx, t, 'queued'), status: 'cancelled' } : view(ctx, t, phaseOf(t))))
    .filter((v) => (status === null || v.status === status) && (ids.length === 0 || ids.includes(v.id as string)) && (model === null || v.model === model))
    .reverse();
  sendJson(ctx.res, 200, { items: items.slice((pageNum - 1) * pageSize, pageNum * pageSize), total: items.length });
}

export const arkRoutes = [route('POST', SUBMIT, submit), route('GET', SUBMIT, list), route('GET', QUERY, get), route('DELETE', QUERY, remove)];
