// Policy `task`, action `content`: streams a completed task's result through the gateway with backpressure;
// status, type, length and Range pass through. Only what the record holds is fetched, never a URL from the client.
import { GatewayError } from '../http/errors.js';
import { addedMs } from '../pipeline/context.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';
import { send, UpstreamFailure, type Target, type UpstreamResponse } from '../transport/http-client.js';
import { defaultTimeouts, type CompiledChannel } from '../config/runtime.js';
import { channelTarget } from '../transport/channel-target.js';
import { fetchUpstream } from '../transport/upstream-fetch.js';
import { callSpan } from '../tracing/tracing.js';
import { relayBody } from '../transport/relay-body.js';
import { foreignTarget, UnsafeUrl } from '../transport/safe-fetch.js';
import { taskPath, type TaskRecord } from '../records/task-record.js';
import { ownTask } from '../pipeline/own-records.js';

const passHeaders = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'last-modified', 'etag'];

export async function serveContent(ex: Exchange, c: Caller): Promise<void> {
  const { ctx, req, res } = ex;
  const rec = await ownTask(ex, c, c.params.id);
  if (rec.status !== 'completed') throw new GatewayError('task_not_completed', `Task is not completed yet, current status: ${rec.status}`);
  const range = typeof req.headers.range === 'string' ? { range: req.headers.range } : undefined;
  let upstream: UpstreamResponse;
  const t0 = performance.now();
  const from = source(ex, rec);
  try {
    upstream = await open(ex, rec, from, range);
    ctx.upstreamMs += performance.now() - t0;
  } catch (err) {
    throw refusal(err, from);
  }
  const status = upstream.statusCode ?? 502;
  if (status !== 200 && status !== 206) {
    upstream.resume();
    if (status === 416) throw new GatewayError('invalid_request', 'Requested range not satisfiable', { status: 416 });
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    throw failed(`the vendor's result file answered HTTP ${status}`, `${from.what} answered HTTP ${status}${redirect}`);
  }
  const headers: Record<string, string> = { 'cache-control': 'private, max-age=3600', 'x-switchyard-added-ms': addedMs(ctx).toFixed(3) };
  for (const h of passHeaders) if (upstream.headers[h]) headers[h] = String(upstream.headers[h]);
  res.writeHead(status, headers);
  ctx.outcome = await relayBody(ctx, upstream, res, from.idleMs);
  if (ctx.outcome === 'upstream_cut') ctx.reason = `${from.what} cut the download before its end${ctx.reason ? `: ${ctx.reason}` : ''}`;
}

/** Where the bytes come from, as the operator's log names it: the vendor's content path, or the stored result URL. */
interface Source { what: string; channel: string; timeoutMs: number; idleMs: number }

function source(ex: Exchange, rec: TaskRecord): Source {
  const channel = ex.g.runtime.channel(rec.channel);
  const viaPath = Boolean(channel?.operations.get(rec.operation)?.contentPath && rec.upstream_id);
  return {
    what: viaPath ? `the content path of channel ${rec.channel}` : `the result URL of channel ${rec.channel}`,
    channel: rec.channel,
    timeoutMs: channel?.timeouts.first_byte_ms ?? defaultTimeouts.first_byte_ms,
    idleMs: channel?.timeouts.idle_ms ?? defaultTimeouts.idle_ms,
  };
}

/** The client hears `copy_response_body_failed` and what went wrong without any address; the log gets `reason`. */
const failed = (detail: string, reason: string, code: 'bad_response' | 'upstream_timeout' = 'bad_response') =>
  new GatewayError(code, `copy_response_body_failed: ${detail}`).because(reason);

function refusal(err: unknown, from: Source): GatewayError {
  if (err instanceof GatewayError) return err;
  const unsafe = err instanceof UnsafeUrl ? err : err instanceof UpstreamFailure && err.cause instanceof UnsafeUrl ? err.cause : undefined;
  if (unsafe) {
    const setting = /private address/.test(unsafe.message) ? `; the channel setting private_network (channel ${from.channel}) allows private addresses` : '';
    return failed('the result file is at an address this gateway does not fetch from', `${from.what}: ${unsafe.message}${setting}`);
  }
  if (err instanceof TypeError) return failed('the vendor\'s result URL is not valid', `${from.what} is not a valid URL`);
  if (err instanceof UpstreamFailure && err.kind === 'timeout') {
    return failed('the result file did not answer in time', `${from.what}: ${err.message} (the channel's timeouts.first_byte_ms, ${from.timeoutMs} ms)`, 'upstream_timeout');
  }
  return failed('the result file could not be fetched', `${from.what}: ${(err as Error).message}`);
}

/**
 * The vendor's content path with the channel's auth (or the URL its file API resolves it to), or the result URL
 * stored from the vendor's answer, fetched from a public address only unless the channel trusts its network.
 */
async function open(ex: Exchange, rec: TaskRecord, from: Source, range?: Record<string, string>): Promise<UpstreamResponse> {
  const signal = ex.ctx.abort.signal;
  const channel = ex.g.runtime.channel(rec.channel);
  const op = channel?.operations.get(rec.operation);
  let stored = rec.result_urls[0];
  if (channel && op?.contentPath && rec.upstream_id) {
    const path = taskPath(op.contentPath, rec);
    if (!op.contentResolve) return download(ex, rec, channel, channelTarget(channel, { method: 'GET', path, accept: '*/*', forward: range }));
    const answer = await fetchUpstream(channel, { method: 'GET', path, signal, span: callSpan(ex.ctx.trace, channel, 'content', rec.operation, rec.upstream_model) });
    let parsed: unknown;
    try { parsed = JSON.parse(answer.body.toString('utf8')); } catch {
      throw failed('the vendor\'s file answer could not be read', `the file API of channel ${rec.channel} answered HTTP ${answer.status} with no JSON`);
    }
    const resolved = await op.contentResolve.run(parsed).catch((err: Error) => {
      throw failed('the vendor\'s file answer could not be read', `content.resolve of channel ${rec.channel} failed on the vendor's answer (HTTP ${answer.status}): ${err.message}`);
    });
    stored = typeof resolved === 'string' ? resolved : '';
    if (!stored) throw failed('the vendor reported no result file', `content.resolve of channel ${rec.channel} gave no URL (vendor answer HTTP ${answer.status})`);
  }
  if (!stored) throw failed('the vendor reported no result file', `the task record has no result URL (${from.what})`);
  const timeouts = channel?.timeouts ?? { connect_ms: 5000, first_byte_ms: 60000 };
  const target = foreignTarget(new URL(stored), channel?.privateNetwork === true, {
    method: 'GET', headers: { accept: '*/*', ...range }, connectMs: timeouts.connect_ms, firstByteMs: timeouts.first_byte_ms,
  });
  return send(target, signal);
}

/** The channel's own content path; with tracing on, a client span of the request until the file is relayed. */
async function download(ex: Exchange, rec: TaskRecord, channel: CompiledChannel, target: Target): Promise<UpstreamResponse> {
  const span = ex.ctx.trace?.attempt(channel, target, rec.operation, rec.upstream_model, 0, 'content');
  try {
    const res = await send(target, ex.ctx.abort.signal);
    span?.answered(res, true);
    return res;
  } catch (err) {
    span?.failed(err instanceof UpstreamFailure ? err.kind : 'network');
    throw err;
  }
}
