// The one HTTP client behind every upstream call (chat, task submits and polls, downloads, callbacks): one pooled
// `http.request`, connect and first-byte timeouts, the caller's abort, and one classification of what went wrong.
// It resolves with the response head; what the body is worth is the caller's business.
import type { Signal } from '../http/abort.js';
import { request as httpRequest, type Agent, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { pipeline } from 'node:stream/promises';
import type { StreamBody } from '../http/multipart.js';

export interface Target {
  url: URL;
  /** The pool: a channel's own, or the shared public-only one for URLs vendors and clients hand over. */
  agent: Agent;
  method: string;
  headers: Record<string, string>;
  /** The bytes in hand, or a body streamed from disk (multipart uploads) opened anew for each attempt. */
  body?: Buffer | StreamBody;
  connectMs: number;
  firstByteMs: number;
}

/** Why an attempt failed: `connect` (nothing was sent: safe to try elsewhere), `timeout`, or `network`. */
export class UpstreamFailure extends Error {
  constructor(readonly kind: 'connect' | 'timeout' | 'network', message: string, options?: ErrorOptions) { super(message, options); }
}

export const isStreamBody = (b: Buffer | StreamBody | undefined): b is StreamBody => Boolean(b && !Buffer.isBuffer(b));

/** Sends `t`; rejects with an UpstreamFailure on connect/first-byte failure or when `signal` aborts first. */
export function send(t: Target, signal?: Signal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(new UpstreamFailure('network', 'client closed the connection')); return; }
    const request = t.url.protocol === 'https:' ? httpsRequest : httpRequest;
    t.headers.host = t.url.host;
    const up = request({ ...wireOf(t.url), method: t.method, agent: t.agent, headers: t.headers });
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = () => { settled = true; clearTimeout(timer); signal?.removeEventListener('abort', onAbort); };
    const fail = (err: UpstreamFailure) => { if (!settled) { settle(); reject(err); } };
    function onAbort() { fail(new UpstreamFailure('network', 'client closed the connection')); up.destroy(); }
    signal?.addEventListener('abort', onAbort, { once: true });
    // Connect time is bounded only for a fresh socket; a pooled one goes straight to the first-byte clock.
    const firstByte = () => { clearTimeout(timer); timer = setTimeout(() => up.destroy(new UpstreamFailure('timeout', `no response within ${t.firstByteMs} ms`)), t.firstByteMs); };
    up.once('socket', (socket: Socket) => {
      if (!socket.connecting) return firstByte();
      timer = setTimeout(() => up.destroy(new UpstreamFailure('connect', `connect timed out after ${t.connectMs} ms`)), t.connectMs);
      socket.once('connect', firstByte);
    });
    up.once('response', (r: IncomingMessage) => { if (settled) { r.resume(); return; } settle(); resolve(r); });
    up.on('error', (err: Error) => fail(err instanceof UpstreamFailure ? err : classify(err)));
    if (isStreamBody(t.body)) pipeline(t.body.open(), up).catch((err: Error) => up.destroy(err));
    else up.end(t.body);
  });
}

interface Wire { protocol: string; hostname: string; port: string; path: string }
// What http.request would derive from the URL on every call (urlToHttpOptions); target URLs repeat, so once each.
const wires = new WeakMap<URL, Wire>();
function wireOf(url: URL): Wire {
  let w = wires.get(url);
  if (!w) {
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    w = { protocol: url.protocol, hostname, port: url.port, path: `${url.pathname}${url.search}` };
    wires.set(url, w);
  }
  return w;
}

const connectCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPRIVATE']);

/**
 * A refused or unresolvable address never received the request; anything else may have. The original error stays as
 * `cause` (a private address refused by the pool's lookup is an UnsafeUrl the caller explains).
 */
export function classify(err: Error & { code?: string }): UpstreamFailure {
  if (err.code && connectCodes.has(err.code)) return new UpstreamFailure('connect', `cannot connect (${err.code})`, { cause: err });
  return new UpstreamFailure('network', err.code ? `network error (${err.code})` : 'network error');
}
