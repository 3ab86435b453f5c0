// Policy `relay`: a JSON or multipart request whose answer streams back as it comes (audio bytes, text, JSON or SSE
// events), its usage read on the way. Bytes pass untouched where the vendor answers what the client asked; a vendor
// that sends its audio inside events, or events where the client asked for bytes, has each chunk decoded as it
// comes (audio-out.ts). Billed at the exact price of what was asked (per character, per second of an upload), at the
// seconds the vendor says it billed, or by the tokens it reported.
import { addedMs } from '../pipeline/context.js';
import type { Usage } from '../transform/usage.js';
import { queryOf } from '../pipeline/match-route.js';
import { idempotentRetry, type Attempt, type Sent } from '../pipeline/dispatch.js';
import type { Exchange, Priced } from '../pipeline/exchange.js';
import { buildCall } from '../transform/build-call.js';
import type { ChannelCall } from '../transport/channel-target.js';
import { relayBody } from '../transport/relay-body.js';
import { relaySse, type RelayEnd } from '../transport/sse-relay.js';
import { sendJson } from '../http/send-json.js';
import { tokenPriced } from '../billing/price.js';
import { mayCarryUsage, readUsage, type CompiledUsagePaths } from '../transform/usage-paths.js';
import { routeEventsAsVendor } from '../config/compile-audio.js';
import { streamsInFlight } from '../metrics/metrics.js';
import { unifiedUsage, vendorUsage } from '../config/usage-source.js';
import { readUpstreamJson } from './upstream-json.js';
import { AudioOut, audioWish, checkFormat, type AudioWish } from './audio-out.js';
import type { Bill } from '../pipeline/reservation.js';
import type { ProxiedPolicy } from '../pipeline/policy.js';

/** What the answer reported and whether it reached the client whole. */
interface Answered { usage?: Usage; whole: boolean }

async function build(ex: Exchange, p: Priced, a: Attempt): Promise<ChannelCall> {
  const wish = audioWish(p.route.audio, p.body, a.op.audio?.format);
  checkFormat(wish, a.op.audio, p.route.audio?.formatAt[0].join('.') ?? 'format');
  const bindings = { params: p.params, query: queryOf(ex.ctx.url), model: a.upstreamModel };
  const { path, body } = await buildCall(a.op, p.body, bindings, p.params);
  return { method: 'POST', path, body, accept: wish?.events || a.op.audio ? 'text/event-stream, */*' : '*/*' };
}

async function respond(ex: Exchange, p: Priced, sent: Sent): Promise<Bill> {
  const type = String(sent.response.headers['content-type'] ?? '');
  const usage = vendorUsage(sent.op) ?? unifiedUsage(ex.g.runtime, p.route.operation);
  const wish = audioWish(p.route.audio, p.body, sent.op.audio?.format);
  const a = type.includes('text/event-stream') ? await answerEvents(ex, p, sent, usage, wish)
    : type.includes('json') ? await answerJson(ex, p, sent, usage, wish)
      : await answerBytes(ex, sent, wish);
  return bill(ex, p, a);
}

/** Events: untouched (the client's own kind), or audio decoded into bytes or into the route's events. */
async function answerEvents(ex: Exchange, p: Priced, sent: Sent, paths: CompiledUsagePaths, wish: AudioWish | undefined): Promise<Answered> {
  const { ctx, res } = ex;
  const vendorAudio = sent.op.audio ?? (wish && !wish.events ? routeEventsAsVendor(p.route.audio!) : undefined);
  const out = wish && vendorAudio ? new AudioOut(vendorAudio, wish, p.route.audio!) : undefined;
  const events = !out || wish!.events;
  res.writeHead(200, {
    'content-type': events ? 'text/event-stream' : wish!.contentType, 'cache-control': 'no-cache', 'x-accel-buffering': 'no',
    'x-switchyard-added-ms': addedMs(ctx).toFixed(3),
  });
  res.socket?.setNoDelay(true);
  let usage: Usage | undefined;
  const end = await streamed(res, () => relaySse(sent.response, res, {
    maxEventBytes: p.route.limits.maxSseEventBytes, idleMs: sent.channel.timeouts.idle_ms, signal: ctx.abort.signal,
    onEvent: (ev) => {
      if (!out) {
        if (ev.data && mayCarryUsage(paths, ev.name, ev.data)) usage = readUsage(paths, parsed(ev.data), usage);
        return `${ev.raw}\n\n`;
      }
      const event = ev.data === undefined ? undefined : parsed(ev.data);
      if (event !== undefined && mayCarryUsage(paths, ev.name, ev.data!)) usage = readUsage(paths, event, usage);
      return event === undefined ? undefined : out.chunk(event);
    },
  }));
  const whole = end === 'eof';
  if (whole && out && wish!.events && p.route.audio!.done) res.write(`data: ${JSON.stringify(await p.route.audio!.done.run({}, { usage }))}\n\n`);
  finish(ex, end);
  return { usage, whole };
}

/** A JSON answer: as it is, or, from a vendor that puts its audio in its answer, that audio. */
async function answerJson(ex: Exchange, p: Priced, sent: Sent, paths: CompiledUsagePaths, wish: AudioWish | undefined): Promise<Answered> {
  const { raw, parsed: answer } = await readUpstreamJson(ex, sent, p.route.limits.maxResponseBytes, `limits.max_response_bytes of route ${p.route.id}`);
  const usage = readUsage(paths, answer);
  ex.ctx.outcome = 'done';
  if (!wish || !sent.op.audio) {
    const shaped = sent.op.response ? await sent.op.response.run(answer, { model: p.model, upstream_model: sent.upstreamModel, request: p.body }) : undefined;
    if (shaped === undefined) ex.res.writeHead(200, { 'content-type': 'application/json', 'x-switchyard-added-ms': addedMs(ex.ctx).toFixed(3) }).end(raw);
    else sendJson(ex.res, 200, shaped, { 'x-switchyard-added-ms': addedMs(ex.ctx).toFixed(3) });
    return { usage, whole: true };
  }
  const chunk = new AudioOut(sent.op.audio, wish, p.route.audio!).chunk(answer);
  ex.res.writeHead(200, { 'content-type': wish.events ? 'text/event-stream' : wish.contentType, 'x-switchyard-added-ms': addedMs(ex.ctx).toFixed(3) });
  if (chunk) ex.res.write(chunk);
  if (wish.events && p.route.audio!.done) ex.res.write(`data: ${JSON.stringify(await p.route.audio!.done.run({}, { usage }))}\n\n`);
  ex.res.end();
  return { usage, whole: true };
}

/** Bytes (audio, text, a subtitle file): piped as they come, the vendor's type kept. */
async function answerBytes(ex: Exchange, sent: Sent, wish: AudioWish | undefined): Promise<Answered> {
  const headers: Record<string, string> = { 'x-switchyard-added-ms': addedMs(ex.ctx).toFixed(3) };
  for (const h of ['content-type', 'content-length']) if (sent.response.headers[h]) headers[h] = String(sent.response.headers[h]);
  if (!headers['content-type'] && wish) headers['content-type'] = wish.contentType;
  ex.res.writeHead(200, headers);
  ex.ctx.outcome = await streamed(ex.res, () => relayBody(ex.ctx, sent.response, ex.res, sent.channel.timeouts.idle_ms));
  return { whole: ex.ctx.outcome === 'done' };
}

/** Counts the answer as an open stream while it runs. */
async function streamed<T>(res: Exchange['res'], run: () => Promise<T>): Promise<T> {
  streamsInFlight.inc();
  try { return await run(); } finally { streamsInFlight.dec(); }
}

/** Ends the client's answer: whole, or cut (its connection destroyed, so it never mistakes a part for the whole). */
function finish(ex: Exchange, end: RelayEnd): void {
  const { ctx, res } = ex;
  if (end === 'eof') { ctx.outcome = 'done'; res.end(); return; }
  ctx.outcome = end === 'client_gone' ? 'client_gone' : end === 'cut' ? 'cut' : 'upstream_cut';
  if (end !== 'client_gone') {
    ctx.logStatus = 502;
    ctx.errorCode = end === 'cut' ? 'shutting_down' : 'upstream_error';
  }
  res.destroy();
}

const parsed = (data: string): unknown => {
  try { return JSON.parse(data); } catch { return undefined; }
};

/**
 * The charge: an exact price is what was asked (the vendor bills a request it accepted, cut or not), or the seconds
 * the vendor says it billed; a token price is the usage it reported, else the prompt estimate (it did the work).
 */
function bill(ex: Exchange, p: Priced, a: Answered): Bill {
  const { ctx } = ex;
  if (!tokenPriced(p.chosen)) {
    if (a.usage?.seconds === undefined || !p.chosen.per_second) return p.amount;
    ctx.usage = a.usage;
    return a.usage;
  }
  if (a.usage) ctx.usage = a.usage;
  else {
    ctx.usageEstimated = true;
    ctx.usage = { prompt_tokens: p.promptTokens, completion_tokens: 0 };
  }
  return ctx.usage;
}

export const relay: ProxiedPolicy = { body: 'json', scope: 'request', retry: idempotentRetry, relayErrors: true, build, mapsFiles: true, respond };
