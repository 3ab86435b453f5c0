// What every usage report shares (GET /admin/usage, a user's and a team's): the total of its rows, dollars beside
// units, and the hours a range covers once rounded to the rollup's whole hours.
import { addCounts, hourMs, noUsage, type UsageRow } from '../store/usage.js';
import type { TimeRange } from './time-range.js';

export function totalOf(rows: UsageRow[]): UsageRow {
  const t: UsageRow = { key: 'total', ...noUsage() };
  for (const r of rows) addCounts(t, r);
  return t;
}

/** Dollars beside units; the vendors' own figure only where they reported one, so other rows keep their shape. */
export const withUsd = <R extends { charged: number; vendor_charged: number }>(r: R, perUsd: number) => ({
  ...r, charged_usd: usd(r.charged, perUsd), ...(r.vendor_charged > 0 && { vendor_charged_usd: usd(r.vendor_charged, perUsd) }),
});

const usd = (units: number, perUsd: number) => Math.round((units / perUsd) * 1e6) / 1e6;

/** The hours the figures cover, which a range's ends are rounded to. */
export const coveredHours = (range: TimeRange) => ({
  from: new Date(Math.floor(range.from / hourMs) * hourMs).toISOString(), to: new Date(Math.ceil(range.to / hourMs) * hourMs).toISOString(),
});
