// GET /admin/tasks: every owner's tasks, newest first, as operators need them (owner, channel, vendor status, money).
// Filters: `token`, `user`, `status` (queued, in_progress, completed, failed), `family`; paged by `limit` (1-100,
// default 50) and `after` (a task id of the previous page). Reads the store's task catalog, then the records.
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import type { Exchange } from '../pipeline/exchange.js';
import type { TaskRecord } from '../records/task-record.js';
import { readLimit } from './list-page.js';

export const taskStatuses = ['queued', 'in_progress', 'completed', 'failed'];
/** Catalog pages read at most per answer when filters skip entries (the answer then says has_more). */
const maxReads = 8;

export async function serveTasks(ex: Exchange): Promise<void> {
  const { g } = ex;
  const q = queryOf(ex.ctx.url);
  const limit = readLimit(q, { defaultLimit: 50, maxLimit: 100 });
  if (q.status !== undefined && !taskStatuses.includes(q.status)) throw new GatewayError('invalid_request', `\`status\` must be one of: ${taskStatuses.join(', ')}`);
  const user = q.token !== undefined ? (await g.tokens.byId(q.token))?.user : q.user;
  if (q.token !== undefined && user === undefined) throw new GatewayError('token_not_found', `no token ${clip(q.token, 80)}`);
  if (q.token !== undefined && q.user !== undefined && q.user !== user) return sendJson(ex.res, 200, page([], false));
  const found: TaskRecord[] = [];
  let more = false;
  let after = q.after || undefined;
  for (let read = 0; read < maxReads && found.length < limit; read++) {
    const p = await g.store.catalog.page({ user, family: q.family, after, limit: limit - found.length, order: 'desc' });
    if (!p && read === 0) throw new GatewayError('invalid_request', `\`after\` must be the id of a task of this listing (got ${clip(after ?? '')})`);
    if (!p) break;
    const recs = await Promise.all(p.ids.map((id) => g.tasks.get(id)));
    for (const r of recs) if (r && (q.token === undefined || r.owner.token === q.token) && (q.status === undefined || r.status === q.status)) found.push(r);
    more = p.more;
    after = p.ids.at(-1);
    if (!more) break;
  }
  sendJson(ex.res, 200, page(found.map(adminView), more));
}

const page = (data: { id: string }[], more: boolean) =>
  ({ object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: more });

/** A record for operators: who, what, where, how it stands, and its money; no vendor payloads. */
function adminView(t: TaskRecord) {
  return {
    id: t.id, object: 'task', family: t.family, route: t.route, model: t.model, status: t.status, progress: t.progress,
    owner: t.owner, group: t.group, channel: t.channel, upstream_id: t.upstream_id ?? null, upstream_status: t.upstream_status ?? null,
    created_at: t.created_at, updated_at: t.updated_at, completed_at: t.completed_at ?? null, error: t.error ?? null,
    quota: t.quota, submitting: Boolean(t.submitting), polls: t.polls,
  };
}
