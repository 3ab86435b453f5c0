// Streams a completed task's result through the gateway with backpressure: status, type, length and Range pass through.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Gateway } from '../gateway.js';
import { addedMs, type RequestContext } from '../pipeline/context.js';
import { GatewayError } from '../http/errors.js';
import { sendRaw, sendUpstream, UpstreamFailure } from '../transport/send-upstream.js';
import { ownTask } from './query.js';
import { fillPath, type TaskRecord } from './task-record.js';
import { fetchUpstream } from '../transport/upstream-fetch.js';
import { relayBody } from '../transport/relay-body.js';
import { isPrivateAddress, publicOnlyLookup } from '../transport/safe-fetch.js';
import { isIP } from 'node:net';

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
// Result URLs come from vendors' answers: these agents connect to public addresses only, checked at connect time.
const publicAgents = { http: new HttpAgent({ keepAlive: true, lookup: publicOnlyLookup }), https: new HttpsAgent({ keepAlive: true, lookup: publicOnlyLookup }) };
const passHeaders = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'last-modified', 'etag'];

export async function serveContent(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rec = await ownTask(g, ctx, ctx.params.id);
  if (rec.status !== 'completed') throw new GatewayError('task_not_completed', `Task is not completed yet, current status: ${rec.status}`);
  const range = typeof req.headers.range === 'string' ? { range: req.headers.range } : undefined;
  let upstream: IncomingMessage;
  const t0 = performance.now();
  try {
    upstream = await open(g, ctx, req, res, rec, range);
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
 * Only what the record holds is fetched: the vendor's content path with the channel's auth (or the URL a
 * file API resolves it to), or the result URL stored from the vendor's answer. Never a URL from the client, and a
 * vendor's URL only when it points to a public address (unless the channel says its vendor lives on a private network).
 */
async function open(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse, rec: TaskRecord, range?: Record<string, string>): Promise<IncomingMessage> {
  const channel = g.runtime.channel(rec.channel);
  const op = channel?.operations.get(rec.operation);
  let stored = rec.result_urls[0];
  if (channel && op?.contentPath && rec.upstream_id) {
    const path = fillPath(op.contentPath, rec);
    if (!op.contentResolve) return sendUpstream(req, res, { channel, method: 'GET', path, accept: '*/*', forward: range, via: 'proxy' }, ctx.abort.signal);
    const answer = await fetchUpstream(channel, { method: 'GET', path });
    const resolved = await op.contentResolve.run(JSON.parse(answer.body.toString('utf8')));
    stored = typeof resolved === 'string' ? resolved : '';
  }
  if (!stored) throw new GatewayError('bad_response', 'copy_response_body_failed');
  const url = new URL(stored);
  const trusted = channel?.privateNetwork === true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!trusted && isIP(host) && isPrivateAddress(host)) throw new GatewayError('bad_response', 'copy_response_body_failed');
  const timeouts = channel?.timeouts ?? { connect_ms: 5000, first_byte_ms: 60000 };
  const pool = trusted ? agents : publicAgents;
  return sendRaw(req, res, {
    url, method: 'GET', agent: url.protocol === 'https:' ? pool.https : pool.http, headers: { accept: '*/*', ...range },
    connectMs: timeouts.connect_ms, firstByteMs: timeouts.first_byte_ms,
  }, ctx.abort.signal);
}
