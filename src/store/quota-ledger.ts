// The quota ledger contract: reserve → settle | refund, each entry keyed so nothing is charged twice, and each
// tagged with what it was for (user, model, route, channel, usage), so spending can be reported without guessing.
import type { UsageQuery, UsageRow, UsageTotals } from './usage.js';

export { usageClasses, tagNames, tagsOf, type EntryTags, type UsageClass, type CloseTags, type LedgerEntry } from './ledger-entry.js';
import type { CloseTags, EntryTags, LedgerEntry } from './ledger-entry.js';

/**
 * `request`: the reservation lives and dies with this process's handling of one request, so a store may keep it
 * in memory and write it later (see held-quota.ts); if the process dies, a sweep refunds it. `durable`: it must
 * survive a restart (a task's), written at once; a task's own recovery decides its fate.
 */
export type ReserveScope = 'request' | 'durable';

/** A reservation not yet settled or refunded, and the gateway process (owner) that holds it. */
export interface OpenReservation {
  request: string; account: string; amount: number; owner: string; scope: ReserveScope; at: number;
  user?: string | null; model?: string | null; route?: string | null; units?: number | null;
}

/**
 * One level of a reservation: an account the request's money is taken from. A request of a user's token reserves on
 * several at once (the token's own account, its cap for the period, the user's wallet, the member's cap and the team's
 * budget for the period: src/accounts/levels.ts), all or nothing. Each level keeps its own entries under its own
 * request id, so settle, refund, recovery and idempotency work per level exactly as for a lone account.
 */
export interface Level {
  account: string;
  /** This level's request id: the reservation's own on the first level, `<id>><account>` on the others (levelRequest). */
  request: string;
  /** Never refuses: the level records what was spent (its balance may go below 0) but does not bound it (unlimited). */
  unchecked?: boolean;
}

/** The request id a level's entries are kept under: the reservation's own for its first level. */
export const levelRequest = (request: string, account: string, first: boolean) => (first ? request : `${request}>${account}`);

export { isBudgetLevel } from './budget-level.js';

/** What a settle moved: the charge (never above the reservation) and the usage beyond it that was not charged. */
export interface Settled { charged: number; uncharged: number }

/** How long a closed request's idempotency markers live on Redis (ms), by its reservation's scope, and a topup's. */
export interface MarkerTtls { request: number; durable: number; topup: number }

/**
 * How long a store keeps what requests leave behind. The full history of requests is the request log's
 * (src/request-log/); the ledger keeps only what money moves need, and reports' rollups.
 */
export interface Retention {
  /** Redis: a closed request's markers answer a repeated close or reserve this long, then expire. */
  markerTtlMs: MarkerTtls;
  /** Days an hourly or daily usage cell is kept after its period ends: how far back reports reach. */
  usageDays: number;
  /** SQLite: days a closed request's ledger rows are kept after its close. */
  ledgerDays: number;
}

export const defaultRetention: Retention = {
  markerTtlMs: { request: 15 * 60_000, durable: 2 * 86_400_000, topup: 7 * 86_400_000 },
  usageDays: 400,
  ledgerDays: 30,
};

/** What one prune call removed: entries (rows, or index members on Redis) and usage cells; `more`: it stopped at its bound with more to do. */
export interface Pruned { entries: number; cells: number; more: boolean }

export interface QuotaLedger {
  createAccount(account: string, initial: number): Promise<void>;
  balance(account: string): Promise<number | undefined>;
  /**
   * What the account's own row holds, leaving out the slices processes hold of it (write-behind holds, which come back
   * when released): what may be moved out of it without touching money reserved or spent elsewhere. Absent: `balance`.
   */
  storedBalance?(account: string): Promise<number | undefined>;
  /** Takes `amount` atomically; false when the balance cannot cover it. Repeating a request id is a no-op that returns true. */
  reserve(account: string, request: string, amount: number, scope?: ReserveScope, tags?: EntryTags): Promise<boolean>;
  /**
   * Takes `amount` from every level at once, all or nothing, none ever below 0 unless `unchecked`: -1 when taken (or
   * taken before: a repeat is a no-op), else the index of the first level that cannot cover it (nothing was taken).
   * One SQLite transaction; on Redis one script (one per hash-tag slot on a cluster, with refunds of the slots taken
   * before a refusal). `tags` go on every level's reserve entry. settleLevels or refundLevels then close it.
   */
  reserveLevels(levels: Level[], amount: number, scope?: ReserveScope, tags?: EntryTags): Promise<number>;
  /**
   * Turns the reservation into the final charge: `actual` clamped to [0, reserved], so no charge ever exceeds
   * its reservation; the rest of `actual` is recorded as `uncharged`. Once per request. The close entry carries the
   * reservation's tags and `tags`.
   */
  settle(account: string, request: string, reserved: number, actual: number, tags?: CloseTags): Promise<Settled>;
  /** Returns the whole reservation. Once per request, and never after a settle. */
  refund(account: string, request: string, reserved: number, tags?: CloseTags): Promise<void>;
  /**
   * Settles every level of a reservation as settle would each under its own request id, at once: one SQLite
   * transaction, on Redis one script (one per hash-tag slot on a cluster). Each level's charge is clamped to its own
   * open reservation; a level closed before is left as it is. The usage rollup comes from the levels that are no budget
   * level (the first: the token's). Answers the first level's Settled.
   */
  settleLevels(levels: readonly Level[], reserved: number, actual: number, tags?: CloseTags): Promise<Settled>;
  /** Refunds every level of a reservation as refund would each, at once (as settleLevels). */
  refundLevels(levels: readonly Level[], reserved: number, tags?: CloseTags): Promise<void>;
  /**
   * `tags.route` says where the money came from (the CLI, the admin API). False: `ref` was topped up before (nothing
   * moved). A negative amount takes money out without a check (the other half of a transfer, a budget lowered).
   */
  topup(account: string, amount: number, ref: string, tags?: EntryTags): Promise<boolean>;
  /**
   * The entries the store still holds, in the order written (by `at`): on Redis those whose markers have not expired,
   * on SQLite those not pruned; within retention, every entry. The full history is the request log's.
   */
  entries(account: string): Promise<LedgerEntry[]>;
  /** Closed requests summed by the query's grouping (kept per hour, so `from` and `to` count by whole hours). */
  usage(q: UsageQuery): Promise<UsageRow[]>;
  /** An account's usage since it was created (what it has spent, for balance displays). */
  totals(account: string): Promise<UsageTotals>;
  /** Owners holding reservations that are still open (whatever their scope). */
  openOwners(): Promise<string[]>;
  /** The open reservations of one owner (a process's id, see Store.instance). */
  openOf(owner: string): Promise<OpenReservation[]>;
  /** The open reservation of one request, if it has one. */
  reservationOf(request: string): Promise<OpenReservation | undefined>;
  /**
   * Removes what is past retention (see Retention) and no expiry removes by itself; open reservations, topups and the
   * all-time totals stay. Bounded work per call: a retention job calls it hourly, and again soon while `more`.
   */
  prune(now: number): Promise<Pruned>;
  /** Writes anything pending; called by the store's close. */
  close?(): Promise<void>;
}

/** settleLevels level by level, for a store with no way to do better. */
export async function settleEach(q: QuotaLedger, levels: readonly Level[], reserved: number, actual: number, tags?: CloseTags): Promise<Settled> {
  const all = await Promise.all(levels.map((l) => q.settle(l.account, l.request, reserved, actual, tags)));
  return all[0] ?? { charged: 0, uncharged: 0 };
}

export async function refundEach(q: QuotaLedger, levels: readonly Level[], reserved: number, tags?: CloseTags): Promise<void> {
  await Promise.all(levels.map((l) => q.refund(l.account, l.request, reserved, tags)));
}

/** The one rule every store applies on settle: a charge is a whole number in [0, reserved]. */
export function clampCharge(reserved: number, actual: number): Settled {
  const want = Math.max(0, Math.round(Number.isFinite(actual) ? actual : 0));
  const charged = Math.min(want, Math.max(0, Math.round(reserved)));
  return { charged, uncharged: want - charged };
}

/** A close entry's tags: who and what from the reservation, the rest from the close; usage only where something was charged. */
export function closeTags(r: Pick<OpenReservation, 'user' | 'model' | 'route' | 'units'>, t: CloseTags | undefined, charged: number): EntryTags {
  const used = charged > 0 || Boolean(t?.prompt_tokens || t?.completion_tokens);
  // One literal of one shape, every request: a flush builds thousands of these.
  return {
    user: r.user, model: r.model, route: r.route, channel: t?.channel,
    prompt_tokens: used ? t?.prompt_tokens : undefined, completion_tokens: used ? t?.completion_tokens : undefined,
    units: charged > 0 ? t?.units ?? r.units : undefined,
    cached_tokens: used ? t?.cached_tokens : undefined, cache_write_tokens: used ? t?.cache_write_tokens : undefined,
    reasoning_tokens: used ? t?.reasoning_tokens : undefined, audio_tokens: used ? t?.audio_tokens : undefined,
    image_tokens: used ? t?.image_tokens : undefined, vendor_charged: used ? t?.vendor_charged : undefined,
  };
}
