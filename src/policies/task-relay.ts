// Policy `task`, action `relay`: asks the task's own channel something only the vendor knows (e.g. an image seed)
// and relays its answer.
import { GatewayError } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';
import { fetchUpstream } from '../transport/upstream-fetch.js';
import { callSpan } from '../tracing/tracing.js';
import { taskPath } from '../records/task-record.js';
import { ownTask } from '../pipeline/own-records.js';

export async function relayTask(ex: Exchange, c: Caller): Promise<void> {
  const { g, ctx } = ex;
  const rec = await ownTask(ex, c, c.params.id);
  const channel = g.runtime.channel(rec.channel);
  const op = channel?.operations.get(c.route.operation);
  if (!channel || !op || !rec.upstream_id) throw new GatewayError('upstream_error', 'The channel of this task cannot answer this');
  ctx.channel = channel.id;
  const t0 = performance.now();
  const answer = await fetchUpstream(channel, { method: 'GET', path: taskPath(op.path, rec), signal: ctx.abort.signal, span: callSpan(ctx.trace, channel, 'relay', rec.operation, rec.upstream_model) }).catch((err: Error) => {
    throw new GatewayError('upstream_error', 'The upstream did not answer').because(`channel ${channel.id}: ${err.message}`);
  });
  ctx.upstreamMs += performance.now() - t0;
  let parsed: unknown;
  try { parsed = JSON.parse(answer.body.toString('utf8')); } catch {
    throw new GatewayError('bad_response', 'copy_response_body_failed: the vendor\'s answer could not be read').because(`the answer of channel ${channel.id} (HTTP ${answer.status}) is not JSON`);
  }
  sendJson(ex.res, answer.status >= 500 ? 502 : answer.status, op.response ? await op.response.run(parsed, { task_id: rec.id }) : parsed);
}
