// Opens the vendor's side of a live session: the channels that serve the model in order, each dialled as a WebSocket
// with the channel's own credentials (the client's key never leaves the gateway), failing over before the client's
// side is accepted, so a vendor that refuses or does not answer costs the client nothing but a clean HTTP error.
import WebSocket from 'ws';
import type { IncomingMessage } from 'node:http';
import { GatewayError, clip } from '../http/errors.js';
import { channelTarget } from '../transport/channel-target.js';
import { fillPath } from '../transform/fill-path.js';
import { orderCandidates } from '../pipeline/select-channel.js';
import { noteAttempt, record, unavailable } from '../pipeline/dispatch.js';
import type { CompiledChannel } from '../config/runtime.js';
import type { Signal } from '../http/abort.js';
import type { Exchange, Resolved } from '../pipeline/exchange.js';

export interface Dialled { ws: WebSocket; channel: CompiledChannel; upstreamModel: string }

/** Throws no_available_channel (503), too_many_requests (429), upstream_error (502), upstream_timeout (504), or the vendor's own 4xx. */
export async function dialVendor(ex: Exchange, r: Resolved, maxFrameBytes: number): Promise<Dialled> {
  const { g, ctx } = ex;
  const all = g.runtime.candidates(r.token.group, r.model, r.route.operation);
  const cands = orderCandidates(all).filter((c) => g.breakers.allow(c.id)).slice(0, g.runtime.maxAttempts);
  if (!cands.length) throw unavailable(g, all.map((c) => c.id), r.model, false);
  let last: GatewayError | undefined;
  for (const channel of cands) {
    if (ctx.abort.signal.aborted) break;
    const upstreamModel = channel.modelMap[r.model] ?? r.model;
    const target = channelTarget(channel, { method: 'GET', path: fillPath(channel.operations.get(r.route.operation)!.path, { model: upstreamModel }) });
    const url = new URL(target.url);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    ctx.channel = channel.id;
    const t0 = performance.now();
    const ws = new WebSocket(url, { headers: target.headers, maxPayload: maxFrameBytes, perMessageDeflate: false, handshakeTimeout: channel.timeouts.connect_ms + channel.timeouts.first_byte_ms });
    const outcome = await opened(ws, ctx.abort.signal);
    noteAttempt(ex, channel.id, t0, outcome.status ? { status: outcome.status } : outcome.error ? { error: outcome.error } : { status: 101 });
    if (outcome.ok) {
      g.breakers.success(channel.id);
      return { ws, channel, upstreamModel };
    }
    if (outcome.status) record(g, channel.id, outcome.status, undefined);
    else if (outcome.error !== 'client gone') g.breakers.failure(channel.id);
    last = refusal(outcome);
    // A refusal of the request itself (a bad model, a bad parameter) is the same on every channel: relayed at once.
    if (outcome.status && outcome.status < 500 && ![401, 403, 408, 429].includes(outcome.status)) throw last;
  }
  throw last ?? new GatewayError('upstream_error', 'client closed the connection');
}

interface Opened { ok: boolean; status?: number; body?: string; error?: string }

/** Settles once: open, refused with a status (its body read, bounded), failed, or given up because the client left. */
function opened(ws: WebSocket, signal: Signal): Promise<Opened> {
  return new Promise((resolve) => {
    const done = (o: Opened) => { signal.removeEventListener('abort', onAbort); resolve(o); };
    const onAbort = () => { ws.terminate(); done({ ok: false, error: 'client gone' }); };
    signal.addEventListener('abort', onAbort, { once: true });
    // Held until the client's side is open and the relay listens: the vendor's first event (session.created) comes at once.
    ws.once('open', () => { ws.pause(); done({ ok: true }); });
    ws.once('unexpected-response', (_req, res: IncomingMessage) => {
      let body = '';
      res.on('data', (d: Buffer) => { if (body.length < 4096) body += d.toString('utf8'); });
      res.once('end', () => done({ ok: false, status: res.statusCode, body }));
      res.once('error', () => done({ ok: false, status: res.statusCode, body }));
      res.once('close', () => done({ ok: false, status: res.statusCode, body }));
    });
    ws.once('error', (err) => done({ ok: false, error: /timeout/i.test(err.message) ? 'timeout' : err.message.slice(0, 200) }));
  });
}

function refusal(o: Opened): GatewayError {
  if (!o.status) return o.error === 'timeout' ? new GatewayError('upstream_timeout', 'Upstream timed out opening the session') : new GatewayError('upstream_error', 'Upstream failed: connection failed');
  if (o.status === 429) return new GatewayError('too_many_requests', 'Upstream is rate limiting; retry later');
  if (o.status >= 500 || o.status === 401 || o.status === 403) return new GatewayError('upstream_error', `Upstream failed: HTTP ${o.status}`);
  return GatewayError.fromUpstream(o.status, 'upstream_error', `Upstream refused the session: ${clip(vendorMessage(o.body), 300)}`, 'invalid_request_error');
}

/** The vendor's own message from its error body, if it has one. */
function vendorMessage(body = ''): string {
  try {
    const m = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof m === 'string') return m;
  } catch { /* not JSON */ }
  return body || 'no reason given';
}
