// A request on a channel as the wire sees it: its base URL and path, its own headers, its credentials, a body type.
// The one place headers and auth are assembled; the client's own headers never reach a vendor.
import type { Auth, Timeouts } from '../types/generated/channels.js';
import type { StreamBody } from '../http/multipart.js';
import { applyAuth } from './auth/index.js';
import { isStreamBody, type Pool, type Target } from './http-client.js';

/** What the wire needs of a channel (config's compiled channel is one): where it is, its credentials, headers, pool and timeouts. */
export interface ChannelEndpoint { baseUrl: URL; auth: Auth; headers: Record<string, string>; pool: Pool; timeouts: Required<Timeouts> }

export interface ChannelCall {
  method: string;
  /** Path and query on the channel's base URL. */
  path: string;
  body?: Buffer | StreamBody;
  contentType?: string;
  accept?: string;
  /** Client headers forwarded on purpose (e.g. `range` for downloads). */
  forward?: Record<string, string>;
}

export function channelTarget(channel: ChannelEndpoint, c: ChannelCall): Target {
  const headers: Record<string, string> = { ...channel.headers, ...c.forward, accept: c.accept ?? 'application/json' };
  if (c.body) {
    headers['content-type'] = isStreamBody(c.body) ? c.body.contentType : c.contentType ?? 'application/json';
    headers['content-length'] = String(c.body.length);
  } else if (c.method !== 'GET' && c.method !== 'HEAD') {
    headers['content-length'] = '0';
  }
  const path = applyAuth(channel.auth, { method: c.method, host: channel.baseUrl.host, path: joinPath(channel.baseUrl, c.path), headers, body: isStreamBody(c.body) ? undefined : c.body });
  const { connect_ms, first_byte_ms } = channel.timeouts;
  return { url: targetUrl(path, channel.baseUrl), pool: channel.pool, method: c.method, headers, body: c.body, connectMs: connect_ms, firstByteMs: first_byte_ms };
}

// Target URLs are few (channel × path); parsing one per request is avoidable work on the hot path.
const urlCache = new Map<string, URL>();
function targetUrl(path: string, base: URL): URL {
  const key = `${base.href}\u0000${path}`;
  let url = urlCache.get(key);
  if (!url) {
    url = new URL(path, base);
    if (urlCache.size > 10_000) urlCache.clear();
    urlCache.set(key, url);
  }
  return url;
}

function joinPath(base: URL, path: string): string {
  const prefix = base.pathname.endsWith('/') ? base.pathname.slice(0, -1) : base.pathname;
  return `${prefix}${path}`;
}
