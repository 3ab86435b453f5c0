// Stage: the route for a method and path (the query is not part of the match).
import { GatewayError } from '../http/errors.js';
import type { Caller, Exchange, Matched } from './exchange.js';

/** Throws not_found (404) or method_not_allowed (405). */
export function matchRoute(ex: Exchange): Matched {
  const m = ex.g.routes.match(ex.ctx.method, pathOf(ex.ctx.url));
  ex.ctx.route = m.route;
  return m;
}

/**
 * Among routes sharing a method and path (each for its own operation), the first whose operation a channel of the
 * caller's group serves for the model the path names (their `model_expr` reads only $params and $query); none: the
 * first, which answers model_not_found as usual.
 */
export async function chooseByModel(ex: Exchange, c: Caller): Promise<Caller> {
  const all = [c.route, ...(c.alternates ?? [])];
  const model = await modelOfPath(ex, c);
  const route = (model && all.find((r) => ex.g.runtime.candidates(c.token.group, model, r.operation).length)) || c.route;
  ex.ctx.route = route;
  return { ...c, route, alternates: undefined };
}

async function modelOfPath(ex: Exchange, c: Caller): Promise<string | undefined> {
  if (c.route.model) return c.route.model;
  const m = await c.route.modelExpr?.run({}, { params: c.params, query: queryOf(ex.ctx.url) })
    .catch(() => { throw new GatewayError('invalid_request', 'The model cannot be determined from this path'); });
  return typeof m === 'string' ? m : undefined;
}

export const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

export function queryOf(url: string): Record<string, string> {
  const q = url.indexOf('?');
  return q === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(q + 1)));
}
