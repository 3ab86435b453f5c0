// Stage: tries channels in order until one answers; fails over only before any byte reached the client, and only
// on failures the policy's retry rule allows. Every answer counts toward its channel's health.
import type { CompiledChannel, CompiledOperation } from '../config/runtime.js';
import { GatewayError, clip } from '../http/errors.js';
import { TransformError } from '../transform/compile-transform.js';
import { send, UpstreamFailure, type UpstreamResponse } from '../transport/http-client.js';
import { channelTarget, type ChannelCall } from '../transport/channel-target.js';
import type { Gateway } from './gateway.js';
import type { Hold } from './reservation.js';
import type { Checked, Exchange, Priced } from './exchange.js';
import { orderCandidates } from './select-channel.js';
import { retryAfterMs } from './circuit-breaker.js';

/** dispatch → the channel that answered, its response head, and what was sent. */
export interface Sent { channel: CompiledChannel; op: CompiledOperation; response: UpstreamResponse; upstreamModel: string; path: string }

/** One attempt's request on one channel, built by the policy (and, for a task, recorded on its pending record). */
export interface Attempt { channel: CompiledChannel; op: CompiledOperation; upstreamModel: string; hold: Hold }
export type Build = (ex: Exchange, p: Priced, a: Attempt) => Promise<ChannelCall>;

/** Which failures may move to the next channel. */
export interface RetryRule { status(s: number): boolean; afterSend: boolean }

// Channel faults worth another channel: throttling, server errors, and credentials the operator got wrong.
export const idempotentRetry: RetryRule = { status: (s) => s === 429 || s >= 500 || s === 401 || s === 403 || s === 408, afterSend: true };
// A task submit the upstream may have accepted is never sent twice: only refusals that prove it was not.
export const submitRetry: RetryRule = { status: (s) => s === 429 || s === 503 || s === 401 || s === 403, afterSend: false };

interface Last { status?: number; failure?: UpstreamFailure; retryAfter?: string }

/** Throws upstream_error (502), no_available_channel (503), upstream_timeout (504), too_many_requests (429). */
export async function dispatch(ex: Exchange, p: Checked, hold: Hold, build: Build, rule: RetryRule): Promise<Sent> {
  const { g, ctx } = ex;
  const all = g.runtime.candidates(p.token.group, p.model, p.route.operation);
  // A follow-up on an earlier task must reach the vendor that holds that task; files go only where they are carried.
  const usable = (p.pin ? all.filter((c) => c.id === p.pin) : orderCandidates(all).filter((c) => g.breakers.allow(c.id)))
    .filter((c) => !p.carriers || p.carriers.has(c.id));
  const cands = usable.slice(0, g.runtime.maxAttempts);
  if (!cands.length) throw unavailable(g, all.map((c) => c.id), p.model, Boolean(p.pin));
  let last: Last = {};
  for (let n = 0; n < cands.length; n++) {
    const channel = cands[n];
    if (ctx.abort.signal.aborted) throw new GatewayError('upstream_error', 'client closed the connection');
    const op = operationFor(channel, p);
    const upstreamModel = channel.modelMap[p.model] ?? p.model;
    ctx.channel = channel.id;
    const call = await mapped(channel.id, () => build(ex, p, { channel, op, upstreamModel, hold }));
    const t0 = performance.now();
    const target = channelTarget(channel, call);
    const span = ctx.trace?.attempt(channel, target, p.route.operation, upstreamModel, n); // its traceparent goes on the request
    try {
      const response = await send(target, ctx.abort.signal);
      const status = response.statusCode ?? 502;
      const retryAfter = header(response, 'retry-after');
      noteAttempt(ex, channel.id, t0, { status });
      record(g, channel.id, status, retryAfter);
      span?.answered(response, !rule.status(status));
      if (!rule.status(status)) {
        // Whatever reads this body later stops when the request is aborted (client gone, shutdown).
        ctx.abort.signal.addEventListener('abort', () => response.destroy(), { once: true });
        return { channel, op, response, upstreamModel, path: call.path };
      }
      last = { status, retryAfter };
      response.resume();
    } catch (err) {
      const failure = err instanceof UpstreamFailure ? err : new UpstreamFailure('network', (err as Error).message);
      noteAttempt(ex, channel.id, t0, { error: `${failure.kind}: ${failure.message}` });
      span?.failed(failure.kind);
      last = { failure };
      if (failure.message !== 'client closed the connection') g.breakers.failure(channel.id);
      if (failure.kind !== 'connect' && !rule.afterSend) break;
    }
  }
  throw exhausted(last, cands.length);
}

/**
 * The channel's operation for this request: one that takes the client's dialect as it is, else the route's own. A
 * request continuing a kept answer passes untouched only to the channel whose vendor made it (another vendor does not
 * know its id): elsewhere it is translated from the kept conversation.
 */
export function operationFor(channel: CompiledChannel, p: Priced): CompiledOperation {
  const base = channel.operations.get(p.route.operation)!;
  if (!p.route.dialect || (p.previous && p.previous.kept_by !== channel.id)) return base;
  return channel.standIns.get(p.route.operation)?.find((o) => o.dialect === p.route.dialect && (!o.models || o.models.has(p.model))) ?? base;
}

/** The channel was never called: a body its transform cannot map is the client's fault, not the channel's. */
async function mapped(channel: string, build: () => Promise<ChannelCall>): Promise<ChannelCall> {
  try {
    return await build();
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    const e = new GatewayError('invalid_request', `The request cannot be mapped for this model: ${(err as Error).message}`);
    const limit = err instanceof TransformError && err.setting ? `; ${err.setting} sets the limit` : '';
    throw e.because(`the request transform of channel ${channel} failed: ${(err as Error).message.slice(0, 200)}${limit}`);
  }
}

export function noteAttempt(ex: Exchange, channel: string, t0: number, outcome: { status?: number; error?: string }): void {
  const ms = performance.now() - t0;
  ex.ctx.upstreamMs += ms;
  ex.g.channelStats.record(channel, ms, outcome.error !== undefined || (outcome.status ?? 0) >= 500);
  ex.ctx.attempts.push({ channel, ...outcome, ms: Math.round(ms) });
}

/** Every answer counts toward the channel's health: 429 is back-pressure, server and credential faults are failures. */
export function record(g: Gateway, channel: string, status: number, retryAfter: string | undefined): void {
  if (status === 429) return g.breakers.throttled(channel, retryAfterMs(retryAfter));
  if (status >= 500 || status === 401 || status === 403 || status === 408) {
    g.breakers.failure(channel);
    if (status === 503 && retryAfter) g.breakers.throttled(channel, retryAfterMs(retryAfter));
    return;
  }
  g.breakers.success(channel);
}

/** No channel may take the request: 429 when the vendors asked to slow down (with when to retry), else 503. */
export function unavailable(g: Gateway, channels: string[], model: string, pinned: boolean): GatewayError {
  const wait = g.breakers.throttledFor(channels);
  const list = channels.join(', ');
  if (wait !== undefined) {
    return new GatewayError('too_many_requests', `Upstream is rate limiting model ${clip(model)}; retry later`, { headers: { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) } })
      .because(`every channel of the model is throttled by its vendor (${list}): skipped for its Retry-After`);
  }
  const e = new GatewayError('no_available_channel', `No channel is available for model ${clip(model)}${channels.length ? ' (its channels are failing; retry later)' : ''}`);
  if (pinned) return e.because('the channel that holds the task this request refers to is disabled or gone from the config');
  return e.because(channels.length
    ? `the circuit breaker of every channel of the model is open (${list}; dispatch.breaker_failure_rate, breaker_min_requests, breaker_open_ms)`
    : 'no enabled channel serves the model');
}

function exhausted(last: Last, tried: number): GatewayError {
  const n = `${tried} upstream attempt${tried > 1 ? 's' : ''}`;
  if (last.status === 429) {
    return new GatewayError('too_many_requests', `Upstream is rate limiting (${n})`, { headers: last.retryAfter ? { 'retry-after': last.retryAfter } : undefined })
      .because('the vendor answered 429 on every attempt');
  }
  if (last.failure?.kind === 'timeout') return new GatewayError('upstream_timeout', `Upstream timed out (${n})`);
  const why = last.status ? `HTTP ${last.status}` : last.failure?.kind === 'connect' ? 'connection failed' : 'network error';
  return new GatewayError('upstream_error', `Upstream failed: ${why} (${n})`);
}

const header = (r: UpstreamResponse, name: string) => {
  const v = r.headers[name];
  return Array.isArray(v) ? v[0] : v;
};
