// Policy `client_secret`: mints a short-lived secret of the caller's token for a browser (client-secrets.ts). Its
// lifetime is bounded, its model must be one the token may use on the routes the secret opens, and its session
// settings travel with it to every session it opens.
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { readJson } from '../pipeline/read-request.js';
import { checkAccess } from '../pipeline/model-access.js';
import { valueAt, wholeNumber } from '../http/body-numbers.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';
import type { CompiledClientSecret } from '../config/compile-realtime.js';

/** Throws invalid_request (400) naming the field, model_not_allowed (403), model_not_found (404). */
export async function mintSecret(ex: Exchange, c: Caller): Promise<void> {
  const rule = c.route.clientSecret!;
  const body = await readJson(ex, c.route);
  const ttl = lifetime(rule, body);
  const model = first(body, rule.modelAt, (v) => typeof v === 'string' && v.length > 0) as string | undefined;
  if (model) {
    ex.ctx.model = model;
    for (const id of rule.for) {
      const route = ex.g.runtime.routes.find((r) => r.id === id);
      if (route) checkAccess(ex.g, c.token, model, route.operation);
    }
  }
  const session = first(body, rule.sessionAt, (v) => Boolean(v) && typeof v === 'object' && !Array.isArray(v)) as Record<string, unknown> | undefined;
  const { value, grant } = await ex.g.secrets.mint(rule, c.token, ttl, model, session);
  const answer = await rule.answer.run({}, { value, expires_at: grant.expires_at, session: session ?? {} });
  sendJson(ex.res, 200, answer);
}

/** Seconds, from the first present field within the route's bounds, else its default. */
function lifetime(rule: CompiledClientSecret, body: Record<string, unknown>): number {
  for (const path of rule.ttlAt) {
    const v = valueAt(body, path);
    if (v === undefined || v === null) continue;
    const n = wholeNumber(v);
    if (n === undefined || n < rule.ttl.min || n > rule.ttl.max) {
      throw new GatewayError('invalid_request', `\`${path.join('.')}\` must be a whole number of seconds from ${rule.ttl.min} to ${rule.ttl.max} (got ${clip(JSON.stringify(v), 40)})`);
    }
    return n;
  }
  return rule.ttl.default;
}

function first(body: Record<string, unknown>, paths: string[][], ok: (v: unknown) => boolean): unknown {
  for (const path of paths) {
    const v = valueAt(body, path);
    if (v === undefined || v === null) continue;
    if (!ok(v)) throw new GatewayError('invalid_request', `\`${path.join('.')}\` has the wrong type`);
    return v;
  }
  return undefined;
}
