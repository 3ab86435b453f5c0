// The one synchronous step of a write-behind reservation (held-quota.ts): every level's hold checked and debited and
// each level's reservation opened, with no await in between. One event loop runs a process's requests, so nothing of
// this process spends a hold between its check and its debit, and other processes spend only their own holds.
import type { EntryTags, Level } from './quota-ledger.js';

/**
 * This process's part of an account: `free` to reserve from (below 0 only through unchecked levels: what they spent
 * beyond the slices taken, owed to the account), `inflight` reserved, `unflushed` charged but not written yet. The
 * account's hold row holds free + inflight + unflushed; `spent` and `rate` size the next slice.
 */
export interface Held { free: number; inflight: number; unflushed: number; spent: number; rate: number; usedAt: number }

/** A reservation open in memory; `orphan`: its hold was reclaimed while it ran (HeldQuota.recover). */
export interface Open { account: string; amount: number; at: number; orphan: boolean; tags?: EntryTags }

/**
 * Takes `amount` from every level's hold and opens each level's reservation under its own request id, all or nothing:
 * -1 when taken, else the index of the first level that has no hold here yet or, checked, whose `free` cannot cover
 * it (nothing moved). A level whose request is open already is left as it is, as the written ledger leaves an entry
 * it has: a repeated call is a no-op. Levels name distinct accounts, so distinct requests (levelRequest).
 */
export function takeLevels(held: Map<string, Held>, open: Map<string, Open>, levels: Level[], amount: number, tags: EntryTags | undefined): number {
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i];
    if (open.has(l.request)) continue;
    const h = held.get(l.account);
    if (h === undefined || (h.free < amount && !l.unchecked)) {
      giveBack(held, open, levels, i, amount);
      return i;
    }
    h.free -= amount;
  }
  const at = Date.now();
  for (const l of levels) {
    if (open.has(l.request)) continue;
    const h = held.get(l.account)!;
    h.inflight += amount;
    h.usedAt = at;
    open.set(l.request, { account: l.account, amount, at, orphan: false, tags });
  }
  return -1;
}

/** A reservation of `amount` on this hold closed, `charged` of it: the rest is free again, the charge unwritten until a flush. */
export function closeHeld(h: Held, amount: number, charged: number, at: number): void {
  h.inflight -= amount;
  h.free += amount - charged;
  h.unflushed += charged;
  h.spent += charged;
  h.usedAt = at;
}

/** A flush wrote these charges: no longer unwritten. */
export function unflush(held: Map<string, Held>, spent: Map<string, number>): void {
  for (const [account, amount] of spent) {
    const h = held.get(account);
    if (h) h.unflushed -= amount;
  }
}

/** Undoes the debits of the levels before `end` (a later one refused). */
function giveBack(held: Map<string, Held>, open: Map<string, Open>, levels: Level[], end: number, amount: number): void {
  for (let i = 0; i < end; i++) if (!open.has(levels[i].request)) held.get(levels[i].account)!.free += amount;
}
