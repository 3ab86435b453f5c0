// One upstream attempt: resolves with the response head, rejects on connect/first-byte failure.
// A body the engine built (chat, json, task policies) goes out with one `http.request` on the channel's pooled
// agent: the bytes are already in hand, so http-proxy-3's per-request option merge and body pipe would be pure
// overhead on the hot path. Pass-through routes and result downloads, where the gateway is a plain reverse
// proxy, go through http-proxy-3 (`via: 'proxy'`).
import { request as httpRequest, type IncomingMessage, type ServerResponse, type ClientRequest, type Agent } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { Socket } from 'node:net';
import { createProxyServer } from 'http-proxy-3';
import type { CompiledChannel } from '../config/runtime.js';
import { applyAuth } from './auth/index.js';
import { pipeline } from 'node:stream/promises';
import type { StreamBody } from '../http/multipart.js';

export interface UpstreamRequest {
  channel: CompiledChannel;
  method: string;
  path: string; // path and query on the channel's base URL
  /** The bytes in hand, or a body streamed from disk (multipart uploads) that each attempt opens anew. */
  body?: Buffer | StreamBody;
  contentType?: string;
  accept?: string;
  /** Extra headers forwarded from the client on purpose (e.g. `range` for downloads). */
  forward?: Record<string, string>;
  /** `proxy`: through http-proxy-3 (pass-through routes, downloads); default: a direct pooled request. */
  via?: 'proxy' | 'direct';
}

/** A request to an absolute URL (a stored result URL) rather than a channel path. */
export interface RawTarget { url: URL; agent: Agent; headers: Record<string, string>; method: string; body?: Buffer | StreamBody; connectMs: number; firstByteMs: number }

export class UpstreamFailure extends Error {
  constructor(readonly kind: 'connect' | 'timeout' | 'network', message: string) { super(message); }
}

interface Pending { resolve(r: IncomingMessage): void; reject(e: Error): void; connectMs: number; firstByteMs: number }
const kPending = Symbol('switchyard.pending');
type Tracked = IncomingMessage & { [kPending]?: Pending };

const proxy = createProxyServer({ selfHandleResponse: true, ignorePath: true, changeOrigin: true, xfwd: false });

proxy.on('proxyReq', (proxyReq: ClientRequest, req: Tracked, _res: unknown, _opts: unknown, socket: Socket) => {
  const p = req[kPending];
  if (!p) return;
  armTimeouts(proxyReq, socket, p);
});

proxy.on('proxyRes', (proxyRes: IncomingMessage, req: Tracked) => {
  const p = req[kPending];
  req[kPending] = undefined;
  p?.resolve(proxyRes);
});

// Connect time is bounded only for fresh sockets; a pooled socket goes straight to the first-byte clock.
function armTimeouts(proxyReq: ClientRequest, socket: Socket, p: Pending): void {
  const firstByte = () => setTimeout(() => proxyReq.destroy(new UpstreamFailure('timeout', `no response within ${p.firstByteMs} ms`)), p.firstByteMs);
  let timer: NodeJS.Timeout;
  if (socket.connecting) {
    timer = setTimeout(() => proxyReq.destroy(new UpstreamFailure('connect', `connect timed out after ${p.connectMs} ms`)), p.connectMs);
    socket.once('connect', () => { clearTimeout(timer); timer = firstByte(); });
  } else {
    timer = firstByte();
  }
  proxyReq.once('response', () => clearTimeout(timer));
  proxyReq.once('close', () => clearTimeout(timer));
}

/**
 * Sends a request on a channel with its auth; the client's own headers never reach the upstream. `signal` (the
 * request's abort: client gone, shutdown) abandons the attempt at once.
 */
export function sendUpstream(req: IncomingMessage, res: ServerResponse, u: UpstreamRequest, signal: AbortSignal): Promise<IncomingMessage> {
  const headers: Record<string, string> = { ...u.channel.headers, ...u.forward, accept: u.accept ?? 'application/json' };
  if (u.body) {
    headers['content-type'] = isStream(u.body) ? u.body.contentType : u.contentType ?? 'application/json';
    headers['content-length'] = String(u.body.length);
  } else if (u.method !== 'GET' && u.method !== 'HEAD') {
    headers['content-length'] = '0';
  }
  const path = applyAuth(u.channel.auth, { method: u.method, host: u.channel.baseUrl.host, path: joinPath(u.channel.baseUrl, u.path), headers, body: isStream(u.body) ? undefined : u.body });
  const { connect_ms, first_byte_ms } = u.channel.timeouts;
  const target: RawTarget = {
    url: targetUrl(path, u.channel.baseUrl), agent: u.channel.agent, headers, method: u.method, body: u.body,
    connectMs: connect_ms, firstByteMs: first_byte_ms,
  };
  return u.via === 'proxy' ? sendRaw(req, res, target, signal) : sendDirect(target, signal);
}

/** The hot path: one pooled request with the body in hand; the request's abort before the head abandons it. */
export function sendDirect(t: RawTarget, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) { reject(new UpstreamFailure('network', 'client closed the connection')); return; }
    const send = t.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const up = send(t.url, { method: t.method, agent: t.agent, headers: { ...t.headers, host: t.url.host } });
    let settled = false;
    const settle = () => { settled = true; signal.removeEventListener('abort', onAbort); };
    const onAbort = () => {
      if (settled) return;
      settle();
      up.destroy();
      reject(new UpstreamFailure('network', 'client closed the connection'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    up.once('socket', (socket: Socket) => armTimeouts(up, socket, { resolve, reject, connectMs: t.connectMs, firstByteMs: t.firstByteMs }));
    up.once('response', (r: IncomingMessage) => { if (!settled) { settle(); resolve(r); } else r.resume(); });
    up.on('error', (err: Error) => { if (!settled) { settle(); reject(err instanceof UpstreamFailure ? err : classify(err)); } });
    if (isStream(t.body)) pipeline(t.body.open(), up).catch((err: Error) => up.destroy(err));
    else up.end(t.body);
  });
}

const isStream = (b: Buffer | StreamBody | undefined): b is StreamBody => Boolean(b && !Buffer.isBuffer(b));

export function sendRaw(req: IncomingMessage, res: ServerResponse, t: RawTarget, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const tracked = req as Tracked;
    tracked[kPending] = { resolve, reject, connectMs: t.connectMs, firstByteMs: t.firstByteMs };
    // http-proxy-3 swallows the reset a client abort causes, so the abort itself must settle the attempt.
    const onAbort = () => {
      if (tracked[kPending]?.resolve !== resolve) return;
      tracked[kPending] = undefined;
      reject(new UpstreamFailure('network', 'client closed the connection'));
    };
    if (signal.aborted) { onAbort(); return; }
    signal.addEventListener('abort', onAbort, { once: true });
    // http-proxy-3 copies req.headers; replacing them keeps client keys and cookies away from vendors.
    req.headers = { host: t.url.host };
    proxy.web(req, res, {
      target: t.url,
      agent: t.agent,
      method: t.method,
      headers: t.headers,
      buffer: isStream(t.body) ? t.body.open() : bodyStream(t.body),
    }, (err: Error) => {
      tracked[kPending] = undefined;
      reject(err instanceof UpstreamFailure ? err : classify(err));
    });
  });
}

/** A one-chunk stream: much cheaper than Readable.from, which drives an async iterator. */
function bodyStream(body: Buffer | undefined): Readable {
  const r = new Readable({ read() {} });
  if (body) r.push(body);
  r.push(null);
  return r;
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

function classify(err: Error & { code?: string }): UpstreamFailure {
  if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' || err.code === 'EHOSTUNREACH') {
    return new UpstreamFailure('connect', `cannot connect (${err.code})`);
  }
  return new UpstreamFailure('network', err.code ? `network error (${err.code})` : 'network error');
}
