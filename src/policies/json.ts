// Policy `json`: a synchronous call (JSON or multipart in, JSON out), mapped by the channel's transforms, billed
// per unit at its exact price, or, for a model priced by tokens (embeddings), by the usage the answer reports.
import { addedMs, answerModel } from '../pipeline/context.js';
import type { Usage } from '../transform/usage.js';
import { queryOf } from '../pipeline/match-route.js';
import { idempotentRetry, type Attempt, type Sent } from '../pipeline/dispatch.js';
import type { Exchange, Priced } from '../pipeline/exchange.js';
import { buildCall } from '../transform/build-call.js';
import type { ChannelCall } from '../transport/channel-target.js';
import { sendJson } from '../http/send-json.js';
import { tokenPriced } from '../billing/price.js';
import { readUsage } from '../transform/usage-paths.js';
import { unifiedUsage, vendorUsage } from '../config/usage-source.js';
import type { Bill } from '../pipeline/reservation.js';
import { readUpstreamJson } from './upstream-json.js';
import type { ProxiedPolicy } from '../pipeline/policy.js';

const bindings = (ex: Exchange, p: Priced, upstreamModel: string) => ({ params: p.params, query: queryOf(ex.ctx.url), model: upstreamModel });

async function build(ex: Exchange, p: Priced, a: Attempt): Promise<ChannelCall> {
  const { path, body } = await buildCall(a.op, p.body, bindings(ex, p, a.upstreamModel), p.params);
  return { method: 'POST', path, body };
}

async function respond(ex: Exchange, p: Priced, sent: Sent): Promise<Bill> {
  const { parsed } = await readUpstreamJson(ex, sent, p.route.limits.maxResponseBytes, `limits.max_response_bytes of route ${p.route.id}`);
  ex.ctx.responseModel = answerModel(parsed);
  const answer = sent.op.response
    ? await sent.op.response.run(parsed, { ...bindings(ex, p, sent.upstreamModel), model: p.model, upstream_model: sent.upstreamModel, request: p.body })
    : parsed;
  sendJson(ex.res, 200, answer, { 'x-switchyard-added-ms': addedMs(ex.ctx).toFixed(3) });
  const own = vendorUsage(sent.op);
  const paths = own ?? unifiedUsage(ex.g.runtime, p.route.operation);
  if (!tokenPriced(p.chosen)) return reportedUnits(ex, paths.units.length ? readUsage(paths, own ? parsed : answer) : undefined) ?? p.amount;
  return usageOf(ex, p, readUsage(paths, own ? parsed : answer));
}

/**
 * A price per unit is charged the units the vendor reports it billed (a rerank's search units), where its usage paths
 * name them; otherwise (or when the answer carries none) the exact price of the units asked, which was reserved.
 */
function reportedUnits(ex: Exchange, usage: Usage | undefined): Bill | undefined {
  if (usage?.units === undefined) return undefined;
  ex.ctx.usage = usage;
  return usage;
}

/**
 * The answer's usage (the settle caps its charge at the reservation); an upstream that reports none is billed the
 * prompt estimate the reservation was made from, since it did the work.
 */
function usageOf(ex: Exchange, p: Priced, usage: Usage | undefined): Bill {
  if (!usage) ex.ctx.usageEstimated = true;
  ex.ctx.usage = usage ?? { prompt_tokens: p.promptTokens, completion_tokens: 0 };
  return ex.ctx.usage;
}

export const json: ProxiedPolicy = { body: 'json', scope: 'request', retry: idempotentRetry, relayErrors: true, build, mapsFiles: true, respond };
