// Policy `json`: a synchronous call (JSON or multipart in, JSON out), mapped by the channel's transforms, billed per unit.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway.js';
import type { CompiledChannel, CompiledRoute } from '../config/runtime.js';
import { addedMs, type RequestContext } from '../pipeline/context.js';
import { GatewayError } from '../http/errors.js';
import { describeAjvErrors } from '../config/schema-registry.js';
import { readJsonBody } from './read-json-body.js';
import { pickModel, queryOf } from '../pipeline/pick-model.js';
import { readPriceInputs } from '../billing/price-inputs.js';
import { unitCharge } from '../billing/price.js';
import { resolveModel } from '../pipeline/model-access.js';
import { dispatch, upstreamClientError } from '../pipeline/dispatch.js';
import { withReservation } from '../billing/reservation.js';
import { readLimited, BodyTooLarge } from '../transport/read-limited.js';
import { encodeMultipart } from '../http/multipart.js';

export async function serveJson(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const route = ctx.route!;
  const { body } = await readJsonBody(g, ctx, req);
  const model = await pickModel(ctx, body);
  ctx.model = model;
  const price = resolveModel(g, ctx.token!, model, route.operation);
  const extra = g.runtime.modelSchemas.get(model);
  if (extra && !extra(body)) throw new GatewayError('invalid_request', describeAjvErrors(extra.errors));
  const amount = unitCharge(price, readPriceInputs(route.priceInputs, price, body));
  const bindings = { params: ctx.params, query: queryOf(ctx.url) };
  await withReservation(g, ctx, amount, async () => {
    const d = await dispatch(g, ctx, req, res, ctx.token!.group, model, route.operation,
      (ch, upstreamModel) => build(ch, route, body, { ...bindings, model: upstreamModel }));
    if ((d.response.statusCode ?? 500) >= 400) throw await upstreamClientError(d, route.operation);
    const t0 = performance.now();
    let parsed: unknown;
    try {
      parsed = JSON.parse((await readLimited(d.response, route.limits.maxResponseBytes, d.channel.timeouts.idle_ms)).toString('utf8'));
    } catch (err) {
      throw new GatewayError('bad_response_body', `Bad upstream response body: ${err instanceof BodyTooLarge ? err.message : 'not valid JSON'}`);
    }
    ctx.upstreamMs += performance.now() - t0;
    const op = d.channel.operations.get(route.operation)!;
    const answer = op.response ? await op.response.run(parsed, { ...bindings, model, upstream_model: d.upstreamModel, request: body }) : parsed;
    const text = JSON.stringify(answer ?? null);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-switchyard-added-ms': addedMs(ctx).toFixed(3) });
    res.end(text);
    return amount;
  });
}

async function build(ch: CompiledChannel, route: CompiledRoute, body: Record<string, unknown>, bindings: Record<string, unknown> & { model: string; query: Record<string, string> }) {
  const op = ch.operations.get(route.operation)!;
  const mapped = (op.request ? await op.request.run(body, bindings) : { ...body, model: bindings.model }) ?? {};
  const path = (op.pathExpr ? String(await op.pathExpr.run(body, bindings)) : op.path)
    .replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(name === 'model' ? bindings.model : String((bindings.params as Record<string, string>)[name] ?? '')));
  if (op.encoding === 'multipart') return { method: 'POST', path, body: encodeMultipart(mapped as Record<string, unknown>) };
  return { method: 'POST', path, body: Buffer.from(JSON.stringify(mapped)) };
}
