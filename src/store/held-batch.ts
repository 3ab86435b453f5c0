// What a write-behind flush (held-quota.ts) writes, gathered between two flushes. A request's first level, its token's
// account, keeps a row of its own: the close, carrying its usage and its reservation (held-rows.ts), which reports and
// the request log agree with. Its budget levels (isBudgetLevel: a wallet, caps, a team's budget) add nothing to usage,
// so each keeps only what was taken from it: one `spend` row per budget level and flush, the charges of the requests
// closed on it summed, with their count. A request of a user in a team writes one row, not four, whatever its levels.
//
// A batch's spend rows are keyed `spend:<owner>:<epoch>.<n>><account>`, and a batch whose write failed is written
// again as it was, under the same key, before anything closed after it: whatever became of the failed write, each spend
// is written once.
import { isBudgetLevel, type CloseTags, type LedgerEntry, type Settled } from './quota-ledger.js';
import { closedOf, lateRow, type Closed } from './held-rows.js';
import type { Open } from './held-levels.js';

/** What the requests closed on one budget level since the last flush were charged, the usage beyond it, how many, and when the last closed. */
export interface Spend { charged: number; uncharged: number; requests: number; at: number }

/** One flush's writes: each first level's close, and each budget level's spend under `key` (the batch's request id). */
export interface Batch { key: string; closed: Closed[]; spends: Map<string, Spend> }

/** The entry id of a batch's spend on `account`. */
export const spendEntry = (key: string, account: string) => `${key}>${account}`;

/** A spend row's INSERT arguments in column order (sqlite-quota.ts `insertSpend`): its charges, written as the holds' owner's (the money left the account with the hold). */
export function spendArgs(key: string, account: string, s: Spend, owner: string): unknown[] {
  return [spendEntry(key, account), account, key, s.charged, s.at, s.uncharged, owner, s.requests];
}

/** What each account was charged in a batch (to take off the holds). */
export function spentOf(b: Batch): Map<string, number> {
  const spent = new Map<string, number>();
  for (const c of b.closed) spent.set(c.account, (spent.get(c.account) ?? 0) + c.charged);
  for (const [account, s] of b.spends) spent.set(account, (spent.get(account) ?? 0) + s.charged);
  return spent;
}

/** A spend the flush could not write (the hold was reclaimed): taken from the account directly, as a request's late charge is. */
function lateSpend(key: string, account: string, s: Spend): LedgerEntry {
  return { entry: spendEntry(key, account), account, request: key, kind: 'late_charge', amount: s.charged, at: s.at, uncharged: 0 };
}

/** What this process closed and has not written yet. */
export class Unwritten {
  private closed: Closed[] = [];
  private spends = new Map<string, Spend>();
  /** The batch being written, until it is: a failed write is retried with this very batch. */
  private current: Batch | undefined;
  private n = 0;
  /** Set apart from an earlier process that was handed the same owner id (a test's): keys never repeat. */
  private readonly prefix: string;

  constructor(owner: string) {
    this.prefix = `spend:${owner}:${Date.now().toString(36)}.`;
  }

  /** Closes waiting for the next batch (spends are one per account, whatever the requests). */
  get waiting(): number { return this.closed.length; }

  /** Nothing to write. */
  get idle(): boolean { return this.current === undefined && this.closed.length === 0 && this.spends.size === 0; }

  /** A request closed on one level: a row of its own on a first level; on a budget level (no usage to report), its charge joins the level's spend. */
  add(request: string, o: Open, kind: string, settled: Settled, at: number, tags?: CloseTags): void {
    if (isBudgetLevel(o.account)) this.spend(o.account, settled.charged, settled.uncharged, at);
    else this.closed.push(closedOf(request, o, kind, settled, at, tags));
  }

  private spend(account: string, charged: number, uncharged: number, at: number): void {
    const s = this.spends.get(account);
    if (s === undefined) { this.spends.set(account, { charged, uncharged, requests: 1, at }); return; }
    s.charged += charged;
    s.uncharged += uncharged;
    s.requests++;
    s.at = at;
  }

  /** The batch to write: the one whose write failed, as it was, else everything closed since the last one. */
  next(): Batch {
    if (this.current) return this.current;
    this.current = { key: `${this.prefix}${this.n++}`, closed: this.closed, spends: this.spends };
    this.closed = [];
    this.spends = new Map();
    return this.current;
  }

  /** The batch from next() is written: the next one is new. */
  written(): void { this.current = undefined; }

  /** Everything not written, the batch in hand first, as late charges (HeldQuota.recover); nothing is left. */
  drain(): LedgerEntry[] {
    const batches = this.current ? [this.current] : [];
    this.current = undefined;
    batches.push(this.next());
    this.current = undefined;
    return batches.flatMap((b) => [...b.closed.map(lateRow), ...[...b.spends].map(([account, s]) => lateSpend(b.key, account, s))]);
  }
}
