// Task queries: only the owner sees a task (others get 404); a stale unfinished task is refreshed first.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway.js';
import type { RequestContext } from '../pipeline/context.js';
import { GatewayError, clip } from '../http/errors.js';
import { baseUrlOf } from '../http/base-url.js';
import { readJsonBody } from '../policies/read-json-body.js';
import { isFinal, nowSeconds, type TaskRecord } from './task-record.js';
import { refreshTasks } from './refresh.js';
import { answerTask, sendJson, taskBody } from './answer.js';

/** The caller's task or 404: existence of other users' tasks is not revealed. */
export async function ownTask(g: Gateway, ctx: RequestContext, id: string | undefined): Promise<TaskRecord> {
  const rec = id ? await g.tasks.get(id) : undefined;
  const families = ctx.route!.task!.families;
  // A task still being submitted has no answer yet: nobody has been given its id.
  if (!rec || rec.submitting || rec.owner.user !== ctx.token!.user || (families && !families.includes(rec.family))) {
    throw new GatewayError('task_not_found', `Task ${clip(id ?? '')} not found`);
  }
  ctx.model = rec.model;
  return rec;
}

export async function queryTask(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rec = await fresh(g, await ownTask(g, ctx, ctx.params.id));
  await answerTask(g, ctx.route!, rec, res, baseUrlOf(req));
}

/** `list`: the caller's tasks among `ids` in the body, in the order asked; unknown ids are skipped. */
export async function listTasks(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { body } = await readJsonBody(g, ctx, req);
  const ids = Array.isArray(body.ids) ? body.ids.filter((x): x is string => typeof x === 'string').slice(0, 100) : [];
  const out: unknown[] = [];
  for (const id of ids) {
    const rec = await ownTask(g, ctx, id).catch(() => undefined);
    if (rec) out.push(await taskBody(g, ctx.route!, await fresh(g, rec), baseUrlOf(req)));
  }
  const wrap = ctx.route!.task!.listAnswer;
  sendJson(res, 200, wrap ? await wrap.run(out) : out);
}

/** Refreshes inline when the record is stale; the lease keeps this from racing the poller on another instance. */
async function fresh(g: Gateway, rec: TaskRecord): Promise<TaskRecord> {
  const t = g.runtime.tasks;
  if (isFinal(rec.status) || (nowSeconds() - rec.updated_at) * 1000 < t.refresh_after_ms) return rec;
  const now = Date.now();
  // A lease of its own: an inline refresh must not share the poller's, or both could refresh at once.
  if (!(await g.store.tasks.lease(rec.id, `${g.store.instance}:q:${Math.random().toString(36).slice(2)}`, now, now + t.lease_ms))) return rec;
  const [updated] = await refreshTasks(g, [rec]).catch(() => [rec]);
  return updated ?? rec;
}
