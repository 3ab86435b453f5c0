// The shared store's side of write-behind quota (held-quota.ts): the holds each gateway process spends from.
import type { LedgerEntry } from './quota-ledger.js';
import type { Batch } from './held-batch.js';

/** Where holds live; every call is one atomic step in the shared store. */
export interface HoldBackend {
  register(owner: string, now: number): void;
  /** Moves at least `need` (up to `want`, never more than half of what would remain) into the hold; 0 when the balance is short, undefined for no account. */
  grab(owner: string, account: string, need: number, want: number, now: number): number | undefined;
  release(owner: string, account: string, amount: number | 'all', now: number): void;
  /**
   * Writes a batch (held-batch.ts: a row per first level's close, a spend per budget level) and takes what its rows
   * charge off the holds (a hold it finds none of starts at 0: an unchecked level's), rows written before excepted, so
   * writing a batch again writes nothing twice; false when the owner was reclaimed meanwhile (nothing written).
   */
  commit(owner: string, batch: Batch, now: number): boolean;
  chargeLate(rows: LedgerEntry[]): void;
  reclaimDead(self: string, staleBefore: number, now: number): number;
  retire(owner: string, now: number): void;
  hasAccount(account: string): boolean;
  /** What every process holds of an account (a hold is below 0 when unchecked levels spent more than it took). */
  heldTotal(account: string): number;
  heldByOthers(account: string, owner: string): number;
  want(account: string, now: number): void;
  unwant(account: string): void;
  wanted(since: number): string[];
}
