// Stage: the per-token request rate limit (the route's, else the group's), in fixed windows counted in the shared
// store when there is one (all instances together), else in this process.
import { GatewayError } from '../http/errors.js';
import type { RateLimit } from '../types/generated/routes.js';
import type { Caller, Exchange } from './exchange.js';

/** Throws too_many_requests (429) with Retry-After. */
export function rateLimit(ex: Exchange, c: Caller): Promise<void> {
  return ex.g.limiter.takeShared(c.token.id, c.route.limits.rateLimit ?? ex.g.runtime.groups.get(c.token.group)?.rate_limit);
}

export class RateLimiter {
  /** With a shared store the count is the store's (all instances together); otherwise this process's. */
  constructor(private readonly shared?: (key: string, windowMs: number) => Promise<number>) {}

  async takeShared(key: string, limit: RateLimit | undefined, now = Date.now()): Promise<void> {
    if (!limit) return;
    if (!this.shared) return this.take(key, limit, now);
    const spanMs = limit.window_s * 1000;
    const window = Math.floor(now / spanMs);
    const n = await this.shared(`${key}:${limit.requests}/${limit.window_s}:${window}`, spanMs);
    if (n > limit.requests) {
      const retry = Math.max(1, Math.ceil(((window + 1) * spanMs - now) / 1000));
      throw new GatewayError('too_many_requests', `Rate limit reached: ${limit.requests} requests per ${limit.window_s} s`, { headers: { 'retry-after': String(retry) } });
    }
  }

  private windows = new Map<string, { start: number; count: number }>();
  private lastSweep = Date.now();

  /** Throws too_many_requests (429) with Retry-After when the key has used its window. */
  take(key: string, limit: RateLimit | undefined, now = Date.now()): void {
    if (!limit) return;
    const spanMs = limit.window_s * 1000;
    this.sweep(now, spanMs);
    const id = `${key}\u0000${limit.requests}/${limit.window_s}`;
    let w = this.windows.get(id);
    if (!w || now - w.start >= spanMs) {
      w = { start: now, count: 0 };
      this.windows.set(id, w);
    }
    if (++w.count > limit.requests) {
      const retry = Math.max(1, Math.ceil((w.start + spanMs - now) / 1000));
      throw new GatewayError('too_many_requests', `Rate limit reached: ${limit.requests} requests per ${limit.window_s} s`, { headers: { 'retry-after': String(retry) } });
    }
  }

  // Drops finished windows now and then so idle tokens do not accumulate.
  private sweep(now: number, spanMs: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [k, w] of this.windows) if (now - w.start >= Math.max(spanMs, 60_000)) this.windows.delete(k);
  }
}
