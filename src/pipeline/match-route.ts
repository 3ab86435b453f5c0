// Stage: the route for a method and path (the query is not part of the match).
import type { Exchange, Matched } from './exchange.js';

/** Throws not_found (404) or method_not_allowed (405). */
export function matchRoute(ex: Exchange): Matched {
  const { route, params } = ex.g.routes.match(ex.ctx.method, pathOf(ex.ctx.url));
  ex.ctx.route = route;
  return { route, params };
}

export const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

export function queryOf(url: string): Record<string, string> {
  const q = url.indexOf('?');
  return q === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(q + 1)));
}

