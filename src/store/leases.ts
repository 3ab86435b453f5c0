// Leases: the live members of a key, counted across every instance sharing the store, so the gateway can cap
// concurrent things (e.g. open Realtime sessions per token, at most N at once across all instances). A member holds
// its lease until it releases it or the lease expires; a holder that crashes simply stops renewing, so its slot comes
// back ttlMs later at most. Holders renew every ttl/3, so a missed renewal or two (a slow store, a GC pause) costs
// nothing. Time is the store's clock: the Redis server's TIME inside the scripts (redis-leases.ts), so instances
// with skewed clocks agree; Date.now() on SQLite, whose sharers are processes of one host (sqlite-leases.ts).

export interface Leases {
  /**
   * Adds `member` under `key` for `ttlMs` unless `limit` live members are already there; answers whether it holds
   * the lease now. A member whose lease has expired is not live: it is removed first and counts for nothing.
   * Atomic: of instances racing for the last slot, exactly one wins. Acquiring a member already held (and live)
   * renews it (its expiry becomes now + ttlMs) and answers true, whatever the limit.
   */
  acquire(key: string, member: string, limit: number, ttlMs: number): Promise<boolean>;
  /**
   * Extends a live lease: its expiry becomes now + ttlMs. False when it had already expired or was released
   * (or never held): the caller lost its slot and must stop what the lease covered, or acquire again.
   */
  renew(key: string, member: string, ttlMs: number): Promise<boolean>;
  /** Removes the lease (nothing when it is not held), freeing its slot at once. */
  release(key: string, member: string): Promise<void>;
  /** The live members under `key` now. */
  count(key: string): Promise<number>;
  /**
   * Deletes leases that expired under keys nobody touched again (acquire clears its own key's), a bounded batch a
   * call; `more` when it stopped at its bound. For the retention pass; absent where keys expire by themselves (Redis).
   */
  prune?(now: number): Promise<{ dropped: number; more: boolean }>;
}

/** Checks a lease's limit and ttl; answers the ttl in whole ms (rounded up), as the stores keep expiries in ms. */
export function leaseTtl(ttlMs: number, limit = 0): number {
  if (!(Number.isFinite(ttlMs) && ttlMs > 0)) throw new RangeError(`lease ttlMs must be a number above 0 (got ${ttlMs})`);
  if (!(Number.isInteger(limit) && limit >= 0)) throw new RangeError(`lease limit must be a whole number, 0 or more (got ${limit})`);
  return Math.ceil(ttlMs);
}
