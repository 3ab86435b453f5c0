// Policy `task`, action `page`: the caller's tasks of the route's family, a page at a time, in OpenAI's list shape
// `{object: "list", data, first_id, last_id, has_more}`, paged by the `after`, `limit` and `order` query
// parameters. Each item is the task as a query of it answers (the route's `answer`, else the video object), as
// stored: a page asks no vendor anything (the poller keeps records current). Only the caller's tasks are read.
import { GatewayError, clip } from '../http/errors.js';
import { baseUrlOf } from '../http/base-url.js';
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';
import type { CatalogQuery } from '../store/task-catalog.js';
import { taskBody } from '../tasks/answer.js';
import type { TaskRecord } from '../records/task-record.js';

// OpenAI's list conventions.
const defaultLimit = 20;
const maxLimit = 100;
/** Catalog reads per page at most, when entries of expired records have to be skipped. */
const maxReads = 4;

export async function pageTasks(ex: Exchange, c: Caller): Promise<void> {
  const q = readQuery(ex.ctx.url);
  const query: CatalogQuery = { user: c.token.user, family: c.route.task!.families![0], limit: q.limit, order: q.order, after: q.after };
  const { found, more } = await collect(ex, c, query);
  const base = baseUrlOf(ex.req);
  const data = await Promise.all(found.map((r) => taskBody(ex.g, c.route, r, base)));
  sendJson(ex.res, 200, { object: 'list', data, first_id: found[0]?.id ?? null, last_id: found.at(-1)?.id ?? null, has_more: more });
}

/** Throws invalid_request (400) naming the parameter. */
function readQuery(url: string): { after?: string; limit: number; order: 'asc' | 'desc' } {
  const q = queryOf(url);
  const limit = q.limit === undefined ? defaultLimit : /^[0-9]{1,3}$/.test(q.limit) ? Number(q.limit) : NaN;
  if (!(limit >= 1 && limit <= maxLimit)) throw new GatewayError('invalid_request', `\`limit\` must be a whole number from 1 to ${maxLimit}`);
  const order = q.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new GatewayError('invalid_request', '`order` must be `asc` or `desc`');
  return { after: q.after || undefined, limit, order };
}

/**
 * Records of the catalog's next entries, skipping entries whose record expired (removed afterwards, so the cursor
 * of a later read still exists) and tasks still being submitted (nobody has their id yet).
 */
async function collect(ex: Exchange, c: Caller, query: CatalogQuery): Promise<{ found: TaskRecord[]; more: boolean }> {
  const { g } = ex;
  const found: TaskRecord[] = [];
  const expired: string[] = [];
  let more = false;
  for (let read = 0, after = query.after; read < maxReads && found.length < query.limit; read++) {
    const page = await g.store.catalog.page({ ...query, after, limit: query.limit - found.length });
    if (!page && read === 0) throw new GatewayError('invalid_request', `\`after\` must be the id of one of your tasks listed here (got ${clip(after ?? '')})`);
    if (!page) break; // the cursor went away meanwhile: what was found is a page, and its last id the next cursor
    const recs = await Promise.all(page.ids.map((id) => g.tasks.get(id)));
    page.ids.forEach((id, i) => {
      const rec = recs[i];
      if (!rec) expired.push(id);
      else if (!rec.submitting && rec.owner.user === c.token.user) found.push(rec);
    });
    more = page.more;
    if (!more) break;
    after = page.ids.at(-1);
  }
  await Promise.all(expired.map((id) => g.store.catalog.remove(id)));
  return { found, more };
}
