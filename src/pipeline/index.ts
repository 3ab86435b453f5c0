// The request pipeline: every stage a request goes through, in order, with the error each stage can answer.
// A newcomer reads a request's whole path here; each stage lives in its own file and returns a typed value the
// next stage builds on. Policies (src/policies/) supply only the last steps: how the vendor's request is built and
// how the answer is given. With tracing on, each stage that runs is a span (`traced`); off, `traced` only calls it.
import type { PolicyOf, ProxiedPolicy } from './policy.js';
import { reserve, settle, release } from './reservation.js';
import type { Caller, Exchange, Resolved } from './exchange.js';
import { matchRoute } from './match-route.js';
import { authenticate, authenticateAdmin } from './authenticate.js';
import { authenticateSession } from './authenticate-session.js';
import { rateLimit } from './rate-limit.js';
import { readRequest } from './read-request.js';
import { resolveModel } from './resolve-model.js';
import { recall } from './recall.js';
import { price } from './price.js';
import { checkUploads, sendsFiles } from './uploads.js';
import { dispatch, type Sent } from './dispatch.js';
import { relayUpstreamError } from './upstream-error.js';
import { traced } from '../tracing/tracing.js';
import { GatewayError } from '../http/errors.js';

/** `policyOf`: which policy answers a route (src/policies/index.ts). */
export async function serve(ex: Exchange, policyOf: PolicyOf): Promise<void> {
  const matched = await matchRoute(ex);                               // 404 not_found · 405 · a shared path: its model picks the route
  const p = policyOf(matched.route);
  if (ex.upgrade && p.kind !== 'session') throw new GatewayError('invalid_request', 'This route does not take a WebSocket upgrade');
  if (p.kind === 'open' && !matched.route.auth) return p.answer(ex, matched); // /healthz, /readyz, /metrics, /console, its sign-in
  if (p.kind === 'admin') {
    await traced(ex, 'authenticate', () => authenticateAdmin(ex, matched)); // 401 · 403 admin_key_required (a client token)
    return traced(ex, 'answer', () => p.answer(ex, matched));         // tokens, usage, tasks, channels, reload
  }
  if (p.kind === 'member') {
    const member = await traced(ex, 'authenticate', () => authenticateSession(ex, matched)); // 401 session_required · 403 csrf_refused
    return traced(ex, 'answer', () => p.answer(ex, member));          // a console user's own wallet, tokens, usage, log
  }
  const caller = await traced(ex, 'authenticate', () => authenticate(ex, matched)); // 401 invalid_api_key
  const limited = traced(ex, 'rate_limit', () => rateLimit(ex, caller, p.kind === 'proxied')); // 429 too_many_requests (requests; tokens on proxied routes)
  if (limited) await limited;                                         // (in memory, mostly: no wait)
  if (p.kind === 'open') return traced(ex, 'answer', () => p.answer(ex, matched));
  if (p.kind === 'local') return traced(ex, 'answer', () => p.answer(ex, caller)); // models, tasks, downloads, kept answers, token counts, billing
  if (p.kind === 'proxied') return proxy(ex, caller, p.policy);
  return p.open(ex, caller);                                          // a live WebSocket session: 426 without an upgrade (realtime/)
}

async function proxy(ex: Exchange, caller: Caller, policy: ProxiedPolicy): Promise<void> {
  const inbound = await traced(ex, 'read_request', () => readRequest(ex, caller, policy.body)); // 400 · 408 · 413 · 415 · 503 server_busy
  const resolved = await traced(ex, 'resolve_model', () => resolveModel(ex, inbound)); // 400 · 403 model_not_allowed · 404 model_not_found
  const recalled = continues(resolved) ? await traced(ex, 'recall', () => recall(ex, resolved)) : resolved; // 404 · 400: the kept conversation it continues
  const priced = traced(ex, 'price', () => price(ex, recalled));     // 400 invalid_request naming the price field
  const checked = policy.mapsFiles && sendsFiles(priced) ? await traced(ex, 'uploads', () => checkUploads(ex, priced)) : priced; // 400 naming a file no channel carries
  const hold = await traced(ex, 'reserve', () => reserve(ex, checked, policy.scope)); // 403 insufficient_user_quota · 429 (task slots)
  try {
    const sent = await traced(ex, 'dispatch', () => dispatch(ex, checked, hold, policy.build, policy.retry)); // 429 · 502 · 503 · 504, failover before the head
    if (policy.relayErrors && failed(sent)) await traced(ex, 'relay_error', () => relayUpstreamError(sent)); // the vendor's 4xx with its status; its 5xx as 502
    const bill = await traced(ex, 'respond', () => policy.respond(ex, priced, sent, hold)); // the answer: JSON, SSE, bytes or a task
    await traced(ex, 'settle', () => settle(ex, priced, hold, bill)); // charge ≤ reservation; a task settles when it ends
  } catch (err) {
    await traced(ex, 'release', () => release(ex, hold));             // refund (a submit cut by a stop: left to recovery)
    throw err;
  }
}

/** Whether the request names a kept conversation to continue (else `recall` has nothing to do, and no span). */
const continues = (r: Resolved) => {
  const field = r.route.store?.continues;
  return field !== undefined && r.body[field] !== undefined && r.body[field] !== null;
};

/** Only a vendor's error answer has anything to relay. */
const failed = (sent: Sent) => (sent.response.statusCode ?? 502) >= 400;
