// OpenAI's list shape for the admin listings: `{object: "list", data, first_id, last_id, has_more}`, paged by
// `limit` and `after` (the id of the last item of the previous page).
import { GatewayError, clip } from '../http/errors.js';

export interface PageLimits { defaultLimit: number; maxLimit: number }

/** Throws invalid_request (400) naming `limit` or `after`. */
export function readLimit(q: Record<string, string>, l: PageLimits): number {
  const limit = q.limit === undefined ? l.defaultLimit : /^[0-9]{1,5}$/.test(q.limit) ? Number(q.limit) : NaN;
  if (!(limit >= 1 && limit <= l.maxLimit)) throw new GatewayError('invalid_request', `\`limit\` must be a whole number from 1 to ${l.maxLimit}`);
  return limit;
}

export function listPage<T extends { id: string }>(items: T[], q: Record<string, string>, l: PageLimits) {
  const limit = readLimit(q, l);
  let start = 0;
  if (q.after !== undefined) {
    start = items.findIndex((i) => i.id === q.after) + 1;
    if (start === 0) throw new GatewayError('invalid_request', `\`after\` must be the id of an item of this listing (got ${clip(q.after)})`);
  }
  const data = items.slice(start, start + limit);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < items.length };
}
