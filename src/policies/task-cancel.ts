// Policy `task`, action `cancel`: the caller's unfinished task is cancelled at its vendor (the operation's `cancel`)
// and answered as it then stands. A vendor that ends a cancelled task itself (`ends_task: false`, a batch) keeps it
// running until it says so, and what it ran is charged then; otherwise the task fails at once and is refunded.
import { GatewayError } from '../http/errors.js';
import { readBody } from '../http/read-body.js';
import { baseUrlOf } from '../http/base-url.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';
import { answerTask } from '../tasks/answer.js';
import { cancelTask, requestCancel } from '../tasks/cancel.js';
import { isFinal } from '../records/task-record.js';
import { ownTask } from '../pipeline/own-records.js';

export async function cancelOwnTask(ex: Exchange, c: Caller): Promise<void> {
  const { g } = ex;
  // The cancel takes no body; one sent is read within the route's bound and dropped, as any POST's would be.
  await readBody(ex.req, g.bodyLimits(ex.ctx, c.route.limits.maxBodyBytes));
  const rec = await ownTask(ex, c, c.params.id);
  ex.ctx.channel = rec.channel;
  if (isFinal(rec.status)) throw new GatewayError('invalid_request', `Task ${rec.id} has already ended (${rec.status}); only an unfinished task can be cancelled`);
  const op = g.runtime.channel(rec.channel)?.operations.get(rec.operation);
  const after = op?.cancel && !op.cancel.endsTask ? await requestCancel(g, rec, ex.ctx.trace) : (await cancelTask(g, rec, ex.ctx.trace)).rec;
  g.log.info({ task_id: rec.id, token_id: c.token.id, status: after.status }, 'task cancel asked');
  await answerTask(g, c.route, after, ex.res, baseUrlOf(ex.req));
}
