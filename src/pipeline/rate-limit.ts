// Stage: the per-token rate limits, counted in sliding windows in the store (every instance together; see
// rate-limiter.ts): requests per window (the route's `rate_limit`, else the group's) and, on routes that reach a
// vendor, tokens per minute (the token's `tokens_per_minute`, else the group's). Admitted requests carry OpenAI's
// `x-ratelimit-*` headers; refused ones get 429 with `Retry-After`.
import type { ServerResponse } from 'node:http';
import type { Gateway } from './gateway.js';
import type { TokenRecord } from '../store/token-store.js';
import type { Usage } from '../transform/usage.js';
import { duration, type RateState } from './rate-limiter.js';
import type { Caller, Exchange } from './exchange.js';

/** Throws too_many_requests (429) with Retry-After. `proxied`: the route reaches a vendor, so it spends tokens. */
export function rateLimit(ex: Exchange, c: Caller, proxied: boolean): void | Promise<void> {
  const tpm = proxied ? tokensPerMinute(ex.g, c.token) : undefined;
  if (tpm === undefined) return takeRequest(ex, c);
  const t = ex.g.limiter.checkTokens(tokenKey(c.token), tpm);
  if (t instanceof Promise) return t.then((s) => { setHeaders(ex.res, 'tokens', s); return takeRequest(ex, c); });
  setHeaders(ex.res, 'tokens', t);
  return takeRequest(ex, c);
}

function takeRequest(ex: Exchange, c: Caller): void | Promise<void> {
  const limit = c.route.limits.rateLimit ?? ex.g.runtime.groups.get(c.token.group)?.rate_limit;
  if (!limit) return;
  // The limit is in the key: a route with a limit of its own counts apart from the group's, and a changed limit starts afresh.
  const s = ex.g.limiter.take(`{${c.token.id}}:r:${limit.requests}/${limit.window_s}`, limit.requests, limit.window_s * 1000);
  if (s instanceof Promise) return s.then((v) => setHeaders(ex.res, 'requests', v));
  setHeaders(ex.res, 'requests', s);
}

const names = {
  requests: ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'],
  tokens: ['x-ratelimit-limit-tokens', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens'],
};

function setHeaders(res: ServerResponse, kind: 'requests' | 'tokens', s: RateState): void {
  const [limit, remaining, reset] = names[kind];
  res.setHeader(limit, s.limit);
  res.setHeader(remaining, Math.max(0, s.remaining));
  res.setHeader(reset, duration(s.resetMs));
}

/** A token's window of tokens, one per token whatever the limit: usage does not depend on it. */
const tokenKey = (token: TokenRecord) => `{${token.id}}:t`;

/** The token's own limit, else its group's. */
export function tokensPerMinute(g: Gateway, token: TokenRecord): number | undefined {
  return token.tokens_per_minute ?? g.runtime.groups.get(token.group)?.tokens_per_minute;
}

/** Counts what a settled request was billed toward its token's per-minute limit; in-flight requests count when they settle. */
export function countTokens(g: Gateway, token: TokenRecord, usage: Usage): void {
  const tpm = tokensPerMinute(g, token);
  if (tpm !== undefined) g.limiter.spendTokens(tokenKey(token), tpm, (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0));
}
