// The quota ledger contract: reserve → settle | refund, each entry keyed so nothing is charged twice.
export interface LedgerEntry {
  entry: string; account: string; request: string; kind: string; amount: number; at: number;
  /** On a settle: usage beyond the reservation that was not charged (the charge is capped at the reservation). */
  uncharged?: number;
}

/**
 * `request`: the reservation lives and dies with this process's handling of one request, so a store may keep it
 * in memory and write it later (see held-quota.ts); if the process dies, a sweep refunds it. `durable`: it must
 * survive a restart (a task's), written at once; a task's own recovery decides its fate.
 */
export type ReserveScope = 'request' | 'durable';

/** A reservation not yet settled or refunded, and the gateway process (owner) that holds it. */
export interface OpenReservation { request: string; account: string; amount: number; owner: string; scope: ReserveScope; at: number }

/** What a settle moved: the charge (never above the reservation) and the usage beyond it that was not charged. */
export interface Settled { charged: number; uncharged: number }

export interface QuotaLedger {
  createAccount(account: string, initial: number): Promise<void>;
  balance(account: string): Promise<number | undefined>;
  /** Takes `amount` atomically; false when the balance cannot cover it. Repeating a request id is a no-op that returns true. */
  reserve(account: string, request: string, amount: number, scope?: ReserveScope): Promise<boolean>;
  /**
   * Turns the reservation into the final charge: `actual` clamped to [0, reserved], so no charge ever exceeds
   * its reservation; the rest of `actual` is recorded as `uncharged`. Once per request.
   */
  settle(account: string, request: string, reserved: number, actual: number): Promise<Settled>;
  /** Returns the whole reservation. Once per request, and never after a settle. */
  refund(account: string, request: string, reserved: number): Promise<void>;
  topup(account: string, amount: number, ref: string): Promise<void>;
  entries(account: string): Promise<LedgerEntry[]>;
  /** Owners holding reservations that are still open (whatever their scope). */
  openOwners(): Promise<string[]>;
  /** The open reservations of one owner (a process's id, see Store.instance). */
  openOf(owner: string): Promise<OpenReservation[]>;
  /** The open reservation of one request, if it has one. */
  reservationOf(request: string): Promise<OpenReservation | undefined>;
  /** Writes anything pending; called by the store's close. */
  close?(): Promise<void>;
}

/** The one rule every store applies on settle: a charge is a whole number in [0, reserved]. */
export function clampCharge(reserved: number, actual: number): Settled {
  const want = Math.max(0, Math.round(Number.isFinite(actual) ? actual : 0));
  const charged = Math.min(want, Math.max(0, Math.round(reserved)));
  return { charged, uncharged: want - charged };
}
