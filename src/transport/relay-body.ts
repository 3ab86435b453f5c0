// Pipes an upstream body to the client with backpressure, and waits until it is over: the request stays in flight
// (a stop drains it) and the way it ended is known. A body the upstream cuts is cut for the client too (its
// connection is destroyed, so it never waits for bytes that will not come) and logged as a 502.
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../pipeline/context.js';

export async function relayBody(ctx: RequestContext, upstream: IncomingMessage, res: ServerResponse): Promise<'done' | 'client_gone' | 'cut' | 'upstream_cut'> {
  const onAbort = () => upstream.destroy();
  ctx.abort.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await pipeline(upstream, res);
    return 'done';
  } catch {
    const reason = ctx.abort.signal.reason;
    if (reason === 'client_gone' || reason === 'shutdown') return reason === 'shutdown' ? 'cut' : 'client_gone';
    res.destroy();
    ctx.logStatus = 502;
    ctx.errorCode = 'upstream_error';
    return 'upstream_cut';
  } finally {
    ctx.abort.signal.removeEventListener('abort', onAbort);
  }
}
