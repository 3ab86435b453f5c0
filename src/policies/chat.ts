// Policy `stream` (chat completions): a JSON request answered as JSON, or as SSE when the body sets `stream: true`.
// A unified vendor gets the client's bytes untouched; a vendor with transforms gets them mapped, and its chunks too.
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../http/errors.js';
import { addedMs, type Usage } from '../pipeline/context.js';
import { idempotentRetry, type Attempt, type Sent } from '../pipeline/dispatch.js';
import type { Exchange, Priced } from '../pipeline/exchange.js';
import { fillPath } from '../transform/fill-path.js';
import type { ChannelCall } from '../transport/channel-target.js';
import { relaySse } from '../transport/sse-relay.js';
import { streamsInFlight } from '../metrics.js';
import { unifiedHandler, transformedHandler, streamErrorEvent, flushHeld, type ChatStreamState } from './chat-events.js';
import { readUpstreamJson } from './upstream-json.js';
import type { ProxiedPolicy } from './policy.js';

const streaming = (p: Priced) => p.body.stream === true;
const wantsUsage = (p: Priced) => streaming(p) && (p.body.stream_options as { include_usage?: boolean } | null)?.include_usage === true;

async function build(_ex: Exchange, p: Priced, a: Attempt): Promise<ChannelCall> {
  const stream = streaming(p);
  const path = fillPath(a.op.path, { model: a.upstreamModel });
  const accept = stream ? 'text/event-stream' : 'application/json';
  if (a.op.request) {
    const mapped = await a.op.request.run(p.body, { model: a.upstreamModel, stream });
    return { method: 'POST', path, accept, body: Buffer.from(JSON.stringify(mapped)) };
  }
  // The client's bytes untouched unless the model is renamed or stream usage must be asked for (to bill it).
  const askUsage = stream && !wantsUsage(p);
  if (a.upstreamModel === p.model && !askUsage) return { method: 'POST', path, accept, body: p.raw };
  const out: Record<string, unknown> = { ...p.body, model: a.upstreamModel };
  if (askUsage) out.stream_options = { ...(p.body.stream_options as object | null), include_usage: true };
  return { method: 'POST', path, accept, body: Buffer.from(JSON.stringify(out)) };
}

/** What the upstream reported, and how much was delivered in case it reported nothing. */
interface Billable { usage?: Usage; delivered: number }

async function respond(ex: Exchange, p: Priced, sent: Sent): Promise<Usage | undefined> {
  const b = streaming(p) ? await answerStream(ex, p, sent) : await answerJson(ex, p, sent);
  return billedUsage(ex, b, p.promptTokens);
}

async function answerJson(ex: Exchange, p: Priced, sent: Sent): Promise<Billable> {
  let { raw, parsed } = await readUpstreamJson(ex, sent, p.route.limits.maxResponseBytes);
  if (sent.op.response) {
    parsed = await sent.op.response.run(parsed, { model: p.model });
    raw = Buffer.from(JSON.stringify(parsed));
  }
  if (!parsed || typeof parsed !== 'object') throw new GatewayError('bad_response_body', 'Bad upstream response body: not an object');
  ex.res.writeHead(200, { 'content-type': 'application/json', 'content-length': raw.length, 'x-switchyard-added-ms': addedMs(ex.ctx).toFixed(3) });
  ex.res.end(raw);
  return { usage: (parsed as { usage?: Usage }).usage, delivered: Math.ceil(raw.length / 4) };
}

async function answerStream(ex: Exchange, p: Priced, sent: Sent): Promise<Billable> {
  const { ctx, res } = ex;
  const type = String(sent.response.headers['content-type'] ?? '');
  if (!type.includes('text/event-stream')) {
    sent.response.resume();
    throw new GatewayError('bad_response_body', `Bad upstream response body: expected text/event-stream, got ${type.slice(0, 64) || 'nothing'}`);
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', connection: 'keep-alive',
    'x-switchyard-added-ms': addedMs(ctx).toFixed(3),
  });
  res.socket?.setNoDelay(true);
  streamsInFlight.inc();
  res.once('close', () => streamsInFlight.dec());
  const state: ChatStreamState = { done: false, dataEvents: 0, sawError: false };
  const onEvent = sent.op.chunk ? transformedHandler(state, wantsUsage(p), sent.op.chunk, { model: p.model }) : unifiedHandler(state, wantsUsage(p));
  const end = await relaySse(sent.response, res, {
    maxEventBytes: p.route.limits.maxSseEventBytes, idleMs: sent.channel.timeouts.idle_ms, onEvent, isAsync: Boolean(sent.op.chunk), signal: ctx.abort.signal,
  });
  ctx.outcome = closeStream(end, state, res);
  return { usage: state.usage, delivered: state.dataEvents };
}

/** Ends the client's stream: `[DONE]` after a clean end, a final error event first after anything else. */
function closeStream(end: string, state: ChatStreamState, res: ServerResponse): string {
  if (end === 'client_gone') return end;
  if (state.held) res.write(flushHeld(state));
  const clean = end === 'eof' && state.done;
  if (!clean && !state.sawError) res.write(end === 'cut' ? streamErrorEvent('the gateway is shutting down; the stream was cut', 'shutting_down') : streamErrorEvent(cutReason(end), 'bad_response_body'));
  res.end('data: [DONE]\n\n');
  if (clean) return state.sawError ? 'upstream_error' : 'done';
  return state.sawError ? 'upstream_error' : end === 'eof' ? 'upstream_cut' : end;
}

const cutReason = (end: string) => (end === 'idle_timeout' ? 'upstream stream went idle' : end === 'too_large' ? 'upstream event too large' : 'upstream stream ended unexpectedly');

/**
 * Usage to bill: the upstream's own. Without it (cut stream, client gone, vendor silent) the prompt estimate
 * plus one token per delivered event, since the upstream did the work; nothing delivered bills nothing.
 */
function billedUsage(ex: Exchange, b: Billable, promptEstimate: number): Usage | undefined {
  const { ctx } = ex;
  if (b.usage && typeof b.usage.prompt_tokens === 'number') ctx.usage = b.usage;
  else if (b.delivered) {
    ctx.usageEstimated = true;
    ctx.usage = { prompt_tokens: promptEstimate, completion_tokens: b.delivered };
  }
  return ctx.usage;
}

export const chat: ProxiedPolicy = { body: 'json', scope: 'request', retry: idempotentRetry, relayErrors: true, build, respond };
