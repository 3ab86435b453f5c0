// Tries channels in order until one answers; fails over only before any byte reached the client.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CompiledChannel } from '../config/runtime.js';
import { GatewayError, clip } from '../http/errors.js';
import { sendUpstream, UpstreamFailure, type UpstreamRequest } from '../transport/send-upstream.js';
import { readLimited } from '../transport/read-limited.js';
import type { Gateway } from '../gateway.js';
import type { RequestContext } from './context.js';
import { orderCandidates } from './select-channel.js';
import { retryAfterMs } from './circuit-breaker.js';

export interface Dispatched { channel: CompiledChannel; response: IncomingMessage; upstreamModel: string; path: string }
export type BuildRequest = (channel: CompiledChannel, upstreamModel: string) => Promise<Omit<UpstreamRequest, 'channel'>>;

/** Which failures may move to the next channel. */
export interface RetryRule { status(s: number): boolean; afterSend: boolean }

// Channel faults worth another channel: throttling, server errors, and credentials the operator got wrong.
export const idempotentRetry: RetryRule = { status: (s) => s === 429 || s >= 500 || s === 401 || s === 403 || s === 408, afterSend: true };
// A task submit the upstream may have accepted is never sent twice: only refusals that prove it was not.
export const submitRetry: RetryRule = { status: (s) => s === 429 || s === 503 || s === 401 || s === 403, afterSend: false };

export async function dispatch(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse,
  group: string, model: string, operation: string, build: BuildRequest, rule: RetryRule = idempotentRetry, pin?: string): Promise<Dispatched> {
  const all = g.runtime.candidates(group, model, operation);
  // A follow-up on an earlier task must reach the vendor that holds that task.
  const usable = pin ? all.filter((c) => c.id === pin) : orderCandidates(all).filter((c) => g.breakers.allow(c.id));
  const cands = usable.slice(0, g.runtime.maxAttempts);
  if (!cands.length) throw unavailable(g, all.map((c) => c.id), model);
  let last: { status?: number; failure?: UpstreamFailure; retryAfter?: string } = {};
  for (const channel of cands) {
    if (ctx.abort.signal.aborted) throw new GatewayError('upstream_error', 'client closed the connection');
    const t0 = performance.now();
    const upstreamModel = channel.modelMap[model] ?? model;
    ctx.channel = channel.id;
    let u: Omit<UpstreamRequest, 'channel'>;
    try {
      u = await build(channel, upstreamModel);
    } catch (err) {
      // The channel was never called: a body its transform cannot map is the client's fault, not the channel's.
      throw err instanceof GatewayError ? err : new GatewayError('invalid_request', `The request cannot be mapped for this model: ${(err as Error).message}`);
    }
    try {
      const response = await sendUpstream(req, res, { ...u, channel }, ctx.abort.signal);
      const status = response.statusCode ?? 502;
      const ms = performance.now() - t0;
      ctx.upstreamMs += ms;
      ctx.attempts.push({ channel: channel.id, status, ms: Math.round(ms) });
      const retryAfter = header(response, 'retry-after');
      record(g, channel.id, status, retryAfter);
      if (!rule.status(status)) {
        // Whatever reads this body later stops when the request is aborted (client gone, shutdown).
        ctx.abort.signal.addEventListener('abort', () => response.destroy(), { once: true });
        return { channel, response, upstreamModel, path: u.path };
      }
      last = { status, retryAfter };
      response.resume();
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      const failure = err instanceof UpstreamFailure ? err : new UpstreamFailure('network', (err as Error).message);
      ctx.upstreamMs += performance.now() - t0;
      ctx.attempts.push({ channel: channel.id, error: `${failure.kind}: ${failure.message}`, ms: Math.round(performance.now() - t0) });
      last = { failure };
      if (failure.message !== 'client closed the connection') g.breakers.failure(channel.id);
      if (failure.kind !== 'connect' && !rule.afterSend) break;
    }
  }
  throw exhausted(last, cands.length);
}

/** Every answer counts toward the channel's health: 429 is back-pressure, server and credential faults are failures. */
function record(g: Gateway, channel: string, status: number, retryAfter: string | undefined): void {
  if (status === 429) return g.breakers.throttled(channel, retryAfterMs(retryAfter));
  if (status >= 500 || status === 401 || status === 403 || status === 408) {
    g.breakers.failure(channel);
    if (status === 503 && retryAfter) g.breakers.throttled(channel, retryAfterMs(retryAfter));
    return;
  }
  g.breakers.success(channel);
}

/** No channel may take the request: 429 when the vendors asked to slow down (with when to retry), else 503. */
function unavailable(g: Gateway, channels: string[], model: string): GatewayError {
  const wait = g.breakers.throttledFor(channels);
  if (wait !== undefined) {
    return new GatewayError('too_many_requests', `Upstream is rate limiting model ${clip(model)}; retry later`, { headers: { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) } });
  }
  return new GatewayError('no_available_channel', `No channel is available for model ${clip(model)}${channels.length ? ' (its channels are failing; retry later)' : ''}`);
}

function exhausted(last: { status?: number; failure?: UpstreamFailure; retryAfter?: string }, tried: number): GatewayError {
  const n = `${tried} upstream attempt${tried > 1 ? 's' : ''}`;
  if (last.status === 429) {
    return new GatewayError('too_many_requests', `Upstream is rate limiting (${n})`, { headers: last.retryAfter ? { 'retry-after': last.retryAfter } : undefined });
  }
  if (last.failure?.kind === 'timeout') return new GatewayError('upstream_timeout', `Upstream timed out (${n})`);
  const why = last.status ? `HTTP ${last.status}` : last.failure?.kind === 'connect' ? 'connection failed' : 'network error';
  return new GatewayError('upstream_error', `Upstream failed: ${why} (${n})`);
}

const header = (r: IncomingMessage, name: string) => {
  const v = r.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Relays an upstream client error (4xx) as Shape A, keeping its status and, when it has one, its code. */
export async function upstreamClientError(d: Dispatched, operation: string): Promise<GatewayError> {
  const status = d.response.statusCode ?? 502;
  let parsed: unknown;
  try {
    const raw = await readLimited(d.response, 1 << 20, d.channel.timeouts.idle_ms);
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return GatewayError.fromUpstream(status, 'upstream_error', `Upstream rejected the request (HTTP ${status})`);
  }
  const transform = d.channel.operations.get(operation)?.error;
  // Without an `error` transform: OpenAI-style {error:{...}} or a flat {message, code} envelope.
  const nested = (parsed as { error?: unknown })?.error;
  const mapped = (transform ? await transform.run(parsed).catch(() => undefined) : nested && typeof nested === 'object' ? nested : parsed) as
    { message?: unknown; code?: unknown; type?: unknown } | undefined;
  const raw = typeof mapped?.message === 'string' && mapped.message ? mapped.message : `Upstream rejected the request (HTTP ${status})`;
  // A vendor's words are relayed bounded; codes and types only when they look like identifiers.
  const message = raw.length > 500 ? `${raw.slice(0, 500)}…` : raw;
  const code = identifier(typeof mapped?.code === 'number' ? String(mapped.code) : mapped?.code) ?? 'upstream_error';
  const type = identifier(mapped?.type) ?? 'upstream_error';
  return GatewayError.fromUpstream(status, code, message, type);
}

const identifier = (v: unknown) => (typeof v === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(v) ? v : undefined);
