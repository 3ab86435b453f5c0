// Volcengine visual API (Jimeng): V4-signed POST /?Action=CVSync2AsyncSubmitTask|CVSync2AsyncGetResult&Version=2022-08-31, code-10000 envelope, in_queue→generating→done.
import { randomBytes } from 'node:crypto';
import { type Ctx, sendJson } from '../http.js';
import { type Json, type VendorError, parseJson, planFrom, query, retryHeaders, str, submitFailure } from '../video/common.js';
import { rawBodyOf } from '../video/raw-body.js';
import { compactStamp, numericId } from '../video/task-store.js';
import { addFile, baseOf, mediaUrl } from './files.js';
import { pngBytes } from './png.js';
import { type MediaTask, type StatusWords, advance, isDone, mediaStoreOf, statusOf } from './store.js';
import { VOLC_REGION, VOLC_SERVICE, verifyVolcV4 } from './volc-sign.js';

const VENDOR = 'jimeng';
const VERSION = '2022-08-31';
export const JIMENG_ACTIONS = ['CVSync2AsyncSubmitTask', 'CVSync2AsyncGetResult'];
/** `done` for both outcomes: success or failure is told by the top-level code, as on the real API. */
const WORDS: StatusWords = { ladder: ['in_queue', 'generating'], success: 'done', failure: 'done' };
/** Business codes → [HTTP status, message], from the visual API's error table. 50400 (bad parameter) is the simulator's choice. */
const ERRORS: Record<number, [number, string]> = {
  50400: [400, 'Invalid Parameter'], 50411: [400, 'Pre Img Risk Not Pass'], 50511: [400, 'Post Img Risk Not Pass'],
  50412: [400, 'Text Risk Not Pass'], 50512: [400, 'Post Text Risk Not Pass'], 50413: [400, 'Post Text Risk Not Pass'],
  50516: [400, 'Post Video Risk Not Pass'], 50429: [429, 'Request Has Reached API Limit, Please Try Later'],
  50430: [429, 'Request Has Reached API Concurrent Limit, Please Try Later'], 50500: [500, 'Internal Error'], 50501: [500, 'Internal RPC Error'],
};
const IMAGE_KEY = /(^|_)(t2i|i2i)(_|$)|seedream|seededit/;
const RATIOS = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'];

function envelope(code: number, message: string, data: Json | null): Json {
  return {
    code, data, message, request_id: `${compactStamp()}${randomBytes(10).toString('hex').toUpperCase()}`, status: code,
    time_elapsed: `${(20 + Math.random() * 100).toFixed(6)}ms`,
  };
}

function business(ctx: Ctx, code: number, detail?: string): void {
  const [status, message] = ERRORS[code] ?? ERRORS[50500];
  sendJson(ctx.res, status, envelope(code, detail ? `${message}: ${detail}` : message, null), retryHeaders(status) ?? {});
}

/** For `submit_status` and scripted faults: the business code matching the HTTP status (or `code=` when it fits). */
export function jimengError(status: number, wanted?: string): VendorError {
  const w = Number(wanted);
  const code = ERRORS[w]?.[0] === status ? w : status === 429 ? 50429 : status >= 500 ? 50500 : 50400;
  return { body: envelope(code, ERRORS[code][1], null), headers: retryHeaders(status) };
}

/** Gateway-level errors (signature, unknown action) use Volcengine's OpenAPI envelope instead. */
export function volcMetaError(action: string, code: string, message: string, codeN?: number): Json {
  const requestId = `${compactStamp()}${randomBytes(10).toString('hex').toUpperCase()}`;
  const error = codeN === undefined ? { Code: code, Message: message } : { CodeN: codeN, Code: code, Message: message };
  return { ResponseMetadata: { RequestId: requestId, Action: action, Version: VERSION, Service: VOLC_SERVICE, Region: VOLC_REGION, Error: error } };
}

function submitProblem(b: Json, reqKey: string): string | undefined {
  const urls = Array.isArray(b.image_urls) && b.image_urls.length > 0;
  const b64 = Array.isArray(b.binary_data_base64) && b.binary_data_base64.length > 0;
  if (urls && b64) return 'image_urls and binary_data_base64 are mutually exclusive';
  if (/(^|_)(i2v|i2i)(_|$)|seededit/.test(reqKey) && !urls && !b64) return 'image_urls or binary_data_base64 is required';
  if (/(^|_)(t2v|t2i)(_|$)/.test(reqKey) && !str(b.prompt)) return 'prompt is required';
  if (b.aspect_ratio !== undefined && !RATIOS.includes(b.aspect_ratio as string)) return `aspect_ratio must be one of ${RATIOS.join(', ')}`;
  if (b.frames !== undefined && b.frames !== 121 && b.frames !== 241) return 'frames must be 121 or 241';
  for (const k of ['width', 'height']) {
    if (b[k] !== undefined && !(Number.isInteger(b[k]) && (b[k] as number) >= 256 && (b[k] as number) <= 4096)) return `${k} must be an integer in [256, 4096]`;
  }
  return undefined;
}

function submit(ctx: Ctx, b: Json): void {
  const plan = planFrom(str(b.prompt) ?? '');
  if (submitFailure(ctx, plan, (s) => jimengError(s, plan.directives.code))) return;
  const reqKey = str(b.req_key);
  if (!reqKey) return business(ctx, 50400, 'req_key is required');
  const problem = submitProblem(b, reqKey);
  if (problem) return business(ctx, 50400, problem);
  const store = mediaStoreOf(ctx.control);
  const image = IMAGE_KEY.test(reqKey);
  const width = (b.width as number | undefined) ?? 2048;
  const height = (b.height as number | undefined) ?? (b.width as number | undefined) ?? 2048;
  const count = Math.min(4, Math.max(1, Number(plan.directives.images) || 1));
  const task = store.create({
    vendor: VENDOR, id: numericId(19), kind: image ? 'image' : 'video', model: reqKey, prompt: str(b.prompt) ?? '', words: WORDS,
    base: baseOf(ctx.req), extra: { body: b, width, height, count, expireMs: Number(plan.directives.expire_ms) || undefined },
  }, plan);
  if (image) for (let i = 0; i < count; i++) addFile(store, { name: `${task.id}-${i}.png`, png: { width, height }, task, urlTtlMs: plan.urlTtlMs });
  else addFile(store, { name: `${task.id}.mp4`, size: plan.sizeBytes, task, urlTtlMs: plan.urlTtlMs });
  sendJson(ctx.res, 200, envelope(10000, 'Success', { task_id: task.id }));
}

function wantsUrls(b: Json): boolean {
  try {
    return (JSON.parse(String(b.req_json ?? '{}')) as Json).return_url === true;
  } catch {
    return false;
  }
}

/** `data` for a successful or running task; images carry both URLs and (unless req_json asks for URLs only) base64. */
function resultData(t: MediaTask, b: Json): Json {
  const status = statusOf(t);
  const data: Json = { status, video_url: '', image_urls: null, binary_data_base64: [], resp_data: '', aigc_meta_tagged: false };
  if (!isDone(t)) return data;
  if (t.kind === 'video') return { ...data, video_url: mediaUrl(t.base, `${t.id}.mp4`) };
  const names = t.files;
  const b64 = wantsUrls(b) ? [] : names.map((n) => pngBytes(t.extra.width as number, t.extra.height as number, n).toString('base64'));
  return { ...data, image_urls: names.map((n) => mediaUrl(t.base, n)), binary_data_base64: b64 };
}

function getResult(ctx: Ctx, b: Json): void {
  const id = str(b.task_id);
  if (!id) return business(ctx, 50400, 'task_id is required');
  const task = mediaStoreOf(ctx.control).get(VENDOR, id);
  // The task is looked up by id alone: new-api polls every task with a fixed req_key, and that works upstream.
  if (!task) return sendJson(ctx.res, 200, envelope(10000, 'Success', { status: 'not_found' }));
  const ttl = task.extra.expireMs as number | undefined;
  if (ttl !== undefined && task.finishedAt !== undefined && Date.now() - task.finishedAt > ttl) {
    return sendJson(ctx.res, 200, envelope(10000, 'Success', { status: 'expired' }));
  }
  advance(task, 'poll');
  if (isDone(task) && task.fail) {
    const code = Number(task.failReason) in ERRORS ? Number(task.failReason) : task.kind === 'video' ? 50516 : 50511;
    return business(ctx, code);
  }
  sendJson(ctx.res, 200, envelope(10000, 'Success', resultData(task, b)));
}

/** Signature first (every request is logged as verified or not), then Version, then the action. */
export async function jimeng(ctx: Ctx): Promise<void> {
  const action = query(ctx, 'Action') ?? '';
  const verdict = verifyVolcV4(ctx.req.method ?? 'POST', ctx.req.url ?? '/', ctx.req.headers, rawBodyOf(ctx.req, ctx.raw));
  mediaStoreOf(ctx.control).signatures.push({
    at: Date.now(), service: VOLC_SERVICE, action, ak: verdict.ak, ok: verdict.ok, code: verdict.code, reason: verdict.reason,
    signedHeaders: verdict.signedHeaders, canonicalRequest: verdict.canonicalRequest,
  });
  if (!verdict.ok) return sendJson(ctx.res, 401, volcMetaError(action, verdict.code ?? 'InvalidAuthorization', verdict.message ?? '', verdict.codeN));
  const version = query(ctx, 'Version') ?? '';
  if (version !== VERSION || !JIMENG_ACTIONS.includes(action)) return sendJson(ctx.res, 404, volcMetaError(action, 'InvalidActionOrVersion', `Could not find operation ${action} for version ${version}`));
  const body = parseJson(ctx.raw);
  if (!body) return business(ctx, 50400, 'request body is not valid JSON');
  return action === 'CVSync2AsyncSubmitTask' ? submit(ctx, body) : getResult(ctx, body);
}
