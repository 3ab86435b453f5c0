// A sliding window counted in sub-windows: the count of the last `buckets` + 1 sub-windows (the current one included)
// is what the key has used. Those cover at least the whole window behind every moment, so whatever a client does,
// no span of the window's length holds more than its limit; the cost is that a sub-window's count leaves only
// when all of it is older than the window (a client sending steadily at exactly the limit may wait up to one
// sub-window). This is the one definition: SQLite runs it, the Redis script (redis-rate.ts) mirrors it line by line.

/** The window of one limit: `buckets` sub-windows of `bucketMs` each (the window is their product). */
export interface WindowSpec { bucketMs: number; buckets: number }

/** What one call does to a key's window, in this order: give back, add, then take up to `take` within `limit`. */
export interface WindowOp {
  key: string;
  spec: WindowSpec;
  /** Units returned to the sub-window `giveBucket` (a lease's unused part); ignored once that sub-window has left. */
  give: number;
  giveBucket: number;
  /** Units counted whatever the limit (usage reported after the fact, e.g. tokens). */
  add: number;
  /** Units wanted now; granted as far as `limit` allows. */
  take: number;
  limit: number;
}

export interface WindowResult {
  granted: number;
  /** The count after the call. */
  total: number;
  /** The current sub-window's index (in the store's clock) and how long it still lasts. */
  bucket: number;
  bucketLeftMs: number;
  /** When the count is at or over `limit`: how long until enough has left for one more unit; else 0. */
  retryMs: number;
  /** How long until everything counted has left (OpenAI's `x-ratelimit-reset-*`); 0 when nothing is counted. */
  resetMs: number;
}

/** The stored state: the newest sub-window's index, the count, and one slot per sub-window (index mod slots). */
export interface Ring { latest: number; total: number; slots: number[] }

/** The sub-windows per window: twenty per window, so the wait a window can add is a twentieth of it. */
export const subWindows = 20;

export function windowSpec(windowMs: number): WindowSpec {
  return { bucketMs: Math.max(1, Math.ceil(windowMs / subWindows)), buckets: subWindows };
}

/** Applies `op` at `now` (ms) to `ring` (undefined: nothing counted yet); changes and returns the ring. */
export function slideWindow(ring: Ring | undefined, op: WindowOp, now: number): { ring: Ring; result: WindowResult } {
  const { bucketMs, buckets } = op.spec;
  const size = buckets + 1;
  let c = Math.floor(now / bucketMs);
  let r = ring;
  if (!r || r.slots.length !== size || c - r.latest > buckets) r = { latest: c, total: 0, slots: new Array<number>(size).fill(0) };
  else if (c > r.latest) {
    for (let i = r.latest + 1; i <= c; i++) { r.total -= r.slots[i % size]; r.slots[i % size] = 0; }
    r.latest = c;
  } else c = r.latest; // a clock behind the newest sub-window counts in it
  if (op.give > 0 && op.giveBucket <= c && op.giveBucket >= c - buckets) {
    const d = Math.min(op.give, r.slots[op.giveBucket % size]);
    r.slots[op.giveBucket % size] -= d;
    r.total -= d;
  }
  r.slots[c % size] += op.add;
  r.total += op.add;
  const granted = Math.max(0, Math.min(op.take, op.limit - r.total));
  r.slots[c % size] += granted;
  r.total += granted;
  return { ring: r, result: { granted, total: r.total, bucket: c, bucketLeftMs: (c + 1) * bucketMs - now, retryMs: retryMs(r, op, c, now), resetMs: resetMs(r, op.spec, c, now) } };
}

/** Sub-window j leaves the count when sub-window j + buckets + 1 begins. */
function retryMs(r: Ring, op: WindowOp, c: number, now: number): number {
  if (r.total < op.limit) return 0;
  const { bucketMs, buckets } = op.spec;
  let left = r.total;
  for (let j = c - buckets; j <= c; j++) {
    left -= r.slots[j % (buckets + 1)];
    if (left < op.limit) return (j + buckets + 1) * bucketMs - now;
  }
  return (c + buckets + 1) * bucketMs - now;
}

function resetMs(r: Ring, spec: WindowSpec, c: number, now: number): number {
  for (let j = c; j >= c - spec.buckets; j--) if (r.slots[j % (spec.buckets + 1)] > 0) return (j + spec.buckets + 1) * spec.bucketMs - now;
  return 0;
}

/** When a ring untouched since `latest` has emptied entirely, so its row or key may go. */
export const ringExpiresAt = (latest: number, spec: WindowSpec) => (latest + spec.buckets + 1) * spec.bucketMs;

/** Where a store keeps windows: each op applied atomically on its own key, all in one round trip where it can. */
export interface RateWindows {
  /** `at`: the time to count at (tests); by default the store's clock (the server's, on Redis). */
  slide(ops: WindowOp[], at?: number): Promise<WindowResult[]>;
}
