// Policy `task`, actions `query` and `list`: the caller's tasks in the route's shape, refreshed when stale.
import { baseUrlOf } from '../http/base-url.js';
import { sendJson } from '../http/send-json.js';
import { readRequest } from '../pipeline/read-request.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';
import { answerTask, taskBody } from '../tasks/answer.js';
import { fresh } from '../tasks/fresh.js';
import { ownTask } from '../pipeline/own-records.js';

export async function queryTask(ex: Exchange, c: Caller): Promise<void> {
  const rec = await fresh(ex.g, await ownTask(ex, c, c.params.id));
  await answerTask(ex.g, c.route, rec, ex.res, baseUrlOf(ex.req));
}

/** `list`: the caller's tasks among the body's `ids` (its schema checks them), in the order asked; unknown ids are skipped. */
export async function listTasks(ex: Exchange, c: Caller): Promise<void> {
  const { body } = await readRequest(ex, c, 'json');
  const ids = Array.isArray(body.ids) ? body.ids.filter((x): x is string => typeof x === 'string').slice(0, 100) : [];
  const out: unknown[] = [];
  for (const id of ids) {
    const rec = await ownTask(ex, c, id).catch(() => undefined);
    if (rec) out.push(await taskBody(ex.g, c.route, await fresh(ex.g, rec), baseUrlOf(ex.req)));
  }
  const wrap = c.route.task?.listAnswer;
  sendJson(ex.res, 200, wrap ? await wrap.run(out) : out);
}
