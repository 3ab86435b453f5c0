// Per-channel circuit breakers: consecutive failures open a channel for a while, then one probe decides.
// Openings are written to the store and read back periodically, so every instance stops using a failing channel.
import type Keyv from 'keyv';

export interface BreakerSettings { failures: number; openMs: number }
interface State { failures: number; openUntil: number; probing: boolean }

export class CircuitBreakers {
  private readonly states = new Map<string, State>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly kv: Keyv, private settings: () => BreakerSettings) {}

  /** Whether the channel may take a request now; a half-open channel admits one probe at a time. */
  allow(channel: string, now = Date.now()): boolean {
    const s = this.states.get(channel);
    if (!s || s.openUntil <= 0) return true;
    if (now < s.openUntil || s.probing) return false;
    s.probing = true;
    return true;
  }

  success(channel: string): void {
    const s = this.states.get(channel);
    if (!s) return;
    const wasOpen = s.openUntil > 0;
    this.states.delete(channel);
    if (wasOpen) void this.kv.delete(channel).catch(() => undefined);
  }

  /** `retryAfterMs`: the upstream said when to come back (429/503 Retry-After); that opens the channel at once. */
  failure(channel: string, retryAfterMs?: number, now = Date.now()): void {
    const s = this.states.get(channel) ?? { failures: 0, openUntil: 0, probing: false };
    s.failures++;
    s.probing = false;
    const { failures, openMs } = this.settings();
    if (retryAfterMs || s.failures >= failures || s.openUntil > 0) {
      s.openUntil = now + Math.max(retryAfterMs ?? 0, s.openUntil > 0 || s.failures >= failures ? openMs : 0);
      void this.kv.set(channel, s.openUntil, Math.max(1000, s.openUntil - now)).catch(() => undefined);
    }
    this.states.set(channel, s);
  }

  /** Learns openings made by other instances. */
  startSync(channels: () => string[], everyMs = 2000): void {
    const pass = async () => {
      for (const id of channels()) {
        const until = await this.kv.get<number>(id).catch(() => undefined);
        const s = this.states.get(id);
        if (until && until > Date.now() && (!s || s.openUntil < until)) this.states.set(id, { failures: s?.failures ?? 0, openUntil: until, probing: false });
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
    clearInterval(this.timer);
  }

  openChannels(now = Date.now()): string[] {
    return [...this.states].filter(([, s]) => s.openUntil > now).map(([id]) => id);
  }
}

/** Retry-After as milliseconds (seconds or an HTTP date), capped at 10 minutes. */
export function retryAfterMs(v: string | undefined, now = Date.now()): number | undefined {
  if (!v) return undefined;
  const secs = Number(v);
  const ms = Number.isFinite(secs) ? secs * 1000 : Date.parse(v) - now;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, 600_000) : undefined;
}
