// The one HTTP client behind every upstream call (chat, task submits and polls, downloads, callbacks): one request
// on a pooled keep-alive connection, connect and first-byte timeouts, the caller's abort, and one classification
// of what went wrong. It resolves with the response head on its body stream; what the body is worth is the
// caller's business. undici rather than node:http's client: the same pooled requests cost about 25 µs less CPU
// each (docs/contributors/transport.md), and every proxied request pays that leg.
import type { Signal } from '../http/abort.js';
import type { Dispatcher } from 'undici';
import type { StreamBody } from '../http/multipart.js';
import type { Pool } from './upstream-pool.js';
import { UpstreamCall, type UpstreamResponse } from './upstream-call.js';
import { UpstreamFailure } from './upstream-failure.js';

export { newPool, type Pool } from './upstream-pool.js';
export { UpstreamFailure } from './upstream-failure.js';
export type { UpstreamResponse } from './upstream-call.js';

export interface Target {
  url: URL;
  /** The pool: a channel's own, or a shared one for the URLs vendors and clients hand over. */
  pool: Pool;
  method: string;
  headers: Record<string, string>;
  /** The bytes in hand, or a body streamed from disk (multipart uploads) opened anew for each attempt. */
  body?: Buffer | StreamBody;
  /** The connect bound: a channel's pool was made with it; a foreign URL's pool is picked by it. */
  connectMs: number;
  firstByteMs: number;
}

export const isStreamBody = (b: Buffer | StreamBody | undefined): b is StreamBody => Boolean(b && !Buffer.isBuffer(b));

/** Sends `t`; rejects with an UpstreamFailure on connect/first-byte failure or when `signal` aborts first. */
export function send(t: Target, signal?: Signal): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(new UpstreamFailure('network', 'client closed the connection')); return; }
    const body = isStreamBody(t.body) ? t.body.open() : t.body ?? null;
    const { origin, path } = wireOf(t.url);
    const opts = { origin, path, method: t.method as Dispatcher.HttpMethod, headers: wireHeaders(t.headers), body };
    t.pool.dispatch(opts, new UpstreamCall(t.firstByteMs, signal, resolve, reject));
  });
}

// Hop-by-hop headers belong to the connection the pool manages (undici refuses them), and Host to the URL.
const hopByHop = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'te', 'proxy-connection']);
function wireHeaders(h: Record<string, string>): Record<string, string> {
  for (const k in h) if (hopByHop.has(k.toLowerCase())) return Object.fromEntries(Object.entries(h).filter(([n]) => !hopByHop.has(n.toLowerCase())));
  return h;
}

// Target URLs repeat: their origin and path (getters that build a string per call) are read once each.
interface Wire { origin: string; path: string }
const wires = new WeakMap<URL, Wire>();
function wireOf(url: URL): Wire {
  let w = wires.get(url);
  if (!w) { w = { origin: url.origin, path: `${url.pathname}${url.search}` }; wires.set(url, w); }
  return w;
}
