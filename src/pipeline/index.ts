// The request pipeline: every stage a request goes through, in order, with the error each stage can answer.
// A newcomer reads a request's whole path here; each stage lives in its own file and returns a typed value the
// next stage builds on. Policies (src/policies/) supply only the last steps: how the vendor's request is built and
// how the answer is given.
import { policyOf } from '../policies/index.js';
import type { ProxiedPolicy } from '../policies/policy.js';
import { reserve, settle, release } from '../billing/reservation.js';
import type { Caller, Exchange } from './exchange.js';
import { chooseByModel, matchRoute } from './match-route.js';
import { authenticate, authenticateAdmin } from './authenticate.js';
import { rateLimit } from './rate-limit.js';
import { readRequest } from './read-request.js';
import { resolveModel } from './resolve-model.js';
import { recall } from './recall.js';
import { price } from './price.js';
import { dispatch } from './dispatch.js';
import { relayUpstreamError } from './upstream-error.js';

export async function serve(ex: Exchange): Promise<void> {
  const matched = matchRoute(ex);                                     // 404 not_found · 405 method_not_allowed
  const p = policyOf(matched.route);
  if (p.kind === 'open' && !matched.route.auth) return p.answer(ex, matched); // /healthz, /readyz, /metrics, /console
  if (p.kind === 'admin') {
    await authenticateAdmin(ex, matched);                             // 401 · 403 admin_key_required (a client token)
    return p.answer(ex, matched);                                     // tokens, usage, tasks, channels, reload
  }
  if (matched.alternates) return serveChosen(ex, await chooseByModel(ex, await authenticate(ex, matched))); // one path, several operations
  const caller = await authenticate(ex, matched);                     // 401 invalid_api_key
  const limited = rateLimit(ex, caller, p.kind === 'proxied');        // 429 too_many_requests (requests; tokens on proxied routes)
  if (limited) await limited;                                         // (in memory, mostly: no wait)
  if (p.kind === 'open') return p.answer(ex, matched);
  if (p.kind === 'local') return p.answer(ex, caller);                // models, tasks, downloads, kept answers, token counts, billing
  return proxy(ex, caller, p.policy);
}

/** A route chosen among those sharing its path, by the model the path names: its own policy (proxied or local). */
async function serveChosen(ex: Exchange, caller: Caller): Promise<void> {
  const p = policyOf(caller.route);
  const limited = rateLimit(ex, caller, p.kind === 'proxied');
  if (limited) await limited;
  if (p.kind === 'proxied') return proxy(ex, caller, p.policy);
  if (p.kind === 'local') return p.answer(ex, caller);
  throw new Error(`route ${caller.route.id} shares its path but is not served per model`);
}

async function proxy(ex: Exchange, caller: Caller, policy: ProxiedPolicy): Promise<void> {
  const inbound = await readRequest(ex, caller, policy.body);         // 400 · 408 · 413 · 415 · 503 server_busy
  const resolved = await resolveModel(ex, inbound);                   // 400 · 403 model_not_allowed · 404 model_not_found
  const recalled = await recall(ex, resolved);                        // 404 · 400: the kept conversation it continues
  const priced = price(ex, recalled);                                 // 400 invalid_request naming the price field
  const hold = await reserve(ex, priced, policy.scope);               // 403 insufficient_user_quota · 429 (task slots)
  try {
    const sent = await dispatch(ex, priced, hold, policy.build, policy.retry); // 429 · 502 · 503 · 504, failover before the head
    if (policy.relayErrors) await relayUpstreamError(sent);           // the vendor's 4xx with its status; its 5xx as 502
    const bill = await policy.respond(ex, priced, sent, hold);        // the answer: JSON, SSE, bytes or a task
    await settle(ex, priced, hold, bill);                             // charge ≤ reservation; a task settles when it ends
  } catch (err) {
    await release(ex, hold);                                          // refund (a submit cut by a stop: left to recovery)
    throw err;
  }
}
