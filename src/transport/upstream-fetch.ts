// A bounded request/response call to a channel, for work that must read the whole answer (task polls, content
// file APIs, relays, reconciliation).
import type { Signal } from '../http/abort.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { CompiledChannel } from '../config/runtime.js';
import { channelTarget, type ChannelCall } from './channel-target.js';
import { send, UpstreamFailure } from './http-client.js';
import { readLimited } from './read-limited.js';
import type { RequestTrace } from '../tracing/tracing.js';

export interface FetchResult { status: number; headers: IncomingHttpHeaders; body: Buffer }
export interface FetchSpec extends ChannelCall {
  maxBytes?: number; signal?: Signal;
  /** The request this call serves, when traced: the call is a client span of it (`call` names it, on the task's operation and model). */
  traced?: { trace: RequestTrace | undefined; call: string; operation: string; model: string };
}

export async function fetchUpstream(channel: CompiledChannel, spec: FetchSpec): Promise<FetchResult> {
  const target = channelTarget(channel, spec);
  const t = spec.traced;
  const span = t?.trace?.attempt(channel, target, t.operation, t.model, 0, t.call);
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
