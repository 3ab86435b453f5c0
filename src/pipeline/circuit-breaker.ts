// Per-channel health. Two separate things:
// - a 429 (or a 503 with Retry-After) is the vendor's back-pressure, not a fault: that channel is skipped until the
//   time it named, and when no other channel is left the client gets the 429 (never a 503);
// - the circuit breaker opens on a failure *rate* (5xx, timeouts, connect errors, rejected credentials) over a
//   sliding window with a minimum number of requests, as Envoy's outlier detection and resilience4j do; after
//   `openMs` one probe is let through (half-open): a success closes it, a failure opens it again.
// Openings are written to the store and read back periodically, so every instance stops using a failing channel.
import type Keyv from 'keyv';
import type { BreakerSettings } from '../config/runtime.js';

const buckets = 10; // the window slides a tenth at a time

export interface BreakerView { breaker: 'closed' | 'open' | 'half_open'; open_until: string | null; throttled_until: string | null }

interface State {
  counts: { at: number; requests: number; failures: number }[];
  openUntil: number;
  probing: boolean;
  coolUntil: number;
}

export class CircuitBreakers {
  private readonly states = new Map<string, State>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly kv: Keyv, private settings: () => BreakerSettings) {}

  /** Whether the channel may take a request now; a half-open channel admits one probe at a time. */
  allow(channel: string, now = Date.now()): boolean {
    const s = this.states.get(channel);
    if (!s) return true;
    if (s.coolUntil > now) return false;
    if (s.openUntil <= 0) return true;
    if (now < s.openUntil || s.probing) return false;
    s.probing = true;
    return true;
  }

  success(channel: string, now = Date.now()): void {
    const s = this.states.get(channel);
    if (!s) return;
    if (s.openUntil > 0) { // the probe answered: closed, with a clean window
      this.states.set(channel, { ...fresh(), coolUntil: s.coolUntil });
      void this.kv.delete(channel).catch(() => undefined);
      return;
    }
    this.count(s, now, false);
  }

  failure(channel: string, now = Date.now()): void {
    const s = this.state(channel);
    s.probing = false;
    const { minRequests, failureRate, openMs } = this.settings();
    const { requests, failures } = this.count(s, now, true);
    if (s.openUntil > 0 || (requests >= minRequests && failures / requests >= failureRate)) {
      s.openUntil = now + openMs;
      void this.kv.set(channel, s.openUntil, Math.max(1000, openMs)).catch(() => undefined);
    }
  }

  /** The vendor asked to slow down: skip the channel until `retryAfterMs` from now (1 s when it did not say). */
  throttled(channel: string, retryAfterMs: number | undefined, now = Date.now()): void {
    const s = this.state(channel);
    s.probing = false;
    s.coolUntil = Math.max(s.coolUntil, now + (retryAfterMs ?? 1000));
  }

  /** When none of `channels` may be used only because some are throttled: the ms until the first is free again. */
  throttledFor(channels: string[], now = Date.now()): number | undefined {
    const waits = channels.map((c) => this.states.get(c)).filter((s): s is State => Boolean(s && s.coolUntil > now)).map((s) => s.coolUntil - now);
    return waits.length ? Math.min(...waits) : undefined;
  }

  /** Learns openings made by other instances. */
  startSync(channels: () => string[], everyMs = 2000): void {
    this.stopped = false;
    const pass = async () => {
      for (const id of channels()) {
        // A pass still running at a stop reads nothing more: the store closes next, and a read on a closed Redis
        // store reopens its connection, which then keeps the process alive.
        if (this.stopped) return;
        const until = await this.kv.get<number>(id).catch(() => undefined);
        const s = this.states.get(id);
        if (until && until > Date.now() && (!s || s.openUntil < until)) this.state(id).openUntil = until;
      }
    };
    this.timer = setInterval(() => void pass(), everyMs);
    this.timer.unref();
  }

  /** Forgets every breaker (operators after a fix; tests between cases). */
  async reset(): Promise<void> {
    const ids = [...this.states.keys()];
    this.states.clear();
    await Promise.all(ids.map((id) => this.kv.delete(id).catch(() => undefined)));
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** How a channel's breaker and back-pressure stand, for operators. */
  describe(channel: string, now = Date.now()): BreakerView {
    const s = this.states.get(channel);
    return {
      breaker: !s || s.openUntil <= 0 ? 'closed' : now < s.openUntil ? 'open' : 'half_open',
      open_until: s && s.openUntil > now ? new Date(s.openUntil).toISOString() : null,
      throttled_until: s && s.coolUntil > now ? new Date(s.coolUntil).toISOString() : null,
    };
  }

  openChannels(now = Date.now()): string[] {
    return [...this.states].filter(([, s]) => s.openUntil > now).map(([id]) => id);
  }

  private state(channel: string): State {
    let s = this.states.get(channel);
    if (!s) { s = fresh(); this.states.set(channel, s); }
    return s;
  }

  /** Adds one outcome to the current bucket and returns the totals over the window. */
  private count(s: State, now: number, failed: boolean): { requests: number; failures: number } {
    const span = this.settings().windowMs / buckets;
    const at = Math.floor(now / span) * span;
    let b = s.counts[s.counts.length - 1];
    if (!b || b.at !== at) { b = { at, requests: 0, failures: 0 }; s.counts.push(b); }
    b.requests++;
    if (failed) b.failures++;
    while (s.counts.length && s.counts[0].at <= now - this.settings().windowMs) s.counts.shift();
    return s.counts.reduce((t, c) => ({ requests: t.requests + c.requests, failures: t.failures + c.failures }), { requests: 0, failures: 0 });
  }
}

const fresh = (): State => ({ counts: [], openUntil: 0, probing: false, coolUntil: 0 });

/** Retry-After as milliseconds (seconds or an HTTP date), capped at 10 minutes. */
export function retryAfterMs(v: string | undefined, now = Date.now()): number | undefined {
  if (!v) return undefined;
  const secs = Number(v);
  const ms = Number.isFinite(secs) ? secs * 1000 : Date.parse(v) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, 600_000) : undefined;
}
