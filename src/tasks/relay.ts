// Task `relay`: asks the task's own channel something only the vendor knows (e.g. an image seed) and relays its answer.
import type { ServerResponse } from 'node:http';
import type { Gateway } from '../gateway.js';
import type { RequestContext } from '../pipeline/context.js';
import { GatewayError } from '../http/errors.js';
import { fetchUpstream } from '../transport/upstream-fetch.js';
import { ownTask } from './query.js';
import { fillPath } from './task-record.js';
import { sendJson } from './answer.js';

export async function relayTask(g: Gateway, ctx: RequestContext, res: ServerResponse): Promise<void> {
  const rec = await ownTask(g, ctx, ctx.params.id);
  const channel = g.runtime.channel(rec.channel);
  const op = channel?.operations.get(ctx.route!.operation);
  if (!channel || !op || !rec.upstream_id) throw new GatewayError('upstream_error', 'The channel of this task cannot answer this');
  ctx.channel = channel.id;
  const t0 = performance.now();
  const answer = await fetchUpstream(channel, { method: 'GET', path: fillPath(op.path, rec) }).catch(() => {
    throw new GatewayError('upstream_error', 'The upstream did not answer');
  });
  ctx.upstreamMs += performance.now() - t0;
  let parsed: unknown;
  try { parsed = JSON.parse(answer.body.toString('utf8')); } catch { throw new GatewayError('bad_response', 'copy_response_body_failed'); }
  sendJson(res, answer.status >= 500 ? 502 : answer.status, op.response ? await op.response.run(parsed, { task_id: rec.id }) : parsed);
}
