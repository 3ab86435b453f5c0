// A bounded request/response call to a channel, for work that must read the whole answer (task polls, content
// file APIs, relays, reconciliation).
import type { Signal } from '../http/abort.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { CompiledChannel } from '../config/runtime.js';
import { channelTarget, type ChannelCall } from './channel-target.js';
import { send, UpstreamFailure } from './http-client.js';
import { readLimited } from './read-limited.js';

export interface FetchResult { status: number; headers: IncomingHttpHeaders; body: Buffer }
export interface FetchSpec extends ChannelCall { maxBytes?: number; signal?: Signal }

export async function fetchUpstream(channel: CompiledChannel, spec: FetchSpec): Promise<FetchResult> {
  const res = await send(channelTarget(channel, spec), spec.signal);
  try {
    const body = await readLimited(res, spec.maxBytes ?? 16 << 20, channel.timeouts.idle_ms);
    return { status: res.statusCode ?? 502, headers: res.headers, body };
  } catch (err) {
    throw new UpstreamFailure('network', (err as Error).message);
  }
}
