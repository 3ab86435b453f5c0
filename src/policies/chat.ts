// Policy `stream` (chat): a JSON request answered as JSON, or as SSE when the body sets `stream: true`, in the route's
// dialect (the unified OpenAI chat format when it names none). Where the vendor speaks the client's dialect the bytes
// pass untouched; otherwise they are translated through the unified format, and the answer or its events back.
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../http/errors.js';
import { addedMs, answerModel } from '../pipeline/context.js';
import type { Usage } from '../transform/usage.js';
import { idempotentRetry, type Attempt, type Sent } from '../pipeline/dispatch.js';
import type { Exchange, Priced } from '../pipeline/exchange.js';
import { fillPath } from '../transform/fill-path.js';
import { readUsage } from '../transform/usage-paths.js';
import { unifiedUsage, vendorUsage } from '../config/usage-source.js';
import { StreamTransformer, sseTexts } from '../transform/stream-transform.js';
import type { ChannelCall } from '../transport/channel-target.js';
import { relaySse, type RelayEnd } from '../transport/sse-relay.js';
import { streamsInFlight } from '../metrics/metrics.js';
import { unifiedHandler, sameDialectHandler, streamErrorEvent, flushHeld, type ChatStreamState } from './chat-events.js';
import { TranslatedStream } from './translated-stream.js';
import { vendorBody, answerBindings, clientWantsUsage } from './chat-request.js';
import { remember } from './remember.js';
import { JsonArrayFramer, framedResponse, wantsJsonArray } from './json-array-framing.js';
import { after } from '../transform/compile-transform.js';
import { readUpstreamJson } from './upstream-json.js';
import type { ProxiedPolicy } from '../pipeline/policy.js';

const streaming = (p: Priced) => p.route.stream || p.body.stream === true;
/** Bytes pass untouched: the vendor speaks the client's dialect and the channel has no transform of its own. */
const native = (p: Priced, sent: Sent) => p.route.dialect === sent.op.dialect && !sent.op.request && !sent.op.response && !sent.op.chunk;

async function build(ex: Exchange, p: Priced, a: Attempt): Promise<ChannelCall> {
  const stream = streaming(p);
  const path = fillPath((stream && a.op.streamPath) || a.op.path, { model: a.upstreamModel });
  return { method: 'POST', path, accept: stream ? 'text/event-stream' : 'application/json', body: await vendorBody(ex, p, a, stream) };
}

/**
 * What the upstream reported and how much was delivered in case it reported nothing. `partial`: an untouched
 * dialect stream stopped before its end, so the usage it reported so far may not be final.
 */
interface Answered { usage?: Usage; delivered: number; partial?: boolean }

/**
 * Keeps the client's whole answer (routes with `store`) before its last bytes go out: a client that continues it at
 * once, on another worker or instance, finds it kept.
 */
type Keep = (result: unknown) => Promise<void>;

async function respond(ex: Exchange, p: Priced, sent: Sent): Promise<Usage | undefined> {
  const keep: Keep = (result) => remember(ex, p, result, native(p, sent) ? sent.channel.id : undefined);
  const a = streaming(p) ? await answerStream(ex, p, sent, keep) : await answerJson(ex, p, sent, keep);
  return billedUsage(ex, a, p.promptTokens);
}

async function answerJson(ex: Exchange, p: Priced, sent: Sent, keep: Keep): Promise<Answered> {
  const { raw, parsed } = await readUpstreamJson(ex, sent, p.route.limits.maxResponseBytes, `limits.max_response_bytes of route ${p.route.id}`);
  if (!parsed || typeof parsed !== 'object') throw new GatewayError('bad_response_body', 'Bad upstream response body: not an object');
  const dialect = p.route.dialect;
  ex.ctx.responseModel = answerModel(parsed);
  const own = vendorUsage(sent.op);
  if (native(p, sent)) {
    await keep(parsed);
    sendAnswer(ex, raw);
    return { usage: readUsage(own ?? unifiedUsage(ex.g.runtime, p.route.operation), parsed), delivered: Math.ceil(raw.length / 4) };
  }
  const unified = await toUnified(p, sent, parsed);
  const answer = dialect?.client ? await dialect.client.response.run(unified, answerBindings(p)) : unified;
  const out = Buffer.from(JSON.stringify(answer));
  await keep(answer);
  sendAnswer(ex, out);
  const usage = own ? readUsage(own, parsed) : readUsage(unifiedUsage(ex.g.runtime, p.route.operation), unified);
  return { usage, delivered: Math.ceil(out.length / 4) };
}

/** The vendor's answer in the unified format: its dialect's translation, the channel's transform, or as it is. */
async function toUnified(p: Priced, sent: Sent, parsed: object): Promise<Record<string, unknown>> {
  const vendor = sent.op.dialect?.vendor;
  const t = vendor ? vendor.response : sent.op.response;
  const out = t ? await t.run(parsed, vendor ? vendorBindings(p) : { model: p.model }) : parsed;
  if (!out || typeof out !== 'object') throw new GatewayError('bad_response_body', 'Bad upstream response body: it cannot be translated');
  return out as Record<string, unknown>;
}

/** What a vendor dialect's answer transforms may read: the client's model name, the time (for `created`). */
const vendorBindings = (p: Priced) => ({ model: p.model, created: Math.floor(Date.now() / 1000) });

function sendAnswer(ex: Exchange, body: Buffer): void {
  ex.res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length, 'x-switchyard-added-ms': addedMs(ex.ctx).toFixed(3) });
  ex.res.end(body);
}

async function answerStream(ex: Exchange, p: Priced, sent: Sent, keep: Keep): Promise<Answered> {
  const { ctx, res } = ex;
  const type = String(sent.response.headers['content-type'] ?? '');
  if (!type.includes('text/event-stream')) {
    sent.response.resume();
    throw new GatewayError('bad_response_body', `Bad upstream response body: expected text/event-stream, got ${type.slice(0, 64) || 'nothing'}`);
  }
  const state: ChatStreamState = { done: false, dataEvents: 0, sawError: false, usagePaths: unifiedUsage(ex.g.runtime, p.route.operation), vendorUsage: vendorUsage(sent.op) };
  const translated = native(p, sent) ? undefined : translatedStream(p, sent, state);
  const framer = wantsJsonArray(p.route, ctx.url) ? new JsonArrayFramer() : undefined;
  res.writeHead(200, {
    'content-type': framer ? 'application/json; charset=UTF-8' : 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no',
    connection: 'keep-alive', 'x-switchyard-added-ms': addedMs(ctx).toFixed(3),
  });
  res.socket?.setNoDelay(true);
  const opening = translated ? await translated.open() : '';
  if (opening) res.write(framer ? framer.frame(opening) : opening);
  streamsInFlight.inc();
  res.once('close', () => streamsInFlight.dec());
  const dialect = p.route.dialect;
  const handler = translated?.onEvent
    ?? (dialect ? sameDialectHandler(state, dialect, keep) : unifiedHandler(state, clientWantsUsage(p.body)));
  const onEvent: typeof handler = framer ? (ev) => after(handler(ev), (s) => framer.frame(s as string | undefined)) : handler;
  const end = await relaySse(sent.response, res, {
    maxEventBytes: p.route.limits.maxSseEventBytes, idleMs: sent.channel.timeouts.idle_ms, onEvent, signal: ctx.abort.signal,
  });
  const keepTranslated = translated && (() => keep(translated.result));
  ctx.outcome = await closeStream(end, state, framer ? framedResponse(res, framer) : res, translated ?? passedThrough(p), !dialect, keepTranslated);
  ctx.responseModel = state.model;
  ctx.reason = streamReason(end, p, sent) ?? ctx.reason;
  // A dialect's own events may report usage before the end (e.g. the prompt in a first event), read untouched or not.
  const partial = Boolean(state.vendorUsage ?? (!translated && dialect)) && !(end === 'eof' && state.done);
  return { usage: state.usage, delivered: state.dataEvents, partial };
}

function translatedStream(p: Priced, sent: Sent, state: ChatStreamState): TranslatedStream {
  const vendor = sent.op.dialect?.vendor;
  const client = p.route.dialect?.client;
  return new TranslatedStream(state, {
    vendor: vendor && { stream: new StreamTransformer(vendor.stream, vendorBindings(p)), end: sent.op.dialect!.streamEnd },
    chunk: sent.op.chunk,
    client: client && new StreamTransformer(client.stream, answerBindings(p)),
    clientWantsUsage: clientWantsUsage(p.body),
    bindings: { model: p.model },
  });
}

/** How a stream ends for its client: closing events after a clean end, error events after anything else. */
type Closer = Pick<TranslatedStream, 'finish' | 'fail'>;

/** An untranslated stream in a non-unified dialect closes itself when clean; a failure gets the dialect's error events. */
function passedThrough(p: Priced): Closer | undefined {
  const client = p.route.dialect?.client;
  if (!client) return undefined;
  return { finish: async () => '', fail: async (m, c) => sseTexts(await new StreamTransformer(client.stream, answerBindings(p)).fail(m, c)) };
}

/**
 * Ends the client's stream. A unified client gets `[DONE]` after a clean end and a final error event first after
 * anything else; a dialect client gets its dialect's closing or error events. A translated stream's closer adds what
 * its transforms still had to say.
 */
async function closeStream(end: RelayEnd, state: ChatStreamState, res: Pick<ServerResponse, 'write' | 'end'>, closer: Closer | undefined,
  unified: boolean, keep?: () => Promise<void>): Promise<string> {
  if (end === 'client_gone') return end;
  const clean = end === 'eof' && state.done;
  const [message, code] = end === 'cut' ? ['the gateway is shutting down; the stream was cut', 'shutting_down'] : [cutReason(end), 'bad_response_body'];
  const tail = clean && closer ? await closer.finish() : '';
  if (clean && keep) await keep(); // the closing events carry the whole answer: kept before they go
  if (!unified) {
    res.end(clean ? tail : state.sawError || !closer ? '' : await closer.fail(message, code));
  } else {
    if (tail) res.write(tail);
    if (state.held) res.write(flushHeld(state));
    if (!clean && !state.sawError) res.write(streamErrorEvent(message, code));
    res.end('data: [DONE]\n\n');
  }
  if (clean) return state.sawError ? 'upstream_error' : 'done';
  return state.sawError ? 'upstream_error' : end === 'eof' ? 'upstream_cut' : end;
}

/** The operator's reason for a stream the gateway ended itself, with the setting that bounds it. */
function streamReason(end: RelayEnd, p: Priced, sent: Sent): string | undefined {
  if (end === 'too_large') return `an event of channel ${sent.channel.id} is over ${p.route.limits.maxSseEventBytes} bytes (limits.max_sse_event_bytes of route ${p.route.id})`;
  if (end === 'idle_timeout') return `channel ${sent.channel.id} sent nothing for ${sent.channel.timeouts.idle_ms} ms (its timeouts.idle_ms)`;
  return undefined;
}

const cutReason = (end: string) => (end === 'idle_timeout' ? 'upstream stream went idle' : end === 'too_large' ? 'upstream event too large' : 'upstream stream ended unexpectedly');

/**
 * Usage to bill: the upstream's own. Without it (cut stream, client gone, vendor silent) the prompt estimate
 * plus one token per delivered event, since the upstream did the work; nothing delivered bills nothing. A stream
 * cut after reporting part of its usage (e.g. the prompt at its start) bills at least one token per delivered event.
 */
function billedUsage(ex: Exchange, a: Answered, promptEstimate: number): Usage | undefined {
  const { ctx } = ex;
  if (a.usage && typeof a.usage.prompt_tokens === 'number') {
    const short = a.partial && !(a.usage.completion_tokens >= a.delivered);
    ctx.usage = short ? { ...a.usage, completion_tokens: a.delivered } : a.usage;
    if (short) ctx.usageEstimated = true;
  } else if (a.delivered) {
    ctx.usageEstimated = true;
    ctx.usage = { prompt_tokens: promptEstimate, completion_tokens: a.delivered };
  }
  return ctx.usage;
}

export const chat: ProxiedPolicy = { body: 'json', scope: 'request', retry: idempotentRetry, relayErrors: true, build, respond };
