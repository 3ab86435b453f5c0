// midjourney-proxy (novicezk + plus): mj-api-secret auth, {code,description,result,properties} submits steered by [sim mj_code=N], task queries.
import { intDirective } from '../directives.js';
import { type Ctx, sendJson } from '../http.js';
import {
  type Json, type TaskPlan, type VendorError, parseJson, pathParams, planFrom, retryHeaders, route, str, submitDelay, submitFailure,
} from '../video/common.js';
import { stableNumber, uuid } from '../video/task-store.js';
import { addFile, baseOf, mediaUrl } from './files.js';
import { MJ, type NewMjTask, createMjTask, finishNow, mjPoll, mjView } from './midjourney-task.js';
import { type MediaTask, mediaStoreOf, statusOf } from './store.js';

/** The plus proxy's speed prefixes (`/mj-relax/mj/…`, …) pick the account's mode per request; plain `/mj/…` uses its default. */
const SPEED = '(?:\\/mj-(?:fast|relax|turbo))?';
const SUBMIT = new RegExp(`^${SPEED}\\/mj\\/submit\\/([a-z-]+)$`);
const SWAP = new RegExp(`^${SPEED}\\/mj\\/insight-face\\/swap$`);
const FETCH = new RegExp(`^${SPEED}\\/mj\\/task\\/([^/]+)\\/fetch$`);
const LIST = new RegExp(`^${SPEED}\\/mj\\/task\\/list-by-condition$`);
const SEED = new RegExp(`^${SPEED}\\/mj\\/task\\/([^/]+)\\/image-seed$`);

/** A midjourney-proxy path, with or without a speed prefix (faults and fault keys use it too). */
export const isMidjourneyPath = (path: string): boolean => /^\/mj(?:-(?:fast|relax|turbo))?\//.test(path);
const speedOf = (path: string): string | null => /^\/mj-(fast|relax|turbo)\//.exec(path)?.[1].toUpperCase() ?? null;
const DATA_URL = /^data:[\w.+-]+\/[\w.+-]+;base64,[A-Za-z0-9+/=\s]*$/;
const CHANGE_ACTIONS = ['UPSCALE', 'VARIATION', 'REROLL'];
const CHANGEABLE = ['IMAGINE', 'VARIATION', 'REROLL', 'BLEND', 'HIGH_VARIATION', 'LOW_VARIATION', 'PAN', 'ZOOM', 'CUSTOM_ZOOM', 'INPAINT'];
/** The proxy's own (Chinese) descriptions; clients act on `code`. 30 comes from proxy variants (new-api maps it to 429). */
const DESCRIPTIONS: Record<number, string> = {
  1: '提交成功', 3: '无可用的账号实例', 4: '参数错误', 9: '提交失败，系统异常', 21: '任务已存在', 23: '队列已满，请稍后尝试',
  24: '可能包含敏感词', 30: '当前分组负载已饱和，请稍后再试',
};
/** customId job → action, as the plus proxy (and new-api's /submit/action) derive it. */
const CUSTOM_ACTIONS: [RegExp, string][] = [
  [/::upsample::/, 'UPSCALE'], [/::low_variation::/, 'LOW_VARIATION'], [/::high_variation::/, 'HIGH_VARIATION'], [/::variation::/, 'VARIATION'],
  [/::reroll::/, 'REROLL'], [/::pan_/, 'PAN'], [/::Outpaint::/, 'ZOOM'], [/::CustomZoom::/, 'CUSTOM_ZOOM'], [/::Inpaint::/, 'INPAINT'],
];
const MODAL_ACTIONS = ['CUSTOM_ZOOM', 'INPAINT'];
/** Submit codes that mean the proxy took the request (a task exists, or the upload was stored): `submit_delay_ms` applies to these. */
const ACCEPTED = [1, 21, 22];

interface Reply { code: number; description: string; result?: unknown; properties?: Json }
type Submitter = (ctx: Ctx, b: Json, plan: TaskPlan) => Reply;

const invalid = (description: string): Reply => ({ code: 4, description });
const isDataUrl = (v: unknown): boolean => typeof v === 'string' && DATA_URL.test(v);
const strings = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Spring Boot's error body: the proxy is a Spring app, so HTTP-level errors (and scripted faults) look like this. */
export function springError(status: number, path = ''): VendorError {
  const names: Record<number, string> = {
    400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests',
    500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
  };
  const timestamp = new Date().toISOString().replace('Z', '+00:00');
  return { body: { timestamp, status, error: names[status] ?? 'Error', path }, headers: retryHeaders(status) };
}

/** The proxy's interceptor answers a wrong or missing secret with a bare 403 and no body. */
function authorized(ctx: Ctx): boolean {
  const secret = ctx.req.headers['mj-api-secret'];
  if (typeof secret === 'string' && ctx.keys.has(secret)) return true;
  ctx.res.writeHead(403, { 'content-length': 0 });
  ctx.res.end();
  return false;
}

/** Applies `[sim mj_code=N]` once the request validated: 1/21/22 create a task, the others refuse it. */
function accept(ctx: Ctx, plan: TaskPlan, init: NewMjTask): Reply {
  const code = intDirective(plan.directives, 'mj_code', 1);
  if (code === 24) {
    const words = init.prompt.replace(/\[sim[^\]]*\]/g, '').trim().split(/\s+/);
    return { code, description: DESCRIPTIONS[24], properties: { promptEn: init.prompt, bannedWord: plan.directives.banned_word ?? words[0] ?? '' } };
  }
  if (code !== 1 && code !== 21 && code !== 22) return { code, description: DESCRIPTIONS[code] ?? `Simulated code ${code}` };
  const task = createMjTask(ctx, plan, init);
  if (code === 21) {
    finishNow(task);
    return { code, description: DESCRIPTIONS[21], result: task.id, properties: { status: 'SUCCESS', imageUrl: mjView(task).imageUrl } };
  }
  if (code === 22) {
    const n = intDirective(plan.directives, 'queue', 1);
    return { code, description: `排队中，前面还有${n}个任务`, result: task.id, properties: { numberOfQueues: n } };
  }
  return { code: 1, description: DESCRIPTIONS[1], result: task.id };
}

/** The task an action continues: it must exist (code 3) and have succeeded (code 4). */
function origin(ctx: Ctx, id: unknown): MediaTask | Reply {
  const t = typeof id === 'string' ? mediaStoreOf(ctx.control).get(MJ, id) : undefined;
  if (!t) return { code: 3, description: '关联任务不存在或已失效' };
  return statusOf(t) === 'SUCCESS' ? t : invalid('关联任务状态错误');
}

const isReply = (v: MediaTask | Reply): v is Reply => 'code' in v;

const change: Submitter = (ctx, b, plan) => {
  if (!str(b.taskId)) return invalid('taskId不能为空');
  const action = String(b.action ?? '');
  if (!CHANGE_ACTIONS.includes(action)) return invalid('action参数错误');
  const index = Number(b.index);
  if (action !== 'REROLL' && !(Number.isInteger(index) && index >= 1 && index <= 4)) return invalid('index参数错误');
  const description = `/up ${b.taskId as string} ${action === 'REROLL' ? 'R' : `${action[0]}${index}`}`;
  // The same button pressed twice is answered with the existing task (novicezk's code 21).
  const existing = [...mediaStoreOf(ctx.control).tasks.values()].find((t) => t.vendor === MJ && t.extra.description === description);
  if (existing) return { code: 21, description: DESCRIPTIONS[21], result: existing.id, properties: { status: statusOf(existing), imageUrl: mjView(existing).imageUrl } };
  const from = origin(ctx, b.taskId);
  if (isReply(from)) return from;
  if (!CHANGEABLE.includes(from.kind)) return invalid('关联任务不允许执行变化');
  return accept(ctx, plan, { action, prompt: from.prompt, description, body: b });
};

const SUBMITTERS: Record<string, Submitter> = {
  imagine(ctx, b, plan) {
    const prompt = str(b.prompt) ?? '';
    const images = [...strings(b.base64Array), ...(str(b.base64) ? [b.base64] : [])];
    if (prompt.trim() === '' && images.length === 0) return invalid('prompt不能为空');
    if (!images.every(isDataUrl)) return invalid('base64格式错误');
    return accept(ctx, plan, { action: 'IMAGINE', prompt, description: `/imagine ${prompt}`, body: b });
  },
  blend(ctx, b, plan) {
    const images = strings(b.base64Array);
    if (images.length < 2 || images.length > 5) return invalid('base64List参数错误');
    if (!images.every(isDataUrl)) return invalid('base64格式错误');
    if (b.dimensions !== undefined && !['PORTRAIT', 'SQUARE', 'LANDSCAPE'].includes(b.dimensions as string)) return invalid('dimensions参数错误');
    return accept(ctx, plan, { action: 'BLEND', prompt: '', description: `/blend ${images.length}`, body: b });
  },
  describe(ctx, b, plan) {
    if (!str(b.base64)) return invalid('base64不能为空');
    if (!isDataUrl(b.base64)) return invalid('base64格式错误');
    return accept(ctx, plan, { action: 'DESCRIBE', prompt: '', description: '/describe', body: b });
  },
  shorten(ctx, b, plan) {
    const prompt = str(b.prompt) ?? '';
    if (prompt.trim() === '') return invalid('prompt不能为空');
    return accept(ctx, plan, { action: 'SHORTEN', prompt, description: `/shorten ${prompt}`, body: b });
  },
  change,
  'simple-change'(ctx, b, plan) {
    const m = /^(\S+)\s+(U[1-4]|V[1-4]|R)$/.exec(String(b.content ?? '').trim());
    if (!m) return invalid('content参数错误');
    const action = m[2] === 'R' ? 'REROLL' : m[2][0] === 'U' ? 'UPSCALE' : 'VARIATION';
    return change(ctx, { ...b, taskId: m[1], action, index: Number(m[2].slice(1)) || undefined }, plan);
  },
  action(ctx, b, plan) {
    if (!str(b.customId)) return invalid('customId不能为空');
    if (!str(b.taskId)) return invalid('taskId不能为空');
    const from = origin(ctx, b.taskId);
    if (isReply(from)) return from;
    const action = CUSTOM_ACTIONS.find(([re]) => re.test(b.customId as string))?.[1];
    if (!action) return invalid('customId参数错误');
    const init = { action, prompt: from.prompt, description: `/action ${from.id} ${b.customId as string}`, body: b };
    if (!MODAL_ACTIONS.includes(action)) return accept(ctx, plan, init);
    // Plus: zoom/region need a modal (prompt, mask) first; the task waits as MODAL until /submit/modal.
    const task = createMjTask(ctx, plan, { ...init, hold: 'MODAL' });
    return { code: 21, description: '窗口等待', result: task.id, properties: { status: 'MODAL', imageUrl: null } };
  },
  modal(ctx, b, plan) {
    if (!str(b.taskId)) return invalid('taskId不能为空');
    const task = mediaStoreOf(ctx.control).get(MJ, b.taskId as string);
    if (!task) return { code: 3, description: '任务不存在或已失效' };
    if (task.hold !== 'MODAL') return invalid('任务状态错误');
    task.hold = undefined;
    if (str(b.prompt)) task.prompt = b.prompt as string;
    if (plan.fail) Object.assign(task, { fail: true, failReason: plan.failReason });
    if (plan.directives.polls !== undefined) task.pollsBeforeDone = plan.pollsBeforeDone;
    return { code: 1, description: DESCRIPTIONS[1], result: task.id };
  },
  video(ctx, b, plan) {
    if (!str(b.taskId) && !str(b.image) && !str(b.base64)) return invalid('image或taskId不能为空');
    if (str(b.base64) && !isDataUrl(b.base64)) return invalid('base64格式错误');
    if (str(b.taskId)) {
      const from = origin(ctx, b.taskId);
      if (isReply(from)) return from;
    }
    const prompt = str(b.prompt) ?? '';
    return accept(ctx, plan, { action: 'VIDEO', prompt, description: `/video ${prompt}`.trim(), body: b });
  },
  'upload-discord-images'(ctx, b) {
    const images = strings(b.base64Array);
    if (images.length === 0) return invalid('base64Array不能为空');
    if (!images.every(isDataUrl)) return invalid('base64格式错误');
    // No task: the proxy answers with the uploaded images' URLs in `result`.
    const store = mediaStoreOf(ctx.control);
    const urls = images.map((_, i) => addFile(store, { name: `upload-${uuid()}-${i}.png`, png: { width: 1024, height: 1024 } }));
    return { code: 1, description: DESCRIPTIONS[1], result: urls.map((f) => mediaUrl(baseOf(ctx.req), f.name)) };
  },
  swap(ctx, b, plan) {
    if (!str(b.sourceBase64)) return invalid('sourceBase64不能为空');
    if (!str(b.targetBase64)) return invalid('targetBase64不能为空');
    if (!isDataUrl(b.sourceBase64) || !isDataUrl(b.targetBase64)) return invalid('base64格式错误');
    return accept(ctx, plan, { action: 'SWAP_FACE', prompt: '', description: '/swap', body: b });
  },
};

/** Directives come from `prompt` and `state` (the pass-through field), so prompt-less actions can be steered too. */
async function submit(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const kind = SWAP.test(ctx.path) ? 'swap' : pathParams(ctx, SUBMIT)[0];
  const submitter = Object.hasOwn(SUBMITTERS, kind) ? SUBMITTERS[kind] : undefined;
  if (!submitter) return void sendJson(ctx.res, 404, springError(404, ctx.path).body);
  const body = parseJson(ctx.raw);
  if (!body) return void sendJson(ctx.res, 400, springError(400, ctx.path).body);
  const plan = planFrom(`${str(body.prompt) ?? ''} ${str(body.state) ?? ''}`);
  if (submitFailure(ctx, plan, (s) => springError(s, ctx.path))) return;
  const r = submitter(ctx, body, plan);
  const task = typeof r.result === 'string' ? mediaStoreOf(ctx.control).get(MJ, r.result) : undefined;
  if (task && task.extra.speed === undefined) task.extra.speed = speedOf(ctx.path);
  if (ACCEPTED.includes(r.code) && !(await submitDelay(ctx, plan))) return;
  sendJson(ctx.res, 200, { code: r.code, description: r.description, result: r.result ?? null, properties: r.properties ?? {} });
}

/** Unknown ids: Spring serialises the null task as an empty 200 body, as the real proxy does. */
async function fetchOne(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const store = mediaStoreOf(ctx.control);
  const task = store.get(MJ, pathParams(ctx, FETCH)[0]);
  if (!task) {
    ctx.res.writeHead(200, { 'content-length': 0 });
    return void ctx.res.end();
  }
  sendJson(ctx.res, 200, mjPoll(store, task));
}

/** Batch query (what new-api polls with): every listed task counts one poll; unknown ids are left out. */
async function listByCondition(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const body = parseJson(ctx.raw);
  if (!body) return void sendJson(ctx.res, 400, springError(400, ctx.path).body);
  const ids = new Set(strings(body.ids).filter((i): i is string => typeof i === 'string'));
  const store = mediaStoreOf(ctx.control);
  const found = [...store.tasks.values()].filter((t) => t.vendor === MJ && ids.has(t.id));
  sendJson(ctx.res, 200, found.map((t) => mjPoll(store, t)));
}

async function imageSeed(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const task = mediaStoreOf(ctx.control).get(MJ, pathParams(ctx, SEED)[0]);
  const r: Reply = !task ? { code: 3, description: '任务不存在' }
    : statusOf(task) !== 'SUCCESS' ? invalid('任务状态错误')
      : { code: 1, description: 'Success', result: String(stableNumber(task.id, 2 ** 32)) };
  sendJson(ctx.res, 200, { code: r.code, description: r.description, result: r.result ?? null, properties: {} });
}

export const midjourneyRoutes = [
  route('POST', SUBMIT, submit), route('POST', SWAP, submit), route('GET', FETCH, fetchOne),
  route('POST', LIST, listByCondition), route('GET', SEED, imageSeed),
];
