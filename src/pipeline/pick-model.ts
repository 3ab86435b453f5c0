// Which model a request names: the route's fixed model, its expression over the body, or `body.model`.
import type { RequestContext } from './context.js';
import { GatewayError } from '../http/errors.js';

export async function pickModel(ctx: RequestContext, body: Record<string, unknown>): Promise<string> {
  const route = ctx.route!;
  const m = route.model ?? (route.modelExpr
    ? await route.modelExpr.run(body, { params: ctx.params, query: queryOf(ctx.url) }).catch(() => {
      throw new GatewayError('invalid_request', 'The model cannot be determined from this request (check the types of its fields)');
    })
    : body.model);
  if (typeof m !== 'string' || !m) throw new GatewayError('invalid_request', '`model` is required');
  return m;
}

export function queryOf(url: string): Record<string, string> {
  const q = url.indexOf('?');
  return q === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(q + 1)));
}

