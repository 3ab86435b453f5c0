// Policy `task`, action `content`: streams a completed task's result through the gateway with backpressure;
// status, type, length and Range pass through. Only what the record holds is fetched, never a URL from the client.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../http/errors.js';
import { addedMs } from '../pipeline/context.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';
import { send, UpstreamFailure } from '../transport/http-client.js';
import { channelTarget } from '../transport/channel-target.js';
import { fetchUpstream } from '../transport/upstream-fetch.js';
import { relayBody } from '../transport/relay-body.js';
import { foreignTarget, UnsafeUrl } from '../transport/safe-fetch.js';
import { taskPath, type TaskRecord } from '../tasks/task-record.js';
import { ownTask } from './own-task.js';

const passHeaders = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'last-modified', 'etag'];

export async function serveContent(ex: Exchange, c: Caller): Promise<void> {
  const { ctx, req, res } = ex;
  const rec = await ownTask(ex, c, c.params.id);
  if (rec.status !== 'completed') throw new GatewayError('task_not_completed', `Task is not completed yet, current status: ${rec.status}`);
  const range = typeof req.headers.range === 'string' ? { range: req.headers.range } : undefined;
  let upstream: IncomingMessage;
  const t0 = performance.now();
  try {
    upstream = await open(ex, rec, range);
    ctx.upstreamMs += performance.now() - t0;
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    throw new GatewayError(err instanceof UpstreamFailure && err.kind === 'timeout' ? 'upstream_timeout' : 'bad_response', 'copy_response_body_failed');
  }
  const status = upstream.statusCode ?? 502;
  if (status !== 200 && status !== 206) {
    upstream.resume();
    throw new GatewayError(status === 416 ? 'invalid_request' : 'bad_response', status === 416 ? 'Requested range not satisfiable' : 'copy_response_body_failed', { status: status === 416 ? 416 : 502 });
  }
  const headers: Record<string, string> = { 'cache-control': 'private, max-age=3600', 'x-switchyard-added-ms': addedMs(ctx).toFixed(3) };
  for (const h of passHeaders) if (upstream.headers[h]) headers[h] = String(upstream.headers[h]);
  res.writeHead(status, headers);
  ctx.outcome = await relayBody(ctx, upstream, res);
}

/**
 * The vendor's content path with the channel's auth (or the URL its file API resolves it to), or the result URL
 * stored from the vendor's answer, fetched from a public address only unless the channel trusts its network.
 */
async function open(ex: Exchange, rec: TaskRecord, range?: Record<string, string>): Promise<IncomingMessage> {
  const signal = ex.ctx.abort.signal;
  const channel = ex.g.runtime.channel(rec.channel);
  const op = channel?.operations.get(rec.operation);
  let stored = rec.result_urls[0];
  if (channel && op?.contentPath && rec.upstream_id) {
    const path = taskPath(op.contentPath, rec);
    if (!op.contentResolve) return send(channelTarget(channel, { method: 'GET', path, accept: '*/*', forward: range }), signal);
    const answer = await fetchUpstream(channel, { method: 'GET', path, signal });
    const resolved = await op.contentResolve.run(JSON.parse(answer.body.toString('utf8')));
    stored = typeof resolved === 'string' ? resolved : '';
  }
  if (!stored) throw new GatewayError('bad_response', 'copy_response_body_failed');
  const timeouts = channel?.timeouts ?? { connect_ms: 5000, first_byte_ms: 60000 };
  try {
    const target = foreignTarget(new URL(stored), channel?.privateNetwork === true, {
      method: 'GET', headers: { accept: '*/*', ...range }, connectMs: timeouts.connect_ms, firstByteMs: timeouts.first_byte_ms,
    });
    return await send(target, signal);
  } catch (err) {
    if (err instanceof UnsafeUrl || err instanceof TypeError) throw new GatewayError('bad_response', 'copy_response_body_failed');
    throw err;
  }
}
