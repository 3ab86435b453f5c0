// How a RequestRecord is laid out in a request log table, shared by the SQLite and PostgreSQL stores so both keep and
// search records alike: the fields a search filters or orders on are columns, the rest of the record is JSON text.
import type { LogQuery, RequestRecord, Row } from './log-store.js';

/** The optional fields kept as columns, after id, kind and at (`group` before any filter names it: a column added later is a migration). */
const fieldColumns = ['token', 'user', 'group', 'route', 'model', 'channel', 'status', 'error_code', 'task'] as const;
/** Every column a row has, in the order `rowOf` gives their values; `rest` is the JSON of every other field. */
export const logColumns = ['id', 'kind', 'at', ...fieldColumns, 'rest'] as const;
/** A column name as SQL takes it (`user` and `group` are keywords). */
export const sqlName = (c: string) => (c === 'user' || c === 'group' ? `"${c}"` : c);
export const columnList = logColumns.map(sqlName).join(', ');

/** The order of every search, and of a cursor: newest first; a record's id, then kind, break ties. */
export const newestFirst = 'ORDER BY at DESC, id DESC, kind DESC';

const inColumns = new Set<string>(['id', 'kind', 'at', ...fieldColumns]);

/**
 * A column's text without NUL, which PostgreSQL's text cannot hold: a client's model name carrying one would have its
 * whole batch refused on every retry. Kept as U+FFFD in both stores alike (in `rest`, JSON escapes it).
 */
export const columnText = (v: string | null | undefined) => (v == null ? null : v.includes('\0') ? v.replaceAll('\0', '\uFFFD') : v);

/**
 * A record as the values of `logColumns`. A field set to null stays in `rest` (its column is null either way), so a
 * record reads back exactly as written, null and absent alike.
 */
export function rowOf(r: RequestRecord): Row {
  const rest: Record<string, unknown> = {};
  const fields = r as unknown as Record<string, unknown>;
  for (const k in fields) if (!inColumns.has(k) || fields[k] === null) rest[k] = fields[k];
  return [columnText(r.id), r.kind, r.at, columnText(r.token), columnText(r.user), columnText(r.group), columnText(r.route),
    columnText(r.model), columnText(r.channel), r.status ?? null, columnText(r.error_code), columnText(r.task), JSON.stringify(rest)];
}

export type LogRow = Record<(typeof logColumns)[number], unknown>;

/** The record a row holds: its columns that are set, then the rest. */
export function recordOf(row: LogRow): RequestRecord {
  const r: Record<string, unknown> = { id: row.id, kind: row.kind, at: row.at };
  for (const c of fieldColumns) if (row[c] !== null) r[c] = row[c];
  return Object.assign(r, JSON.parse(row.rest as string)) as RequestRecord;
}

/** The record a row to be written holds (the spool keeps records). */
export const recordOfRow = (row: Row) => recordOf(Object.fromEntries(logColumns.map((c, i) => [c, row[i]])) as LogRow);

/**
 * The filters, most selective first as a gateway's log goes: an id is one or two records, a token one client's share,
 * a user a few tokens', an error code a share of the 2 % that failed; a channel, model or route a tenth of everything
 * or more, a status (200) nearly all of it.
 */
const filters = ['id', 'token', 'user', 'error_code', 'channel', 'model', 'route', 'status', 'kind'] as const;

/**
 * The WHERE clause of a search and its arguments; `param(n)` names the n-th (1-based) placeholder (`?` or `$n`).
 * One upper bound: a cursor inside the range replaces `to`, so the index scan starts at the cursor instead of reading
 * every newer entry again (a row-value comparison, which both databases answer from an index ordered by at, id, kind).
 * `firstIndexOnly` (SQLite) writes every filter but the most selective as `+column`, which no index answers: without
 * statistics SQLite picks either of two indexed filters, and channel over token read 83,000 rows where token read none.
 */
export function whereOf(q: LogQuery, param: (n: number) => string, firstIndexOnly = false): { sql: string; args: unknown[] } {
  const args: unknown[] = [];
  const p = (v: unknown) => { args.push(v); return param(args.length); };
  const terms = [`at >= ${p(q.from)}`];
  const b = q.before;
  if (!b || b.at >= q.to) terms.push(`at < ${p(q.to)}`);
  else if (b.kind === undefined) terms.push(`(at, id) < (${p(b.at)}, ${p(b.id)})`);
  else terms.push(`(at, id, kind) < (${p(b.at)}, ${p(b.id)}, ${p(b.kind)})`);
  const set = filters.filter((f) => q[f] !== undefined);
  set.forEach((f, i) => terms.push(`${firstIndexOnly && i > 0 ? '+' : ''}${sqlName(f)} = ${p(q[f])}`));
  return { sql: terms.join(' AND '), args };
}

/** `limit` held to the contract's 1 to 1000, so no caller can ask a store for everything at once. */
export const limitOf = (q: LogQuery) => Math.min(1000, Math.max(1, Math.floor(q.limit) || 1));
