// GET /admin/reconciliation: the tasks whose vendor says it charged something other than what the gateway charged
// (its own units or credits, converted by the model's `price.vendor_unit`), newest first, so an operator
// finds a price that drifted from the vendor's before the invoice does. Filters: `model`, `channel`, `from`/`to`
// (when the task was created; default the last 30 days), `min_difference` (units; default 1: rounding aside);
// paged by `limit` and `after` like /admin/tasks. The usage report (`GET /admin/usage`) sums `vendor_charged`
// beside `charged` for whole periods.
import { GatewayError } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import type { Exchange } from '../pipeline/exchange.js';
import type { TaskRecord } from '../records/task-record.js';
import { readLimit } from './list-page.js';
import { readRange } from './time-range.js';

/** Catalog pages read at most per answer (the answer then says has_more, and the next page goes on). */
const maxReads = 16;

export async function serveReconciliation(ex: Exchange): Promise<void> {
  const { g } = ex;
  const q = queryOf(ex.ctx.url);
  const limit = readLimit(q, { defaultLimit: 50, maxLimit: 100 });
  const range = readRange(q, ['from', 'to'], 30, 400);
  const minDiff = q.min_difference === undefined ? 1 : /^[0-9]{1,12}$/.test(q.min_difference) ? Number(q.min_difference) : NaN;
  if (!Number.isFinite(minDiff)) throw new GatewayError('invalid_request', '`min_difference` must be a whole number of units');
  const wanted = (t: TaskRecord) => t.quota.vendor_charged !== undefined && t.quota.state === 'settled'
    && Math.abs(t.quota.vendor_charged - (t.quota.charged ?? 0)) >= minDiff
    && (q.model === undefined || t.model === q.model) && (q.channel === undefined || t.channel === q.channel)
    && t.created_at * 1000 < range.to;
  const found: TaskRecord[] = [];
  let after = q.after || undefined;
  let more = false;
  for (let read = 0; read < maxReads && found.length < limit; read++) {
    const p = await g.store.catalog.page({ after, limit: 100, order: 'desc' });
    if (!p) {
      if (read === 0 && after) throw new GatewayError('invalid_request', '`after` must be the id of a task of this listing');
      break;
    }
    const recs = (await Promise.all(p.ids.map((id) => g.tasks.get(id)))).filter((r): r is TaskRecord => r !== undefined);
    const older = recs.some((r) => r.created_at * 1000 < range.from);
    for (const r of recs) if (found.length < limit && r.created_at * 1000 >= range.from && wanted(r)) found.push(r);
    after = p.ids.at(-1);
    more = p.more && !older;
    if (!more) break;
  }
  const data = found.map(row);
  sendJson(ex.res, 200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? after ?? null, has_more: more, units_per_usd: g.runtime.unitsPerUsd });
}

function row(t: TaskRecord) {
  const charged = t.quota.charged ?? 0;
  return {
    id: t.id, model: t.model, channel: t.channel, owner: t.owner, created_at: t.created_at, completed_at: t.completed_at ?? null,
    reserved: t.quota.reserved, charged, vendor_charge: t.quota.vendor_charge ?? null, vendor_unit: t.quota.vendor_unit ?? null,
    vendor_charged: t.quota.vendor_charged, difference: t.quota.vendor_charged! - charged, price: t.quota.price?.chose ?? null,
  };
}
