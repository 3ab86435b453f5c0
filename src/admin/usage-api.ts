// GET /admin/usage: what tokens spent, on what. `token`, `user`, `from`, `to` (unix seconds or ISO 8601; default
// the last 30 days; counted by whole hours) and `group_by` (model, route, channel, day, token or user; default
// model; two separated by a comma, e.g. `model,day`, give a row per pair). Each row sums the requests closed in
// the range: prompt and completion tokens, the token classes that explain them (cached, cache writes, reasoning,
// audio, image), units (seconds, images), what was charged, what usage beyond a reservation was not, and what the
// vendors reported charging.
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import type { Exchange } from '../pipeline/exchange.js';
import type { Gateway } from '../pipeline/gateway.js';
import { groupings, type Grouping, type UsageQuery, type UsageRow } from '../store/usage.js';
import { readRange } from './time-range.js';
import { coveredHours, totalOf, withUsd } from './usage-rows.js';

export async function serveUsage(ex: Exchange): Promise<void> {
  sendJson(ex.res, 200, await usageReport(ex.g, queryOf(ex.ctx.url)));
}

/** The report of a query's parameters; a console user's (src/console/) is narrowed to their own before it gets here. */
export async function usageReport(g: Gateway, q: Record<string, string>) {
  const [groupBy, thenBy] = groupingsOf(q.group_by);
  const range = readRange(q, ['from', 'to'], 30, 400);
  const query: UsageQuery = { ...range, groupBy, thenBy, accounts: q.token !== undefined ? [q.token] : undefined, user: q.user };
  const rows = await g.store.quota.usage(query);
  const perUsd = g.runtime.unitsPerUsd;
  return {
    object: 'usage', group_by: thenBy ? `${groupBy},${thenBy}` : groupBy, granularity: 'hour', ...coveredHours(range),
    units_per_usd: perUsd,
    data: rows.map((r) => withUsd(rowOf(r, thenBy), perUsd)),
    total: withUsd(totalOf(rows), perUsd),
  };
}

/** `group_by`: one grouping, or two separated by a comma (`model,day`: a row per model and day, for a chart). */
function groupingsOf(raw = 'model'): [Grouping, Grouping?] {
  const parts = raw.split(',');
  const bad = parts.length > 2 || parts.some((p) => !groupings.includes(p as Grouping)) || parts[0] === parts[1];
  if (bad) throw new GatewayError('invalid_request', `\`group_by\` must be one of ${groupings.join(', ')}, or two of them separated by a comma (got ${clip(raw, 40)})`);
  return parts as [Grouping, Grouping?];
}

/** A row of a two-way report names its second value by its grouping: { key: "<model>", day: "2026-11-24", … }. */
function rowOf(r: UsageRow, thenBy?: Grouping): Omit<UsageRow, 'sub'> & Partial<Record<Grouping, string>> {
  if (!thenBy) return r;
  const { key, sub, ...counts } = r;
  return { key, [thenBy]: sub, ...counts };
}
