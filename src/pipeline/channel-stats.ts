// Per-channel attempts, for operators (GET /admin/channels): the last few hundred of each channel in a ring (time to
// the answer's head, and whether it failed), so percentiles and error rates cost nothing on the request path and
// describe what the channel does now.
const size = 512;

interface Ring { ms: Float64Array; at: Float64Array; failed: Uint8Array; next: number; count: number }

export interface AttemptSummary {
  attempts: number; failures: number; error_rate: number | null;
  latency_ms: { p50: number | null; p90: number | null; p99: number | null };
}

export class ChannelStats {
  private readonly rings = new Map<string, Ring>();

  /** One attempt: its time to the answer's head (or to its failure), and whether it failed (5xx, timeout, network). */
  record(channel: string, ms: number, failed: boolean, now = Date.now()): void {
    let r = this.rings.get(channel);
    if (!r) { r = { ms: new Float64Array(size), at: new Float64Array(size), failed: new Uint8Array(size), next: 0, count: 0 }; this.rings.set(channel, r); }
    r.ms[r.next] = ms;
    r.at[r.next] = now;
    r.failed[r.next] = failed ? 1 : 0;
    r.next = (r.next + 1) % size;
    r.count = Math.min(size, r.count + 1);
  }

  /** The attempts within `windowMs`: how many, how many failed, and latency percentiles. */
  summary(channel: string, windowMs: number, now = Date.now()): AttemptSummary {
    const r = this.rings.get(channel);
    const recent: number[] = [];
    let failures = 0;
    for (let i = 0; r && i < r.count; i++) {
      if (now - r.at[i] > windowMs) continue;
      recent.push(r.ms[i]);
      failures += r.failed[i];
    }
    recent.sort((a, b) => a - b);
    const q = (p: number) => (recent.length ? Math.round(recent[Math.min(recent.length - 1, Math.floor(p * recent.length))] * 10) / 10 : null);
    return {
      attempts: recent.length, failures, error_rate: recent.length ? Math.round((failures / recent.length) * 1000) / 1000 : null,
      latency_ms: { p50: q(0.5), p90: q(0.9), p99: q(0.99) },
    };
  }
}
