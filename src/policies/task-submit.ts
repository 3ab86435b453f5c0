// Policy `task`, action `submit`: an asynchronous job. The vendor is asked once (never twice, if it may have
// accepted), the pending task is recorded before each attempt (recovery reads it after a crash), and the
// accepted task is answered in the route's shape; its durable reservation settles when the task finishes.
import { secondsToCharge } from '../billing/price-inputs.js';
import type { CompiledChannel } from '../config/runtime.js';
import { GatewayError } from '../http/errors.js';
import { baseUrlOf } from '../http/base-url.js';
import { submitRetry, type Attempt, type Sent } from '../pipeline/dispatch.js';
import type { Exchange, Priced } from '../pipeline/exchange.js';
import type { Hold } from '../pipeline/reservation.js';
import { buildCall } from '../transform/build-call.js';
import type { ChannelCall } from '../transport/channel-target.js';
import { acceptTask } from '../tasks/accept.js';
import { answerTask } from '../tasks/answer.js';
import { smallObject, stringVars, type TaskRecord } from '../records/task-record.js';
import { readUpstreamJson } from './upstream-json.js';
import type { ProxiedPolicy } from '../pipeline/policy.js';

async function build(ex: Exchange, p: Priced, a: Attempt): Promise<ChannelCall> {
  const { path, body } = await buildCall(a.op, p.body, { model: a.upstreamModel, task_id: a.hold.id }, p.source ? { source_upstream_id: p.source.upstreamId } : {});
  // A batch's pending record names its input file already: recovery may adopt it from the vendor without an answer.
  await ex.g.tasks.create({ ...newRecord(ex, p, a.hold, a.channel, a.upstreamModel), extra: extraOf(p, undefined), submitting: { owner: ex.g.store.instance, started_at: Date.now(), path } }, a.hold.at);
  return { method: 'POST', path, body };
}

async function respond(ex: Exchange, p: Priced, sent: Sent, hold: Hold): Promise<'deferred'> {
  let parsed: unknown;
  try {
    ({ parsed } = await readUpstreamJson(ex, sent, 4 << 20));
  } catch (err) {
    throw new GatewayError('bad_response', 'copy_response_body_failed: the vendor\'s answer to the submit could not be read').because((err as GatewayError).reason ?? 'unreadable submit answer');
  }
  const mapped = (sent.op.response ? await sent.op.response.run(parsed, { model: sent.upstreamModel, task_id: hold.id, path: sent.path, request: p.body, operation: p.route.operation }) : parsed) as Record<string, unknown> | undefined;
  if (mapped?.reject) throw rejection(mapped.reject);
  if (mapped?.error) throw new GatewayError('task_failed', `The upstream refused the task: ${bounded(typeof mapped.error === 'string' ? mapped.error : JSON.stringify(mapped.error))}`);
  const upstreamId = mapped?.upstream_id ?? mapped?.id;
  if (upstreamId === undefined || upstreamId === null || upstreamId === '') {
    throw new GatewayError('bad_response', 'copy_response_body_failed: the vendor\'s answer to the submit names no task')
      .because(`the response transform of channel ${sent.channel.id} (${p.route.operation}) gave no upstream_id (vendor answer HTTP ${sent.response.statusCode})`);
  }
  const rec = { ...newRecord(ex, p, hold, sent.channel, sent.upstreamModel, String(upstreamId)), vars: stringVars(mapped?.vars), extra: extraOf(p, mapped?.extra) };
  if (ex.ctx.trace) rec.trace = ex.ctx.trace.carrier(); // the task's polls link to this submit, on any instance
  const accepted = await acceptTask(ex.g, sent.op, rec, mapped ?? {});
  await answerTask(ex.g, p.route, accepted, ex.res, baseUrlOf(ex.req));
  return 'deferred';
}

function newRecord(ex: Exchange, p: Priced, hold: Hold, ch: CompiledChannel, upstreamModel: string, upstreamId?: string): TaskRecord {
  const now = Math.floor(hold.at / 1000);
  const task = p.route.task!;
  const prompt = typeof p.body.prompt === 'string' ? p.body.prompt.slice(0, 2000) : undefined;
  const size = typeof p.body.size === 'string' ? p.body.size.slice(0, 64) : undefined;
  const hook = task.callback ? p.body[task.callback.field] : undefined;
  return {
    id: hold.id, family: task.family ?? p.route.id, route: p.route.id, operation: p.route.operation,
    model: p.model, upstream_model: upstreamModel, owner: { user: p.token.user, token: p.token.id }, group: p.token.group,
    channel: ch.id, upstream_id: upstreamId, status: 'queued', progress: 0, created_at: now, updated_at: now,
    result_urls: [], quota: { reserved: hold.amount, state: 'reserved', levels: hold.levels.length > 1 ? hold.levels.slice(1) : undefined, price: p.chosen, units: p.inputs.units, seconds: secondsToCharge(p.price, p.inputs), vendor_unit: p.price.price.vendor_unit?.units }, input: { seconds: p.inputs.seconds, size, prompt, ...(p.batch && { lines_route: p.batch.file.lines!.route }) }, vars: {}, polls: 0,
    callback: typeof hook === 'string' && hook ? { url: hook, route: task.callback?.route ?? p.route.id, base_url: baseUrlOf(ex.req) } : undefined,
    source_id: p.source?.id,
  };
}

/** The vendor's extras, and for a batch the caller's own id of its input file (the vendor was given its own). */
function extraOf(p: Priced, extra: unknown): Record<string, unknown> | undefined {
  const kept = smallObject(extra);
  const field = p.route.task?.inputFile?.field;
  return p.batch && field ? { ...kept, [field]: p.batch.file.id } : kept;
}

/** The vendor refused the task in its own words (e.g. an image-art code 24): relayed as is, nothing is charged. */
function rejection(r: unknown): GatewayError {
  const { status, body } = (r ?? {}) as { status?: unknown; body?: unknown };
  const e = new GatewayError('task_failed', 'The upstream refused the task', { status: typeof status === 'number' ? status : 400 });
  e.answer = body ?? r;
  return e;
}

const bounded = (s: string) => (s.length > 500 ? `${s.slice(0, 500)}…` : s);

export const taskSubmit: ProxiedPolicy = { body: 'json', scope: 'durable', retry: submitRetry, relayErrors: true, build, mapsFiles: true, respond };
