// Usage reports: closed requests summed per account, model, route and channel, per hour and per day, as they are
// written (a rollup beside the ledger, in the same transaction). A report reads whole days from the daily cells and
// only the hours at its two ends from the hourly ones, so its cost follows the days it spans, not the entries.
import { isBudgetLevel } from './budget-level.js';
import { usageClasses, type EntryTags, type LedgerEntry, type UsageClass } from './ledger-entry.js';

export const groupings = ['model', 'route', 'channel', 'day', 'token', 'user'] as const;
export type Grouping = (typeof groupings)[number];

export interface UsageQuery {
  /** Token ids (ledger accounts); absent: every account. */
  accounts?: string[];
  user?: string;
  /** Milliseconds; counted by whole hours: the hour holding `from` up to the hour holding `to - 1`. */
  from: number;
  to: number;
  groupBy: Grouping;
  /** A second grouping within the first (model by day, say): each row then carries its value as `sub`. */
  thenBy?: Grouping;
}

/** `vendor_charged` sums what the vendors reported charging (in units), beside `charged`, what the gateway charged. */
export interface UsageTotals extends Record<UsageClass, number> {
  requests: number; prompt_tokens: number; completion_tokens: number; units: number; charged: number; uncharged: number;
}
export interface UsageRow extends UsageTotals { key: string; sub?: string }

/** One rollup cell: a closed request's contribution, keyed by where it lands. */
export interface RollupDelta extends UsageTotals { account: string; user: string; hour: number; model: string; route: string; channel: string }

/** Every count of a rollup, in the order the stores keep them (SQLite columns, Redis hash fields). */
export const countNames = ['requests', 'prompt_tokens', 'completion_tokens', 'units', 'charged', 'uncharged', ...usageClasses] as const satisfies readonly (keyof UsageTotals)[];

/** Totals with each count read by `of`. */
export function countsOf(of: (n: (typeof countNames)[number]) => number): UsageTotals {
  const c = {} as UsageTotals;
  for (const n of countNames) c[n] = of(n);
  return c;
}

/** Nothing used (an account that closed no request yet, an empty report's total). */
export const noUsage = (): UsageTotals => countsOf(() => 0);

/** A close's token classes as counts, 0 where unknown. */
export function classCounts(t: EntryTags): Record<UsageClass, number> {
  const c = {} as Record<UsageClass, number>;
  for (const k of usageClasses) c[k] = t[k] ?? 0;
  return c;
}

export const hourMs = 3_600_000;
export const hourOf = (ms: number) => Math.floor(ms / hourMs);
/** The hours a query covers, [first, last]. */
export const hoursOf = (q: Pick<UsageQuery, 'from' | 'to'>) => [hourOf(q.from), hourOf(Math.max(q.from, q.to - 1))] as const;

/**
 * Where a query's hours are read: whole days from the daily cells, the hours before the first and after the last
 * whole day from the hourly ones. Days are numbered as hour / 24 (UTC).
 */
export function spansOf(q: Pick<UsageQuery, 'from' | 'to'>): { days?: [number, number]; hours: [number, number][] } {
  const [first, last] = hoursOf(q);
  const d0 = Math.ceil(first / 24);
  const d1 = Math.floor((last + 1) / 24) - 1;
  if (d0 > d1) return { hours: [[first, last]] };
  const hours: [number, number][] = [];
  if (first < d0 * 24) hours.push([first, d0 * 24 - 1]);
  if ((d1 + 1) * 24 <= last) hours.push([(d1 + 1) * 24, last]);
  return { days: [d0, d1], hours };
}

/** The kinds of entry that close a request. */
export const closeKinds = new Set(['settle', 'refund', 'late_charge']);

/**
 * What a close entry adds to the rollup (`charged`: what the request finally cost). Reserve and topup entries add
 * nothing: a request counts once, when its money is settled or returned.
 */
export function rollupOf(e: LedgerEntry, charged: number): RollupDelta | undefined {
  if (!closeKinds.has(e.kind) || isBudgetLevel(e.account)) return undefined;
  return {
    account: e.account, user: e.user ?? '', hour: hourOf(e.at), model: e.model ?? '', route: e.route ?? '', channel: e.channel ?? '',
    requests: 1, prompt_tokens: e.prompt_tokens ?? 0, completion_tokens: e.completion_tokens ?? 0, units: e.units ?? 0,
    charged, uncharged: e.uncharged ?? 0, ...classCounts(e),
  };
}

export function addCounts(into: UsageTotals, d: UsageTotals): void {
  for (const n of countNames) into[n] += d[n];
}

/** Many requests of one flush add up to one write per cell. */
export function mergeDeltas(deltas: RollupDelta[]): RollupDelta[] {
  const cells = new Map<string, RollupDelta>();
  for (const d of deltas) {
    const k = `${d.account}\u0000${d.hour}\u0000${d.model}\u0000${d.route}\u0000${d.channel}`;
    const c = cells.get(k);
    if (!c) cells.set(k, { ...d });
    else addCounts(c, d);
  }
  return [...cells.values()];
}

/** The report key of a rollup cell. */
export function keyOf(d: Pick<RollupDelta, 'account' | 'user' | 'hour' | 'model' | 'route' | 'channel'>, by: Grouping): string {
  switch (by) {
    case 'day': return new Date(d.hour * hourMs).toISOString().slice(0, 10);
    case 'token': return d.account;
    default: return d[by];
  }
}

/** Sums cells into report rows, sorted by key then sub (days in order, names alphabetically). */
export function groupCells(cells: RollupDelta[], by: Grouping, thenBy?: Grouping): UsageRow[] {
  const rows = new Map<string, UsageRow>();
  for (const c of cells) {
    const key = keyOf(c, by);
    const sub = thenBy && keyOf(c, thenBy);
    const id = sub === undefined ? key : `${key}\u0000${sub}`;
    let r = rows.get(id);
    if (!r) {
      r = { key, ...(sub !== undefined && { sub }), ...noUsage() };
      rows.set(id, r);
    }
    addCounts(r, c);
  }
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...rows.values()].sort((a, b) => order(a.key, b.key) || order(a.sub ?? '', b.sub ?? ''));
}
