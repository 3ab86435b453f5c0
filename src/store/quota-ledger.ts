// The quota ledger contract: reserve → settle | refund, each entry keyed so nothing is charged twice.
export interface LedgerEntry { entry: string; account: string; request: string; kind: string; amount: number; at: number }

/**
 * `request`: the reservation lives and dies with this process's handling of one request, so a store may keep it
 * in memory and write it later (see held-quota.ts). `durable`: it must survive a restart (a task's), written at once.
 */
export type ReserveScope = 'request' | 'durable';

export interface QuotaLedger {
  createAccount(account: string, initial: number): Promise<void>;
  balance(account: string): Promise<number | undefined>;
  /** Takes `amount` atomically; false when the balance cannot cover it. Repeating a request id is a no-op that returns true. */
  reserve(account: string, request: string, amount: number, scope?: ReserveScope): Promise<boolean>;
  /** Turns the reservation into the final charge `actual` (charging or returning the difference). Once per request. */
  settle(account: string, request: string, reserved: number, actual: number): Promise<void>;
  /** Returns the whole reservation. Once per request, and never after a settle. */
  refund(account: string, request: string, reserved: number): Promise<void>;
  topup(account: string, amount: number, ref: string): Promise<void>;
  entries(account: string): Promise<LedgerEntry[]>;
  /** Writes anything pending; called by the store's close. */
  close?(): Promise<void>;
}
