// A console user's own usage and request log: the operator's reports and searches, narrowed to the user's records
// (every token of theirs). A filter naming another user or another user's token is 404, as a token that does not
// exist; a request id of another user's is 404, as one the log never had.
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import type { Exchange, Member } from '../pipeline/exchange.js';
import { usageReport } from '../admin/usage-api.js';
import { logOf, recordsOf, searchPage } from '../admin/requests-api.js';
import { readLogQuery } from '../admin/log-query.js';
import { ownToken } from './my-tokens-api.js';

/** GET /console/api/me/usage: the operator's usage report (`group_by`, `from`, `to`, `token`) of the user's tokens. */
export async function serveMyUsage(ex: Exchange, m: Member): Promise<void> {
  const q = await ownFilters(ex, m);
  sendJson(ex.res, 200, await usageReport(ex.g, { ...q, user: m.user.id }));
}

/** GET /console/api/me/requests: the request log search, of the user's records only. */
export async function serveMyRequests(ex: Exchange, m: Member): Promise<void> {
  const q = await ownFilters(ex, m);
  sendJson(ex.res, 200, await searchPage(logOf(ex), { ...readLogQuery(q, { defaultLimit: 20, maxLimit: 100 }), user: m.user.id }));
}

/** GET /console/api/me/requests/{id}: one request's records, when they are the user's. */
export async function serveMyRequest(ex: Exchange, m: Member): Promise<void> {
  sendJson(ex.res, 200, { object: 'list', data: await recordsOf(logOf(ex), m.params.id, { user: m.user.id }) });
}

/** The query, once its `user` and `token` (when given) are found to be the user's own. */
async function ownFilters(ex: Exchange, m: Member): Promise<Record<string, string>> {
  const q = queryOf(ex.ctx.url);
  if (q.user !== undefined && q.user !== m.user.id) throw new GatewayError('user_not_found', `No user ${clip(q.user)}`);
  if (q.token !== undefined) await ownToken(ex.g, m, q.token);
  return q;
}
