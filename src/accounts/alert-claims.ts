// Once-ness of a budget alert across every process and instance sharing the store: the first to claim (account,
// period, threshold) raises it, the others drop it. A claim is a lease of limit 1 (store/leases.ts): its acquire is
// atomic on every backend (an immediate transaction on SQLite, one script on Redis and on a Redis Cluster slot), so
// of instances racing for a claim exactly one wins. Its member is the winner's event id, so no two claimants ever
// hold the same member (a member already held would renew and win again). It is held until its period has ended
// plus a grace, then goes as any lease does: SQLite's retention pass prunes it, Redis expires the key.
import type { Leases } from '../store/leases.js';

const day = 86_400_000;
/** Past the period's end, for a request reserved before the boundary that settles after it. */
const graceMs = 7 * day;
/** A period whose end the caller did not give: the longest there is (a month). */
const unknownEndMs = 31 * day;
/** A level without periods (a wallet, a token's total cap): its alerts can come again after this long at most. */
const noPeriodMs = 90 * day;

export interface ClaimOf { account: string; period?: string; resetsAt?: string }

export const claimKey = (c: ClaimOf, threshold: number): string => `budget-alert:${c.account}|${c.period ?? '-'}|${threshold}`;

/** How long a claim is kept, from `now`. */
export function claimTtlMs(c: ClaimOf, now: number): number {
  if (c.period === undefined) return noPeriodMs;
  const end = c.resetsAt === undefined ? NaN : Date.parse(c.resetsAt);
  return (Number.isFinite(end) ? Math.max(0, end - now) : unknownEndMs) + graceMs;
}

/** True when this call is the first to claim the alert: `eventId` then names the one event raised for it. */
export function claimAlert(leases: Leases, c: ClaimOf, threshold: number, eventId: string, now: number): Promise<boolean> {
  return leases.acquire(claimKey(c, threshold), eventId, 1, claimTtlMs(c, now));
}
