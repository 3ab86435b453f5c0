// A request log search from a URL's query: the time range (`from`, `to`: unix seconds or ISO 8601; default the last
// day; at most 400 days), the filters, `limit` and the `cursor` a previous page gave. Every mistake is a 400 naming
// the parameter. A cursor is opaque to clients: the last record's time and id.
import { GatewayError, clip } from '../http/errors.js';
import { readRange } from './time-range.js';
import { readLimit } from './list-page.js';
import type { LogQuery, RequestRecord } from '../request-log/log-store.js';

const kinds: RequestRecord['kind'][] = ['request', 'task', 'topup'];
/** The filters a query may name, each a string compared as it is (`id` also as `request_id`). */
const filters = ['token', 'user', 'model', 'channel', 'route', 'error_code', 'id'] as const;

export function readLogQuery(q: Record<string, string>, page: { defaultLimit: number; maxLimit: number } = { defaultLimit: 100, maxLimit: 1000 }): LogQuery {
  const range = readRange(q, ['from', 'to'], 1, 400);
  const query: LogQuery = { ...range, limit: readLimit(q, page) };
  for (const f of filters) if (q[f] !== undefined) query[f] = bounded(q[f], f);
  if (q.request_id !== undefined) query.id = bounded(q.request_id, 'request_id');
  if (q.status !== undefined) {
    if (!/^[1-5][0-9]{2}$/.test(q.status)) throw new GatewayError('invalid_request', '`status` must be an HTTP status (e.g. 429)');
    query.status = Number(q.status);
  }
  if (q.kind !== undefined) {
    if (!kinds.includes(q.kind as RequestRecord['kind'])) throw new GatewayError('invalid_request', `\`kind\` must be one of: ${kinds.join(', ')}`);
    query.kind = q.kind as RequestRecord['kind'];
  }
  if (q.cursor !== undefined) query.before = readCursor(q.cursor);
  return query;
}

/** The cursor of the page after `records` (a full page): where the next one starts (a task's two records share a time and an id). */
export const cursorAfter = (r: RequestRecord) => Buffer.from(`${r.at}:${r.kind}:${r.id}`).toString('base64url');

function readCursor(raw: string): LogQuery['before'] {
  const text = /^[A-Za-z0-9_-]{1,400}$/.test(raw) ? Buffer.from(raw, 'base64url').toString('utf8') : '';
  const m = /^([0-9]{1,15}):(request|task|topup):(.{1,256})$/.exec(text);
  if (!m) throw new GatewayError('invalid_request', '`cursor` must be the `next_cursor` of a previous page');
  return { at: Number(m[1]), kind: m[2] as RequestRecord['kind'], id: m[3] };
}

function bounded(v: string, name: string): string {
  if (v.length > 256) throw new GatewayError('invalid_request', `\`${name}\` is too long (got ${clip(v, 40)})`);
  return v;
}
