// Pipes an upstream body to the client with backpressure, and waits until it is over: the request stays in flight
// (a stop drains it) and the way it ended is known. A body the upstream cuts is cut for the client too (its
// connection is destroyed, so it never waits for bytes that will not come) and logged as a 502; so is one that stops
// arriving for `idleMs`. Chosen over http-proxy-3, which pipes the same way and measured the same (docs/contributors/transport.md).
import { pipeline } from 'node:stream/promises';
import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from './http-client.js';
import type { Abort } from '../http/abort.js';

export type RelayOutcome = 'done' | 'client_gone' | 'cut' | 'upstream_cut';

/** What a relay reads and writes of its request (the pipeline's request context is one): its abort, how it ended. */
export interface RelayedRequest { abort: Abort; logStatus?: number; errorCode?: string; reason?: string }

export async function relayBody(ctx: RelayedRequest, upstream: UpstreamResponse, res: ServerResponse, idleMs?: number): Promise<RelayOutcome> {
  const onAbort = () => upstream.destroy();
  ctx.abort.signal.addEventListener('abort', onAbort, { once: true });
  const idle = idleMs ? watchIdle(upstream, idleMs) : undefined;
  try {
    await pipeline(upstream, res);
    return 'done';
  } catch {
    const reason = ctx.abort.signal.reason;
    if (reason === 'client_gone' || reason === 'shutdown') return reason === 'shutdown' ? 'cut' : 'client_gone';
    res.destroy();
    ctx.logStatus = 502;
    ctx.errorCode = 'upstream_error';
    if (idle?.fired) ctx.reason = `the upstream sent no bytes for ${idleMs} ms (the channel's timeouts.idle_ms)`;
    return 'upstream_cut';
  } finally {
    idle?.stop();
    ctx.abort.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Destroys the body when it brought nothing for `ms`. One timer per period checks whether a chunk came; the
 * chunk only sets a flag. A client that stops reading stops the upstream too (backpressure), so it is cut the same way.
 */
function watchIdle(upstream: UpstreamResponse, ms: number): { fired: boolean; stop(): void } {
  let moved = false;
  const onData = () => { moved = true; };
  const state = { fired: false, stop: () => { clearTimeout(timer); upstream.off('data', onData); } };
  upstream.on('data', onData);
  const timer = setTimeout(function check() {
    if (moved) { moved = false; timer.refresh(); return; }
    state.fired = true;
    upstream.destroy(new Error(`no bytes for ${ms} ms`));
  }, ms);
  return state;
}
