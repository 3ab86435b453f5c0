// The body one chat attempt sends. When the vendor speaks the client's dialect the client's bytes go untouched (or
// with the model renamed); otherwise the request is translated into the unified format (once per request) and from
// it into the vendor's dialect or through the channel's own request transform.
import { randomUUID } from 'node:crypto';
import type { Attempt } from '../pipeline/dispatch.js';
import type { Exchange, Priced } from '../pipeline/exchange.js';
import { maxOutputTokens } from '../billing/price-inputs.js';
import { takeDropped } from './dropped.js';

type Body = Record<string, unknown>;

export async function vendorBody(ex: Exchange, p: Priced, a: Attempt, stream: boolean): Promise<Buffer> {
  const vendor = a.op.dialect?.vendor;
  if (p.route.dialect === a.op.dialect && !a.op.request) return nativeBody(p, a, stream);
  const unified = await unifiedRequest(ex, p);
  const bindings = { model: a.upstreamModel, stream };
  // A vendor that requires a completion limit gets the one billing reserved for when the request names none.
  if (vendor) return json(takeDropped(ex.ctx, asBody(await vendor.request.run(unified, { ...bindings, max_output_tokens: reservedCompletion(p) }))));
  if (a.op.request) return json(await a.op.request.run(unified, bindings));
  return json(withUsageAsked({ ...unified, model: a.upstreamModel }, stream));
}

/** The client's own bytes: renamed model, and for unified streams, usage asked for (it is what gets billed). */
function nativeBody(p: Priced, a: Attempt, stream: boolean): Buffer {
  const askUsage = !p.route.dialect && stream && !clientWantsUsage(p.body);
  if (a.upstreamModel === p.model && !askUsage) return p.raw;
  const out = { ...p.body, model: a.upstreamModel };
  return json(askUsage ? withUsageAsked(out, true) : out);
}

/** The completion limit the reservation covers: the request's own (the route's price inputs), else the model's. */
const reservedCompletion = (p: Priced) => p.inputs.completionTokens ?? maxOutputTokens(p.price);

function withUsageAsked(body: Body, stream: boolean): Body {
  if (!stream) return body;
  return { ...body, stream: true, stream_options: { ...(body.stream_options as object | null), include_usage: true } };
}

export const clientWantsUsage = (body: Body) => (body.stream_options as { include_usage?: boolean } | null)?.include_usage === true;

const translated = new WeakMap<Priced, Promise<Body>>();

/** The client's request in the unified format: its own body, or its dialect's translation (made once per request). */
export function unifiedRequest(ex: Exchange, p: Priced): Promise<Body> {
  const client = p.route.dialect?.client;
  if (!client) return Promise.resolve(p.body);
  let t = translated.get(p);
  if (!t) {
    const store = p.route.store;
    const recall = (id: unknown) => (store && typeof id === 'string' ? ex.g.conversations.item(store.namespace, p.token.user, id) : undefined);
    t = client.request.run(p.body, { model: p.model, previous: p.previous?.items ?? [], recall }).then((v) => takeDropped(ex.ctx, asBody(v)));
    translated.set(p, t);
  }
  return t;
}

function asBody(v: unknown): Body {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('the translation is not an object');
  return v as Body;
}

/** What a dialect's answer transforms may read besides the answer: the client's request, a fresh id, the time. */
export function answerBindings(p: Priced): Record<string, unknown> {
  return { request: p.body, model: p.model, id: answerId(), created: Math.floor(Date.now() / 1000) };
}

const json = (v: unknown) => Buffer.from(JSON.stringify(v));

/**
 * 24 hex digits (92 random bits) for a translated answer's ids: randomUUID draws from a cached pool, ten times cheaper
 * than randomBytes, which asks OpenSSL on every stream.
 */
const answerId = () => randomUUID().replaceAll('-', '').slice(0, 24);
