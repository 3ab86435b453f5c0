// Request and token rate limits counted in the store's sliding windows (src/store/rate-window.ts), so every process
// and instance counts together, without a store call per request. A process takes a few requests' worth of a
// window at a time (a lease: what it used in the last sub-window, doubling while requests keep coming, at most half
// of what is left) and admits from it in memory until the sub-window ends; what it did not use goes back then. What
// a lease holds counts as used, so no window ever admits more than its limit, whichever process serves the
// requests. Tokens are counted after the fact (when a request settles): each process adds what it billed and reads
// the window's count at most once a second.
import { GatewayError } from '../http/errors.js';
import { windowSpec, type RateWindows, type WindowOp, type WindowSpec } from '../store/rate-window.js';

/** A limit as the caller sees it (OpenAI's `x-ratelimit-limit-*`, `-remaining-*`, `-reset-*`). */
export interface RateState { limit: number; remaining: number; resetMs: number }

interface Lease {
  spec: WindowSpec;
  limit: number;
  /** The sub-window the lease was granted in (the store's index), and when it ends here. */
  bucket: number;
  until: number;
  /** Granted and not used yet; used in this sub-window; used in the one before. */
  left: number;
  used: number;
  lastUsed: number;
  /** The window's room beyond this lease at the last claim. */
  room: number;
  refusedUntil: number;
  retryAt: number;
  claim?: Promise<void>;
}

interface Meter { limit: number; total: number; pending: number; fetchedAt: number; retryAt: number; resetAt: number; refresh?: Promise<void> }

const tokenWindow = windowSpec(60_000);
/** How stale a process's view of a token window may be (others' usage); its own usage counts at once. */
const tokenViewMs = 1000;
/** How soon unused leases of ended sub-windows and billed tokens reach the store. */
const syncMs = 250;

export class RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly meters = new Map<string, Meter>();
  private timer?: NodeJS.Timeout;
  private syncing?: Promise<void>;

  constructor(private readonly windows: RateWindows) {}

  /** Admits one request under `limit` per `windowMs` for `key`, or throws too_many_requests (429) with Retry-After. */
  take(key: string, limit: number, windowMs: number): RateState | Promise<RateState> {
    const now = Date.now();
    const l = this.leases.get(key);
    if (l && now < l.until) {
      if (l.left > 0) return admit(l, now);
      if (now < l.refusedUntil) throw requestsRefused(l, now);
    }
    return this.takeSlow(key, limit, windowMs);
  }

  private async takeSlow(key: string, limit: number, windowMs: number): Promise<RateState> {
    for (;;) {
      let l = this.leases.get(key);
      if (!l) {
        l = { spec: windowSpec(windowMs), limit, bucket: 0, until: 0, left: 0, used: 0, lastUsed: 0, room: limit, refusedUntil: 0, retryAt: 0 };
        this.leases.set(key, l);
      }
      const now = Date.now();
      if (now < l.until && l.left > 0) return admit(l, now);
      if (now < l.until && now < l.refusedUntil) throw requestsRefused(l, now);
      const lease = l;
      await (lease.claim ??= this.refill(key, lease).finally(() => { lease.claim = undefined; }));
    }
  }

  private async refill(key: string, l: Lease): Promise<void> {
    const now = Date.now();
    const ended = now >= l.until;
    if (ended) { l.lastUsed = l.used; l.used = 0; }
    // Given back once: the lease forgets it before the call, so the background sync cannot give it again.
    const give = ended ? l.left : 0;
    l.left -= give;
    const want = Math.max(1, Math.min(ended ? l.lastUsed : l.used, Math.floor(l.room / 2)));
    const [r] = await this.windows.slide([{ key, spec: l.spec, give, giveBucket: l.bucket, add: 0, take: want, limit: l.limit }]);
    l.bucket = r.bucket;
    l.until = now + r.bucketLeftMs;
    l.left += r.granted;
    l.room = l.limit - r.total;
    l.retryAt = now + r.retryMs;
    l.refusedUntil = r.granted > 0 ? 0 : now + Math.min(r.retryMs, r.bucketLeftMs);
    if (r.granted > 0) this.schedule();
  }

  /** Refuses (429) once `key` has used `limit` tokens in the last minute; tokens count when spent (spendTokens). */
  checkTokens(key: string, limit: number): RateState | Promise<RateState> {
    const now = Date.now();
    const m = this.meters.get(key);
    // A refusal that rests on this process's unsent usage asks the store, for the true time to wait.
    if (m && m.limit === limit && now - m.fetchedAt < tokenViewMs && !(m.pending > 0 && m.total + m.pending >= limit)) return tokenState(m, now);
    return this.checkTokensSlow(key, limit);
  }

  private async checkTokensSlow(key: string, limit: number): Promise<RateState> {
    const m = this.meter(key, limit);
    await (m.refresh ?? this.refresh([key]));
    return tokenState(m, Date.now());
  }

  /** Counts `n` tokens a request of `key` was billed, toward the token limit `limit` per minute. */
  spendTokens(key: string, limit: number, n: number): void {
    if (!(n > 0)) return;
    this.meter(key, limit).pending += n;
    this.schedule();
  }

  private meter(key: string, limit: number): Meter {
    let m = this.meters.get(key);
    if (!m) this.meters.set(key, m = { limit, total: 0, pending: 0, fetchedAt: 0, retryAt: 0, resetAt: 0 });
    m.limit = limit;
    return m;
  }

  /**
   * Sends the meters' pending usage and reads their windows back. One refresh per meter at a time: usage sent is
   * taken off `pending` only when the store has it, so a second refresh meanwhile would send it twice.
   */
  private refresh(keys: string[]): Promise<void> {
    const now = Date.now();
    const meters = keys.map((k) => this.meters.get(k)!);
    const sent = meters.map((m) => m.pending);
    const ops: WindowOp[] = keys.map((key, i) => ({ key, spec: tokenWindow, give: 0, giveBucket: 0, add: sent[i], take: 0, limit: meters[i].limit }));
    const done = this.windows.slide(ops).then((results) => meters.forEach((m, i) => {
      const r = results[i];
      Object.assign(m, { pending: m.pending - sent[i], total: r.total, fetchedAt: now, retryAt: now + r.retryMs, resetAt: now + r.resetMs });
    })).finally(() => { for (const m of meters) if (m.refresh === done) m.refresh = undefined; });
    for (const m of meters) m.refresh = done;
    return done;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => { this.timer = undefined; void this.sync(); }, syncMs);
    this.timer.unref();
  }

  /** Gives back what leases of ended sub-windows did not use, and sends billed tokens; forgets idle entries. */
  async sync(): Promise<void> {
    if (this.syncing) return this.syncing;
    this.syncing = this.syncOnce().finally(() => { this.syncing = undefined; });
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    const now = Date.now();
    const gives: WindowOp[] = [];
    let waiting = false;
    for (const [key, l] of this.leases) {
      if (l.claim) { waiting = true; continue; }
      if (now < l.until) { waiting ||= l.left > 0; continue; }
      if (l.left > 0) gives.push({ key, spec: l.spec, give: l.left, giveBucket: l.bucket, add: 0, take: 0, limit: l.limit });
      l.left = 0;
      if (now > l.until + l.spec.bucketMs * l.spec.buckets) this.leases.delete(key);
    }
    const spent = [...this.meters].filter(([, m]) => m.pending > 0 && !m.refresh).map(([k]) => k);
    for (const [k, m] of this.meters) if (!m.pending && !m.refresh && now - m.fetchedAt > 60_000) this.meters.delete(k);
    try {
      await Promise.all([gives.length ? this.windows.slide(gives) : undefined, spent.length ? this.refresh(spent) : undefined]);
    } catch {
      // The store is unreachable: unused leases stay counted until their sub-window leaves the window (the safe
      // side), and billed tokens are sent with the next sync.
    }
    if (waiting || [...this.meters.values()].some((m) => m.pending > 0)) this.schedule();
  }

  /** At a stop: everything unused goes back, everything billed is sent. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const l of this.leases.values()) l.until = 0;
    await this.sync();
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function admit(l: Lease, now: number): RateState {
  l.left--;
  l.used++;
  return { limit: l.limit, remaining: l.room + l.left, resetMs: l.until - now + l.spec.bucketMs * l.spec.buckets };
}

function requestsRefused(l: Lease, now: number): GatewayError {
  const windowS = Math.round((l.spec.bucketMs * l.spec.buckets) / 1000);
  return refusal(`Rate limit reached: ${l.limit} requests per ${windowS} s`, 'requests', { limit: l.limit, remaining: 0, resetMs: l.retryAt - now }, l.retryAt - now);
}

function tokenState(m: Meter, now: number): RateState {
  const used = m.total + m.pending;
  const state = { limit: m.limit, remaining: Math.max(0, m.limit - used), resetMs: Math.max(0, m.resetAt - now) };
  if (used < m.limit) return state;
  throw refusal(`Token rate limit reached: ${m.limit} tokens per minute`, 'tokens', state, m.retryAt - now);
}

function refusal(message: string, kind: 'requests' | 'tokens', s: RateState, retryMs: number): GatewayError {
  return new GatewayError('too_many_requests', message, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryMs / 1000))), ...rateHeaders(kind, s) },
  });
}

/** OpenAI's rate-limit headers for `kind` (requests or tokens). */
export function rateHeaders(kind: 'requests' | 'tokens', s: RateState): Record<string, string> {
  return {
    [`x-ratelimit-limit-${kind}`]: String(s.limit),
    [`x-ratelimit-remaining-${kind}`]: String(Math.max(0, s.remaining)),
    [`x-ratelimit-reset-${kind}`]: duration(s.resetMs),
  };
}

/** A duration as OpenAI writes it: `20ms`, `1.5s`, `6m0s`. */
export function duration(ms: number): string {
  const t = Math.max(0, Math.ceil(ms));
  if (t < 1000) return `${t}ms`;
  const s = Math.round(t / 100) / 10;
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${Math.round((s % 60) * 10) / 10}s`;
}
