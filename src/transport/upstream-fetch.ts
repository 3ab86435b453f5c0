// A bounded request/response call to a channel, for work that must read the whole answer (task polls, content
// file APIs, relays, reconciliation).
import type { Signal } from '../http/abort.js';
import type { IncomingHttpHeaders } from 'node:http';
import { channelTarget, type ChannelCall, type ChannelEndpoint } from './channel-target.js';
import { send, UpstreamFailure, type Target, type UpstreamResponse } from './http-client.js';
import { readLimited } from './read-limited.js';

export interface FetchResult { status: number; headers: IncomingHttpHeaders; body: Buffer }
export interface FetchSpec extends ChannelCall {
  maxBytes?: number; signal?: Signal;
  /** Opens the call's client span once its target is known, where the request it serves is traced (tracing's attempt). */
  span?: (target: Target) => CallSpan | undefined;
}

/** A traced call's span: what the vendor answered, or how the call failed. */
export interface CallSpan { answered(response: UpstreamResponse, final: boolean): void; failed(kind: string): void }

export async function fetchUpstream(channel: ChannelEndpoint, spec: FetchSpec): Promise<FetchResult> {
  const target = channelTarget(channel, spec);
  const span = spec.span?.(target);
  try {
    const res = await send(target, spec.signal);
    const body = await readLimited(res, spec.maxBytes ?? 16 << 20, channel.timeouts.idle_ms).catch((err: Error) => {
      throw new UpstreamFailure('network', err.message);
    });
    span?.answered(res, false);
    return { status: res.statusCode ?? 502, headers: res.headers, body };
  } catch (err) {
    span?.failed(err instanceof UpstreamFailure ? err.kind : 'network');
    throw err;
  }
}
