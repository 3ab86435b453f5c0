// Policy `realtime`: a live session over WebSocket. The pipeline has matched the route, authenticated the caller (a
// key, or a client secret minted for a browser) and counted the request; here, in order: the model and whether the
// caller may use it, a slot among the token's open sessions (every instance counts), the first hold on its balance,
// the vendor's side dialled (failing over between channels), and only then the client's side accepted, so every
// refusal before it is a plain HTTP error. The session then runs (live-session.ts) until it ends, its money settled.
import { WebSocketServer, type WebSocket } from 'ws';
import type { Socket } from 'node:net';
import { GatewayError } from '../http/errors.js';
import { resolveModel } from '../pipeline/resolve-model.js';
import { choosePrice } from '../billing/choose-price.js';
import { reservationFor } from '../billing/price.js';
import type { ChosenPrice } from '../billing/price-rules.js';
import type { Model } from '../types/generated/channels.js';
import type { Caller, Exchange, Resolved } from '../pipeline/exchange.js';
import type { CompiledRealtime } from '../config/compile-realtime.js';
import { traced } from '../tracing/tracing.js';
import { SessionBilling } from './session-billing.js';
import { dialVendor } from './vendor-dial.js';
import { LiveSession } from './live-session.js';
import type { SessionEnd } from './session-end.js';
import { realtimeSessions } from '../metrics/metrics.js';

/** A session's slot among its token's: renewed while it lives, gone a minute after a crash. */
const leaseMs = 60_000;

/** Throws upgrade_required (426), model errors (400/403/404), too_many_requests (429), insufficient_user_quota (403), upstream errors. */
export async function openSession(ex: Exchange, c: Caller): Promise<void> {
  const rules = c.route.realtime!;
  if (!ex.upgrade) throw new GatewayError('upgrade_required');
  const body = c.grant?.model ? { model: c.grant.model } : {};
  const r = await traced(ex, 'resolve_model', () => resolveModel(ex, { ...c, body, raw: Buffer.alloc(0) }));
  const price = choosePrice(ex.g.runtime.prices.get(r.model)!, {});
  const slot = `rt:{${c.token.id}}`;
  if (!(await ex.g.store.leases.acquire(slot, ex.ctx.id, rules.maxSessionsPerToken, leaseMs))) {
    throw new GatewayError('too_many_requests', `This key has ${rules.maxSessionsPerToken} realtime sessions open; close one first`)
      .because(`routes.yaml realtime.max_sessions_per_token of route ${c.route.id}`);
  }
  const renew = setInterval(() => { void ex.g.store.leases.renew(slot, ex.ctx.id, leaseMs).catch(() => undefined); }, leaseMs / 3);
  try {
    await run(ex, r, rules, price);
  } finally {
    clearInterval(renew);
    await ex.g.store.leases.release(slot, ex.ctx.id).catch(() => undefined);
  }
}

async function run(ex: Exchange, r: Resolved, rules: CompiledRealtime, price: ChosenPrice): Promise<void> {
  const { ctx } = ex;
  const hold = holdFor(price, r.price, rules, ex.g.runtime.promptBytesPerToken);
  const billing = new SessionBilling(ex.g, r.token, ctx.id, { user: r.token.user, model: r.model, route: r.route.id }, hold);
  if (!(await traced(ex, 'reserve', () => billing.open()))) {
    throw new GatewayError('insufficient_user_quota', `${billing.refusal ?? 'Insufficient quota'} (a realtime session holds up to ${hold} units per response)`);
  }
  try {
    const vendor = await traced(ex, 'dispatch', () => dialVendor(ex, r, rules.maxFrameBytes));
    billing.onChannel(vendor.channel.id);
    ctx.responseModel = vendor.upstreamModel;
    const client = await accept(ex, rules).catch((err: unknown) => { vendor.ws.terminate(); throw err; });
    await sendSecretSettings(ex, r, vendor.ws);
    realtimeSessions.inc();
    const why = await new LiveSession(ex, client, vendor.ws, rules, billing, price).run().finally(() => realtimeSessions.dec());
    await billing.close();
    conclude(ex, why, billing);
  } catch (err) {
    await billing.close();
    ctx.charged = billing.charged;
    throw err;
  }
}

/**
 * What each response may cost, held before it starts: a new turn's prompt and the model's output limit, at their
 * dearest rates. The conversation before it is mostly read from the vendor's cache at a fraction of that; a response
 * that costs more than its hold is topped up from the balance when it is charged.
 */
function holdFor(price: ChosenPrice, model: Model, rules: CompiledRealtime, bytesPerToken: number): number {
  const inputs = { units: 1, choices: 1, clamped: [], completionTokens: undefined };
  return Math.max(1, reservationFor(price, model, inputs, rules.turnTokens * bytesPerToken, bytesPerToken).amount);
}

const servers = new Map<number, WebSocketServer>();

/** Hands the client's connection to the WebSocket server (the 101), choosing the subprotocol a browser offered. */
function accept(ex: Exchange, rules: CompiledRealtime): Promise<WebSocket> {
  const up = ex.upgrade!;
  if (up.socket.destroyed) return Promise.reject(new GatewayError('upstream_error', 'client closed the connection'));
  let wss = servers.get(rules.maxFrameBytes);
  if (!wss) {
    wss = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: rules.maxFrameBytes, handleProtocols: chooseProtocol });
    servers.set(rules.maxFrameBytes, wss);
  }
  (up.socket as Socket & { realtime?: CompiledRealtime }).realtime = rules;
  if (up.onClose) up.socket.off('close', up.onClose);
  ex.res.detachSocket(up.socket as Socket);
  return new Promise((resolve) => wss!.handleUpgrade(ex.req, up.socket, up.head, (ws) => resolve(ws)));
}

/** The route's subprotocol when offered, else another the client offered; never the one carrying a key. */
function chooseProtocol(offered: Set<string>, req: { socket: unknown }): string | false {
  const rules = (req.socket as { realtime?: CompiledRealtime }).realtime;
  if (rules?.subprotocol && offered.has(rules.subprotocol)) return rules.subprotocol;
  for (const p of offered) if (!rules?.keySubprotocol || !p.startsWith(rules.keySubprotocol)) return p;
  return false;
}

/** A session opened with a client secret starts with the settings the secret was minted with. */
async function sendSecretSettings(ex: Exchange, r: Resolved, vendor: WebSocket): Promise<void> {
  const session = r.grant?.session;
  if (!session) return;
  const rule = ex.g.runtime.routes.find((x) => x.clientSecret?.for.has(r.route.id))?.clientSecret;
  const event = rule?.update && await rule.update.run({}, { session });
  if (event !== undefined) vendor.send(JSON.stringify(event));
}

/** The session's record: what it used and was charged, and how it ended. */
function conclude(ex: Exchange, why: SessionEnd, billing: SessionBilling): void {
  const { ctx } = ex;
  ctx.usage = billing.usage;
  ctx.charged = billing.charged;
  ctx.reserved = billing.reserved;
  if (billing.uncharged) ctx.uncharged = billing.uncharged;
  ctx.charge = { total: billing.charged, lines: [...billing.lines.values()] };
  ctx.outcome = why === 'client_gone' ? 'done' : why;
  ex.res.statusCode = 101;
  if (why === 'upstream_closed') ctx.errorCode = 'upstream_error';
  else if (why !== 'client_gone') ctx.errorCode = why;
}
