// Task submit: validate → reserve an in-flight slot and the quota → dispatch once → store the record → answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway.js';
import type { CompiledChannel, CompiledOperation, CompiledRoute } from '../config/runtime.js';
import type { RequestContext } from '../pipeline/context.js';
import { GatewayError, clip } from '../http/errors.js';
import { describeAjvErrors } from '../config/schema-registry.js';
import { readJsonBody } from '../policies/read-json-body.js';
import { resolveModel } from '../pipeline/model-access.js';
import { pickModel } from '../pipeline/pick-model.js';
import { dispatch, submitRetry, upstreamClientError } from '../pipeline/dispatch.js';
import { readLimited } from '../transport/read-limited.js';
import { encodeMultipart } from '../http/multipart.js';
import { taskCharge } from '../billing/price.js';
import { readPriceInputs } from '../billing/price-inputs.js';
import { reserve } from '../billing/reservation.js';
import { isFinal, newTaskId, nowSeconds, smallObject, stringVars, type TaskRecord } from './task-record.js';
import { normalise } from './status-map.js';
import { applyUpdate } from './apply-update.js';
import { answerTask } from './answer.js';
import { baseUrlOf } from '../http/base-url.js';

export async function submitTask(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const route = ctx.route!;
  const { body: raw } = await readJsonBody(g, ctx, req);
  const { body, pin } = await resolveRefs(g, ctx, raw);
  const model = await pickModel(ctx, body);
  ctx.model = model;
  const token = ctx.token!;
  const price = resolveModel(g, token, model, route.operation);
  const extra = g.runtime.modelSchemas.get(model);
  if (extra && !extra(body)) throw new GatewayError('invalid_request', describeAjvErrors(extra.errors));
  const inputs = readPriceInputs(route.priceInputs, price, body);
  const callback = callbackUrl(route, body);
  const amount = taskCharge(price, inputs);
  const id = newTaskId();
  await holdSlotAndQuota(g, ctx, id, amount);
  let rec: TaskRecord;
  try {
    rec = await dispatchSubmit(g, ctx, req, res, { id, model, body, seconds: inputs.seconds, amount, callback, baseUrl: baseUrlOf(req), pin });
  } catch (err) {
    await abandon(g, token.id, id, amount);
    ctx.charged = 0;
    throw err;
  }
  await answerTask(g, route, rec, res, baseUrlOf(req));
}

/** A submit that failed: its money, its slot and its pending record go, in that order (recovery.ts copes with a crash between). */
async function abandon(g: Gateway, account: string, id: string, amount: number): Promise<void> {
  await g.store.quota.refund(account, id, amount);
  await g.store.tasks.close(id);
  await g.tasks.delete(id);
}

/** Both holds are atomic in the store; the slot is taken first so a saturated group costs no ledger entry. */
async function holdSlotAndQuota(g: Gateway, ctx: RequestContext, id: string, amount: number): Promise<void> {
  const token = ctx.token!;
  const limit = g.runtime.groups.get(token.group)?.max_inflight_tasks;
  if (!(await g.store.tasks.open(id, token.group, limit, Date.now() + g.runtime.tasks.poll_base_ms))) {
    throw new GatewayError('too_many_requests', `The upstream load of group ${token.group} is saturated (${limit} tasks in flight); retry later`);
  }
  try {
    await reserve(g, ctx, token.id, id, amount, 'durable');
  } catch (err) {
    await g.store.tasks.close(id);
    throw err;
  }
}

interface Submit { id: string; model: string; body: Record<string, unknown>; seconds?: number; amount: number; callback?: string; baseUrl: string; pin?: string }

async function dispatchSubmit(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse, s: Submit): Promise<TaskRecord> {
  const route = ctx.route!;
  const d = await dispatch(g, ctx, req, res, ctx.token!.group, s.model, route.operation, (ch, um) => buildSubmit(g, ctx, ch, s, um), submitRetry, s.pin);
  const status = d.response.statusCode ?? 502;
  if (status >= 500) { d.response.resume(); throw new GatewayError('upstream_error', `Upstream failed: HTTP ${status}`); }
  if (status >= 400) throw await upstreamClientError(d, route.operation);
  const op = d.channel.operations.get(route.operation)!;
  let parsed: unknown;
  try {
    parsed = JSON.parse((await readLimited(d.response, 4 << 20, d.channel.timeouts.idle_ms)).toString('utf8'));
  } catch {
    throw new GatewayError('bad_response', 'copy_response_body_failed');
  }
  const mapped = (op.response ? await op.response.run(parsed, { model: d.upstreamModel, task_id: s.id, path: d.path, request: s.body }) : parsed) as Record<string, unknown> | undefined;
  if (mapped?.reject) throw rejection(mapped.reject);
  if (mapped?.error) throw new GatewayError('task_failed', `The upstream refused the task: ${bounded(typeof mapped.error === 'string' ? mapped.error : JSON.stringify(mapped.error))}`);
  const upstreamId = mapped?.upstream_id ?? mapped?.id;
  if (upstreamId === undefined || upstreamId === null || upstreamId === '') throw new GatewayError('bad_response', 'copy_response_body_failed');
  const rec = { ...newRecord(ctx, s, d.channel, d.upstreamModel, String(upstreamId)), vars: stringVars(mapped?.vars), extra: smallObject(mapped?.extra) };
  return acceptTask(g, op, rec, mapped ?? {});
}

/**
 * The vendor accepted: the record is saved before the client's answer, so a crash after the answer loses no task.
 * The task's lease is taken first: recovery takes it too before it touches a pending task, so the two never race,
 * and a task recovery already took (this process stalled past the owner timeout and was presumed dead; its money
 * went back) is not started again here. The channel is set last, once the record is whole, so the poller never
 * claims a half-written task.
 */
export async function acceptTask(g: Gateway, op: CompiledOperation, rec: TaskRecord, mapped: Record<string, unknown>): Promise<TaskRecord> {
  const now = Date.now();
  if (!(await g.store.tasks.lease(rec.id, g.store.instance, now, now + g.runtime.tasks.lease_ms))) {
    g.log.error({ task_id: rec.id, channel: rec.channel }, 'a task accepted upstream was already taken back by recovery');
    throw new GatewayError('upstream_error', 'The task could not be recorded; nothing is charged');
  }
  const initial = normalise(op, { ...mapped, status: mapped.status ?? 'queued' });
  const saved = await applyUpdate(g, { ...rec, submitting: undefined, polls: -1 }, initial ?? { status: 'queued', progress: 0, urls: [] },
    mapped.status === undefined ? undefined : String(mapped.status));
  if (!isFinal(saved.status)) await g.store.tasks.setChannel(rec.id, rec.channel);
  return saved;
}

/** Maps the body for one attempt, and records the attempt on the pending task first: recovery reads it after a crash. */
async function buildSubmit(g: Gateway, ctx: RequestContext, ch: CompiledChannel, s: Submit, upstreamModel: string) {
  const route = ctx.route!;
  const op = ch.operations.get(route.operation)!;
  const bindings = { model: upstreamModel, task_id: s.id };
  const mapped = (op.request ? await op.request.run(s.body, bindings) : { ...s.body, model: upstreamModel }) ?? {};
  const path = (op.pathExpr ? String(await op.pathExpr.run(s.body, bindings)) : op.path).replace('{model}', encodeURIComponent(upstreamModel));
  await g.tasks.save({ ...newRecord(ctx, s, ch, upstreamModel), submitting: { owner: g.store.instance, started_at: Date.now(), path } });
  if (op.encoding === 'multipart') return { method: 'POST', path, body: encodeMultipart(mapped as Record<string, unknown>) };
  return { method: 'POST', path, body: Buffer.from(JSON.stringify(mapped)) };
}

function newRecord(ctx: RequestContext, s: Submit, ch: CompiledChannel, upstreamModel: string, upstreamId?: string): TaskRecord {
  const now = nowSeconds();
  const prompt = typeof s.body.prompt === 'string' ? s.body.prompt.slice(0, 2000) : undefined;
  const size = typeof s.body.size === 'string' ? s.body.size.slice(0, 64) : undefined;
  return {
    id: s.id, family: ctx.route!.task!.family ?? ctx.route!.id, route: ctx.route!.id, operation: ctx.route!.operation,
    model: s.model, upstream_model: upstreamModel, owner: { user: ctx.token!.user, token: ctx.token!.id }, group: ctx.token!.group,
    channel: ch.id, upstream_id: upstreamId, status: 'queued', progress: 0, created_at: now, updated_at: now,
    result_urls: [], quota: { reserved: s.amount, state: 'reserved' }, input: { seconds: s.seconds, size, prompt }, vars: {}, polls: 0,
    callback: s.callback ? { url: s.callback, route: ctx.route!.task!.callback?.route ?? ctx.route!.id, base_url: s.baseUrl } : undefined,
  };
}

/** The vendor refused the task in its own words (e.g. an image-art code 24): relayed as is, nothing is charged. */
function rejection(r: unknown): GatewayError {
  const { status, body } = (r ?? {}) as { status?: unknown; body?: unknown };
  const e = new GatewayError('task_failed', 'The upstream refused the task', { status: typeof status === 'number' ? status : 400 });
  e.answer = body ?? r;
  return e;
}

/** The client's callback URL (route `task.callback.field`), checked for form here and for address at delivery. */
function callbackUrl(route: CompiledRoute, body: Record<string, unknown>): string | undefined {
  const field = route.task?.callback?.field;
  const v = field ? body[field] : undefined;
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !/^https?:\/\/[^\s]+$/.test(v)) throw new GatewayError('invalid_request', `\`${field}\` must be an http(s) URL`);
  return v;
}

/** Swaps the caller's task ids in `refs` fields for the vendor's, and pins the channel that holds them. */
async function resolveRefs(g: Gateway, ctx: RequestContext, body: Record<string, unknown>): Promise<{ body: Record<string, unknown>; pin?: string }> {
  let pin: string | undefined;
  const out = { ...body };
  for (const field of ctx.route!.task!.refs) {
    const ref = body[field];
    if (ref === undefined || ref === null || ref === '') continue;
    if (typeof ref !== 'string') throw new GatewayError('invalid_request', `\`${field}\` must be a task id string`);
    const rec = await g.tasks.get(ref);
    if (!rec || rec.owner.user !== ctx.token!.user || !rec.upstream_id) throw new GatewayError('task_not_found', `\`${field}\`: task ${clip(ref)} not found`);
    out[field] = rec.upstream_id;
    pin = rec.channel;
  }
  return { body: out, pin };
}

const bounded = (s: string) => (s.length > 500 ? `${s.slice(0, 500)}…` : s);
