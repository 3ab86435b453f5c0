// GET /admin/usage: what tokens spent, on what. `token`, `user`, `from`, `to` (unix seconds or ISO 8601; default
// the last 30 days; counted by whole hours) and `group_by` (model, route, channel, day, token or user; default
// model). Each row sums the requests closed in the range: prompt and completion tokens, units (seconds, images),
// what was charged, and what usage beyond a reservation was not.
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import type { Exchange } from '../pipeline/exchange.js';
import { groupings, hourMs, type Grouping, type UsageQuery, type UsageRow } from '../store/usage.js';
import { readRange } from './time-range.js';

export async function serveUsage(ex: Exchange): Promise<void> {
  const q = queryOf(ex.ctx.url);
  const groupBy = (q.group_by ?? 'model') as Grouping;
  if (!groupings.includes(groupBy)) throw new GatewayError('invalid_request', `\`group_by\` must be one of: ${groupings.join(', ')} (got ${clip(q.group_by ?? '', 40)})`);
  const range = readRange(q, ['from', 'to'], 30, 400);
  const query: UsageQuery = { ...range, groupBy, accounts: q.token !== undefined ? [q.token] : undefined, user: q.user };
  const rows = await ex.g.store.quota.usage(query);
  const perUsd = ex.g.runtime.unitsPerUsd;
  sendJson(ex.res, 200, {
    object: 'usage', group_by: groupBy, granularity: 'hour',
    // The hours the figures cover, which a range's ends are rounded to.
    from: new Date(Math.floor(range.from / hourMs) * hourMs).toISOString(), to: new Date(Math.ceil(range.to / hourMs) * hourMs).toISOString(),
    units_per_usd: perUsd,
    data: rows.map((r) => withUsd(r, perUsd)),
    total: withUsd(total(rows), perUsd),
  });
}

function total(rows: UsageRow[]): UsageRow {
  const t: UsageRow = { key: 'total', requests: 0, prompt_tokens: 0, completion_tokens: 0, units: 0, charged: 0, uncharged: 0 };
  for (const r of rows) {
    t.requests += r.requests; t.prompt_tokens += r.prompt_tokens; t.completion_tokens += r.completion_tokens;
    t.units += r.units; t.charged += r.charged; t.uncharged += r.uncharged;
  }
  return t;
}

const withUsd = (r: UsageRow, perUsd: number) => ({ ...r, charged_usd: Math.round((r.charged / perUsd) * 1e6) / 1e6 });
