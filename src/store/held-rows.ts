// What a write-behind flush (held-quota.ts) writes for the requests closed since the last one: on a request's first
// level (its token's account) one ledger row per request, its close, carrying the reservation it closed (reserved,
// reserved_at, reserved_units), and the usage rollup; on each budget level one `spend` row for all of them
// (held-batch.ts). A request's reservation lived in the process's hold and is never written on its own: the store reads
// the reserve entry back out of the close row (see sqlite-quota.ts), so the ledger still lists `<id>:reserve` and
// `<id>:close` while a flush writes half the rows and half the index entries.
import { closeTags, tagsOf, type CloseTags, type EntryTags, type LedgerEntry, type Settled } from './quota-ledger.js';
import type { Open } from './held-levels.js';
import { hourOf, type RollupDelta } from './usage.js';

/** A request closed in memory and not yet written. */
export interface Closed {
  request: string; account: string; reserved: number; charged: number; uncharged: number; kind: string; reservedAt: number; at: number;
  /** The reservation's tags (who, what), and the close's (the same, with channel and usage). */
  reserveTags: EntryTags | undefined; closeTags: EntryTags;
}

/** The close of a reservation open in memory (`kind`: settle or refund), with the reservation's tags and the close's. */
export function closedOf(request: string, o: Open, kind: string, { charged, uncharged }: Settled, at: number, tags?: CloseTags): Closed {
  const reserveTags = o.tags;
  return {
    request, account: o.account, reserved: o.amount, charged, uncharged, kind, reservedAt: o.at, at,
    reserveTags, closeTags: closeTags(reserveTags ?? {}, tags, charged),
  };
}

/**
 * The close row's INSERT arguments in column order (sqlite-quota.ts `insertHeldClose`): the entry's columns, the
 * hold's owner, then the reservation. Positional and built in one go: a flush writes thousands of these.
 */
export function closeArgs(c: Closed, owner: string): unknown[] {
  const t = c.closeTags;
  return [
    `${c.request}:close`, c.account, c.request, c.kind, c.charged - c.reserved, c.at, c.uncharged,
    t.user ?? null, t.model ?? null, t.route ?? null, t.channel ?? null, t.prompt_tokens ?? null, t.completion_tokens ?? null, t.units ?? null,
    t.cached_tokens ?? null, t.cache_write_tokens ?? null, t.reasoning_tokens ?? null, t.audio_tokens ?? null, t.image_tokens ?? null, t.vendor_charged ?? null,
    owner, c.reserved, c.reservedAt, c.reserveTags?.units ?? null,
  ];
}

/** Adds a written close to the flush's rollup cells (one per account, hour, model, route and channel, as mergeDeltas keys them). */
export function addToRollup(cells: Map<string, RollupDelta>, c: Closed): void {
  const t = c.closeTags;
  const hour = hourOf(c.at);
  const model = t.model ?? '', route = t.route ?? '', channel = t.channel ?? '';
  const k = `${c.account}\u0000${hour}\u0000${model}\u0000${route}\u0000${channel}`;
  const cell = cells.get(k);
  if (!cell) {
    cells.set(k, {
      account: c.account, user: t.user ?? '', hour, model, route, channel, requests: 1, prompt_tokens: t.prompt_tokens ?? 0,
      completion_tokens: t.completion_tokens ?? 0, units: t.units ?? 0, charged: c.charged, uncharged: c.uncharged,
      cached_tokens: t.cached_tokens ?? 0, cache_write_tokens: t.cache_write_tokens ?? 0, reasoning_tokens: t.reasoning_tokens ?? 0,
      audio_tokens: t.audio_tokens ?? 0, image_tokens: t.image_tokens ?? 0, vendor_charged: t.vendor_charged ?? 0,
    });
    return;
  }
  cell.requests++;
  cell.prompt_tokens += t.prompt_tokens ?? 0;
  cell.completion_tokens += t.completion_tokens ?? 0;
  cell.units += t.units ?? 0;
  cell.charged += c.charged;
  cell.uncharged += c.uncharged;
  cell.cached_tokens += t.cached_tokens ?? 0;
  cell.cache_write_tokens += t.cache_write_tokens ?? 0;
  cell.reasoning_tokens += t.reasoning_tokens ?? 0;
  cell.audio_tokens += t.audio_tokens ?? 0;
  cell.image_tokens += t.image_tokens ?? 0;
  cell.vendor_charged += t.vendor_charged ?? 0;
}

/** The charge of a request whose hold was reclaimed while it ran: taken from the account directly. */
export function lateRow(c: Closed): LedgerEntry {
  return {
    entry: `${c.request}:close`, account: c.account, request: c.request, kind: 'late_charge', amount: c.charged, at: c.at, uncharged: 0,
    ...tagsOf(c.closeTags),
  };
}
