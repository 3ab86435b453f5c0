// Policy `stream`: a JSON request answered as JSON, or as SSE when the body sets `stream: true` (chat completions).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CompiledChannel, CompiledOperation, CompiledRoute } from '../config/runtime.js';
import { GatewayError } from '../http/errors.js';
import { readJsonBody } from './read-json-body.js';
import type { Gateway } from '../gateway.js';
import { addedMs, type RequestContext, type Usage } from '../pipeline/context.js';
import { resolveModel } from '../pipeline/model-access.js';
import { dispatch, upstreamClientError, type Dispatched } from '../pipeline/dispatch.js';
import { estimateChat } from '../billing/price.js';
import { readPriceInputs } from '../billing/price-inputs.js';
import { withReservation } from '../billing/reservation.js';
import { readLimited, BodyTooLarge } from '../transport/read-limited.js';
import { relaySse } from '../transport/sse-relay.js';
import { streamsInFlight } from '../metrics.js';
import { unifiedHandler, transformedHandler, streamErrorEvent, flushHeld, type ChatStreamState } from './chat-events.js';

interface Call { body: Record<string, unknown>; raw: Buffer; stream: boolean; wantsUsage: boolean; model: string }

export async function serveStream(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const route = ctx.route!;
  const { body, raw } = await readJsonBody(g, ctx, req);
  const model = body.model as string;
  ctx.model = model;
  const price = resolveModel(g, ctx.token!, model, route.operation);
  const stream = body.stream === true;
  const wantsUsage = stream && (body.stream_options as { include_usage?: boolean } | null)?.include_usage === true;
  const call: Call = { body, raw, stream, wantsUsage, model };
  const est = estimateChat(price, readPriceInputs(route.priceInputs, price, body), raw.length, g.runtime.promptBytesPerToken);
  await withReservation(g, ctx, est.reserve, async () => {
    const d = await dispatch(g, ctx, req, res, ctx.token!.group, model, route.operation, (ch, um) => buildRequest(ch, route, call, um));
    if ((d.response.statusCode ?? 500) >= 400) throw await upstreamClientError(d, route.operation);
    const op = d.channel.operations.get(route.operation)!;
    const billable = stream ? await answerStream(ctx, d, op, route, res, call) : await answerJson(ctx, d, op, route, res, call);
    return billedUsage(ctx, billable, est.promptTokens);
  });
}

async function buildRequest(ch: CompiledChannel, route: CompiledRoute, c: Call, upstreamModel: string) {
  const op = ch.operations.get(route.operation)!;
  const path = op.path.replace('{model}', encodeURIComponent(upstreamModel));
  const accept = c.stream ? 'text/event-stream' : 'application/json';
  if (op.request) {
    const mapped = await op.request.run(c.body, { model: upstreamModel, stream: c.stream });
    return { method: 'POST', path, accept, body: Buffer.from(JSON.stringify(mapped)) };
  }
  // Unified vendors get the client's bytes untouched unless the model is renamed or stream usage must be asked for.
  const askUsage = c.stream && !c.wantsUsage;
  if (upstreamModel === c.model && !askUsage) return { method: 'POST', path, accept, body: c.raw };
  const out: Record<string, unknown> = { ...c.body, model: upstreamModel };
  if (askUsage) out.stream_options = { ...(c.body.stream_options as object | null), include_usage: true };
  return { method: 'POST', path, accept, body: Buffer.from(JSON.stringify(out)) };
}

/** What the upstream reported, and how much was delivered in case it reported nothing. */
interface Billable { usage?: Usage; delivered: number }

async function answerJson(ctx: RequestContext, d: Dispatched, op: CompiledOperation, route: CompiledRoute, res: ServerResponse, c: Call): Promise<Billable> {
  let raw: Buffer;
  let parsed: Record<string, unknown>;
  const t0 = performance.now();
  try {
    raw = await readLimited(d.response, route.limits.maxResponseBytes, d.channel.timeouts.idle_ms);
    ctx.upstreamMs += performance.now() - t0;
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    const why = err instanceof BodyTooLarge ? err.message : 'upstream body is not valid JSON';
    throw new GatewayError('bad_response_body', `Bad upstream response body: ${why}`);
  }
  if (op.response) {
    parsed = (await op.response.run(parsed, { model: c.model })) as Record<string, unknown>;
    raw = Buffer.from(JSON.stringify(parsed));
  }
  if (!parsed || typeof parsed !== 'object') throw new GatewayError('bad_response_body', 'Bad upstream response body: not an object');
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': raw.length, 'x-switchyard-added-ms': addedMs(ctx).toFixed(3) });
  res.end(raw);
  return { usage: parsed.usage as Usage | undefined, delivered: Math.ceil(raw.length / 4) };
}

async function answerStream(ctx: RequestContext, d: Dispatched, op: CompiledOperation, route: CompiledRoute, res: ServerResponse, c: Call): Promise<Billable> {
  const type = String(d.response.headers['content-type'] ?? '');
  if (!type.includes('text/event-stream')) {
    d.response.resume();
    throw new GatewayError('bad_response_body', `Bad upstream response body: expected text/event-stream, got ${type || 'nothing'}`);
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', connection: 'keep-alive',
    'x-switchyard-added-ms': addedMs(ctx).toFixed(3),
  });
  res.socket?.setNoDelay(true);
  streamsInFlight.inc();
  res.once('close', () => streamsInFlight.dec());
  const state: ChatStreamState = { done: false, dataEvents: 0, sawError: false };
  const onEvent = op.chunk ? transformedHandler(state, c.wantsUsage, op.chunk, { model: c.model }) : unifiedHandler(state, c.wantsUsage);
  const end = await relaySse(d.response, res, {
    maxEventBytes: route.limits.maxSseEventBytes, idleMs: d.channel.timeouts.idle_ms, onEvent, isAsync: Boolean(op.chunk), signal: ctx.abort.signal,
  });
  ctx.outcome = closeStream(end, state, op, res);
  return { usage: state.usage, delivered: state.dataEvents };
}

/** Ends the client's stream: `[DONE]` after a clean end, a final error event first after anything else. */
function closeStream(end: string, state: ChatStreamState, op: CompiledOperation, res: ServerResponse): string {
  if (end === 'client_gone') return end;
  if (state.held) res.write(flushHeld(state));
  const clean = end === 'eof' && (state.done || op.streamEnd === 'eof');
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
function billedUsage(ctx: RequestContext, b: Billable, promptEstimate: number): Usage | undefined {
  if (b.usage && typeof b.usage.prompt_tokens === 'number') ctx.usage = b.usage;
  else if (b.delivered) {
    ctx.usageEstimated = true;
    ctx.usage = { prompt_tokens: promptEstimate, completion_tokens: b.delivered };
  }
  return ctx.usage;
}
