// Policy `passthrough`: the client's body goes to the channel unchanged and the answer streams back unchanged.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway.js';
import { addedMs, type RequestContext } from '../pipeline/context.js';
import { pickModel } from '../pipeline/pick-model.js';
import { readBody } from '../http/read-body.js';
import { resolveModel } from '../pipeline/model-access.js';
import { dispatch } from '../pipeline/dispatch.js';
import { withReservation } from '../billing/reservation.js';
import { relayBody } from '../transport/relay-body.js';

const passHeaders = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'retry-after'];

export async function servePassthrough(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const route = ctx.route!;
  const contentType = req.headers['content-type'];
  const raw = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req, g.bodyLimits(ctx, route.limits.maxBodyBytes));
  const model = await pickModel(ctx, route.model ? {} : jsonOrEmpty(raw));
  ctx.model = model;
  const price = resolveModel(g, ctx.token!, model, route.operation);
  const query = ctx.url.includes('?') ? ctx.url.slice(ctx.url.indexOf('?')) : '';
  await withReservation(g, ctx, Math.ceil(price.price.per_call ?? 0), async () => {
    const d = await dispatch(g, ctx, req, res, ctx.token!.group, model, route.operation, async (ch) => {
      const op = ch.operations.get(route.operation)!;
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(ctx.params[name] ?? ''));
      return { method: ctx.method, path: `${path}${query}`, body: raw, contentType, accept: String(req.headers.accept ?? '*/*'), via: 'proxy' as const };
    });
    const status = d.response.statusCode ?? 502;
    const headers: Record<string, string> = { 'x-switchyard-added-ms': addedMs(ctx).toFixed(3) };
    for (const h of passHeaders) if (d.response.headers[h]) headers[h] = String(d.response.headers[h]);
    res.writeHead(status, headers);
    ctx.outcome = await relayBody(ctx, d.response, res);
    // Only a call answered in full is billed; the answer itself is the vendor's, never rewritten.
    return status < 400 && ctx.outcome === 'done' ? { prompt_tokens: 0, completion_tokens: 0 } : undefined;
  });
}

/** The body as JSON when it is JSON (to find the model); the bytes forwarded are the original ones either way. */
function jsonOrEmpty(raw: Buffer | undefined): Record<string, unknown> {
  try {
    const v = raw?.length ? JSON.parse(raw.toString('utf8')) : {};
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}
