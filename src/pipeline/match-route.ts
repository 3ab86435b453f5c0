// Stage: the route for a method and path (the query is not part of the match). Where routes share a path, each for
// its own operation, the model the path names picks one here, before anything is refused: every refusal of the
// request, authentication's included, then comes in that one route's shape.
import { GatewayError } from '../http/errors.js';
import type { RouteMatch } from './route-table.js';
import type { CompiledRoute } from '../config/runtime.js';
import type { Exchange, Matched } from './exchange.js';

/** Throws not_found (404), method_not_allowed (405), or invalid_request (400) where a shared path's model cannot be read. */
export async function matchRoute(ex: Exchange): Promise<Matched> {
  const m = ex.g.routes.match(ex.ctx.method, pathOf(ex.ctx.url));
  ex.ctx.route = m.route;
  if (m.alternates) ex.ctx.route = await chooseByModel(ex, m);
  return { route: ex.ctx.route, params: m.params };
}

/**
 * The first route whose operation some channel serves the path's model on (their `model_expr` reads only $params
 * and $query); none: the first, which answers model_not_found as usual. The caller is not known yet, so the pick
 * does not depend on the token's group: one that cannot use the model hears so in the shape of the route it named.
 */
async function chooseByModel(ex: Exchange, m: RouteMatch): Promise<CompiledRoute> {
  const model = await modelOfPath(ex, m);
  if (!model) return m.route;
  return [m.route, ...m.alternates!].find((r) => ex.g.runtime.servesAnywhere(model, r.operation)) ?? m.route;
}

async function modelOfPath(ex: Exchange, m: RouteMatch): Promise<string | undefined> {
  if (m.route.model) return m.route.model;
  const found = await m.route.modelExpr?.run({}, { params: m.params, query: queryOf(ex.ctx.url) })
    .catch(() => { throw new GatewayError('invalid_request', 'The model cannot be determined from this path'); });
  return typeof found === 'string' ? found : undefined;
}

export const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

export function queryOf(url: string): Record<string, string> {
  const q = url.indexOf('?');
  return q === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(q + 1)));
}
