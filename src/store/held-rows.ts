// The ledger rows a write-behind flush (held-quota.ts) writes for the requests closed since the last one.
import type { EntryTags, LedgerEntry } from './quota-ledger.js';

/** A request closed in memory and not yet written. */
export interface Closed {
  request: string; account: string; reserved: number; charged: number; uncharged: number; kind: string; reservedAt: number; at: number;
  /** The reservation's tags (who, what), and the close's (the same, with channel and usage). */
  reserveTags: EntryTags | undefined; closeTags: EntryTags;
}

/** Each request's reserve and close rows, and what was charged per account (to take off the holds). */
export function batchOf(batch: Closed[]): { rows: LedgerEntry[]; spent: Map<string, number> } {
  const spent = new Map<string, number>();
  const rows: LedgerEntry[] = [];
  for (const c of batch) {
    spent.set(c.account, (spent.get(c.account) ?? 0) + c.charged);
    rows.push(row(c, `${c.request}:reserve`, 'reserve', c.reserved, c.reservedAt, c.reserveTags),
      row(c, `${c.request}:close`, c.kind, c.charged - c.reserved, c.at, c.closeTags, c.uncharged));
  }
  return { rows, spent };
}

/** The charge of a request whose hold was reclaimed while it ran: taken from the account directly. */
export const lateRow = (c: Closed): LedgerEntry => row(c, `${c.request}:close`, 'late_charge', c.charged, c.at, c.closeTags);

/** One ledger row of a closed request, every field set (one shape for all: a flush writes thousands). */
function row(c: Closed, entry: string, kind: string, amount: number, at: number, t: EntryTags | undefined, uncharged = 0): LedgerEntry {
  return {
    entry, account: c.account, request: c.request, kind, amount, at, uncharged,
    user: t?.user ?? null, model: t?.model ?? null, route: t?.route ?? null, channel: t?.channel ?? null,
    prompt_tokens: t?.prompt_tokens ?? null, completion_tokens: t?.completion_tokens ?? null, units: t?.units ?? null,
  };
}
