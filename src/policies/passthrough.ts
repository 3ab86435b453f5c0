// Policy `passthrough`: the client's body goes to the channel unchanged and the answer streams back unchanged,
// the vendor's errors included; billed per call when it was answered in full.
import { addedMs } from '../pipeline/context.js';
import { idempotentRetry, type Attempt, type Sent } from '../pipeline/dispatch.js';
import type { Exchange, Priced } from '../pipeline/exchange.js';
import { fillPath } from '../transform/fill-path.js';
import type { ChannelCall } from '../transport/channel-target.js';
import { relayBody } from '../transport/relay-body.js';
import type { ProxiedPolicy } from '../pipeline/policy.js';

const passHeaders = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'retry-after'];

async function build(ex: Exchange, p: Priced, a: Attempt): Promise<ChannelCall> {
  const q = ex.ctx.url.indexOf('?');
  const query = q === -1 ? '' : ex.ctx.url.slice(q);
  const contentType = ex.req.headers['content-type'];
  return {
    method: ex.ctx.method, path: `${fillPath(a.op.path, p.params)}${query}`, body: p.raw.length ? p.raw : undefined,
    contentType: typeof contentType === 'string' ? contentType : undefined, accept: String(ex.req.headers.accept ?? '*/*'),
  };
}

async function respond(ex: Exchange, p: Priced, sent: Sent): Promise<number | undefined> {
  const status = sent.response.statusCode ?? 502;
  const headers: Record<string, string> = { 'x-switchyard-added-ms': addedMs(ex.ctx).toFixed(3) };
  for (const h of passHeaders) if (sent.response.headers[h]) headers[h] = String(sent.response.headers[h]);
  ex.res.writeHead(status, headers);
  ex.ctx.outcome = await relayBody(ex.ctx, sent.response, ex.res, sent.channel.timeouts.idle_ms);
  return status < 400 && ex.ctx.outcome === 'done' ? p.amount : undefined;
}

export const passthrough: ProxiedPolicy = { body: 'raw', scope: 'request', retry: idempotentRetry, relayErrors: false, build, respond };
