// The SQLite ledger's rows (quota_ledger, sqlite-quota.ts): their columns, the INSERTs that write an entry, a close
// written against a hold (held-rows.ts) and a budget level's spend (held-batch.ts), and the query that lists an
// account's entries, shared by the ledger and the holds' flush (sqlite-holds.ts).
import { usageClasses, type LedgerEntry } from './quota-ledger.js';

const tagColumns = [['user', 'TEXT'], ['model', 'TEXT'], ['route', 'TEXT'], ['channel', 'TEXT'], ['prompt_tokens', 'INTEGER'], ['completion_tokens', 'INTEGER'], ['units', 'INTEGER'],
  ...usageClasses.map((n) => [n, 'INTEGER'] as const)] as const;
const entryNames = ['entry', 'account', 'request', 'kind', 'amount', 'at', 'uncharged', ...tagColumns.map(([n]) => n)];
export const entryColumns = entryNames.join(', ');
/** An INSERT of one entry (and the process that held its money), skipped when the entry exists; takes entryArgs. */
export const insertEntry = `INSERT INTO quota_ledger (${entryColumns}, held_by) VALUES (${'?, '.repeat(entryNames.length)}?) ON CONFLICT(entry) DO NOTHING`;
/** A reservation on a level that records but never refuses (Level.unchecked): the trigger skips the balance check. */
export const insertUnchecked = `INSERT INTO quota_ledger (${entryColumns}, held_by, unchecked) VALUES (${'?, '.repeat(entryNames.length)}?, 1) ON CONFLICT(entry) DO NOTHING`;
/**
 * A close written against a process's hold (held-rows.ts closeArgs) also carries the reservation it closed, which was
 * never written on its own: `entries` reads it back as the request's `<id>:reserve` entry.
 */
const reservedColumns = [['reserved', 'INTEGER'], ['reserved_at', 'INTEGER'], ['reserved_units', 'INTEGER']] as const;
export const insertHeldClose = `INSERT INTO quota_ledger (${entryColumns}, held_by, ${reservedColumns.map(([n]) => n).join(', ')})
  VALUES (${'?, '.repeat(entryNames.length + 3)}?) ON CONFLICT(entry) DO NOTHING`;
/**
 * A budget level's charges of one flush, summed, against the process's hold (held-batch.ts spendArgs): no tags, as a
 * budget level adds nothing to usage, and the count of requests it sums. Written once per key.
 */
export const insertSpend = `INSERT INTO quota_ledger (entry, account, request, kind, amount, at, uncharged, held_by, requests)
  VALUES (?, ?, ?, 'spend', ?, ?, ?, ?, ?) ON CONFLICT(entry) DO NOTHING`;
/** The columns later versions added, for the migration that adds them to an older file. */
export const laterColumns = [...tagColumns, ...reservedColumns, ['requests', 'INTEGER']] as const;
/**
 * Every entry of an account in the order written, a close that carries its reservation preceded by that reserve entry;
 * `requests` is null but on a spend (LedgerEntry drops it then: see ledgerEntries).
 */
export const entriesOf = `SELECT ${entryColumns}, requests FROM (
    SELECT rowid AS seq, 1 AS part, ${entryColumns}, requests FROM quota_ledger WHERE account = ?
    UNION ALL
    SELECT rowid, 0, request || ':reserve', account, request, 'reserve', reserved, reserved_at, 0, user, model, route,
      NULL, NULL, NULL, reserved_units${', NULL'.repeat(usageClasses.length)}, NULL FROM quota_ledger WHERE account = ? AND reserved IS NOT NULL)
  ORDER BY at, seq, part`;

/** The rows of entriesOf as entries: `requests` only where there is a count (a spend), as on every other store. */
export function ledgerEntries(rows: (LedgerEntry & { requests: number | null })[]): LedgerEntry[] {
  for (const r of rows) if (r.requests === null) delete (r as LedgerEntry).requests;
  return rows;
}

/**
 * An entry as the INSERT takes it, in column order, every tag null when unknown. Positional and built in one go: a
 * flush writes thousands of these, and spreading objects of varying shapes costs more than the insert itself.
 */
export const entryArgs = (e: LedgerEntry, heldBy: string | null) => [
  e.entry, e.account, e.request, e.kind, e.amount, e.at, e.uncharged ?? 0, e.user ?? null, e.model ?? null, e.route ?? null,
  e.channel ?? null, e.prompt_tokens ?? null, e.completion_tokens ?? null, e.units ?? null, e.cached_tokens ?? null, e.cache_write_tokens ?? null,
  e.reasoning_tokens ?? null, e.audio_tokens ?? null, e.image_tokens ?? null, e.vendor_charged ?? null, heldBy,
];
