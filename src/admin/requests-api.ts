// The request log for operators: GET /admin/requests (a search, newest first, a page at a time by cursor),
// GET /admin/requests/{id} (one request's, task's or topup's records, whole) and GET /admin/requests/export (every
// record a search finds, as CSV or JSON Lines, streamed page by page in bounded memory). Records reach the log a
// moment after the request ends (the writer's flush interval).
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import type { Exchange, Matched } from '../pipeline/exchange.js';
import type { RequestLog } from '../request-log/request-log.js';
import { cursorAfter, readLogQuery } from './log-query.js';
import type { LogQuery, RequestRecord } from '../request-log/log-store.js';
import { csvHeader, csvRow } from '../request-log/csv.js';

export async function serveRequests(ex: Exchange): Promise<void> {
  sendJson(ex.res, 200, await searchPage(logOf(ex), readLogQuery(queryOf(ex.ctx.url))));
}

export async function serveRequest(ex: Exchange, m: Matched): Promise<void> {
  sendJson(ex.res, 200, { object: 'list', data: await recordsOf(logOf(ex), m.params.id) });
}

/** A page and the cursor of the next: one more record is read than asked, to know whether there is a next. */
export async function searchPage(log: RequestLog, search: LogQuery) {
  const found = await read(log.store.search({ ...search, limit: search.limit + 1 }));
  const data = found.slice(0, search.limit);
  const more = found.length > search.limit;
  return { object: 'list', data, has_more: more, next_cursor: more ? cursorAfter(data.at(-1)!) : null };
}

/** Throws not_found (404) when the log has no record of that id (or, with `only`, none of that token's or user's). */
export async function recordsOf(log: RequestLog, id: string, only: { token?: string; user?: string } = {}): Promise<RequestRecord[]> {
  const mine = (r: RequestRecord) => (only.token === undefined || r.token === only.token) && (only.user === undefined || r.user === only.user);
  const records = (await read(log.store.get(id))).filter(mine);
  if (!records.length) throw new GatewayError('not_found', `No request ${clip(id)} in the request log`);
  return records;
}

export async function exportRequests(ex: Exchange): Promise<void> {
  const log = logOf(ex);
  const q = queryOf(ex.ctx.url);
  const format = q.format ?? 'jsonl';
  if (format !== 'csv' && format !== 'jsonl') throw new GatewayError('invalid_request', '`format` must be csv or jsonl');
  const query = readLogQuery({ ...q, limit: '1000' });
  ex.res.writeHead(200, {
    'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
    'content-disposition': `attachment; filename="requests-${new Date(query.from).toISOString().slice(0, 10)}.${format}"`,
  });
  if (format === 'csv') ex.res.write(csvHeader());
  for (let page = await read(log.store.search(query)); page.length; page = await read(log.store.search({ ...query, before: last(page) }))) {
    if (ex.ctx.abort.signal.aborted) return;
    const text = page.map((r) => (format === 'csv' ? csvRow(r) : `${JSON.stringify(r)}\n`)).join('');
    // One page in memory at a time: the next is read once the client has taken this one.
    if (!ex.res.write(text)) await new Promise((r) => { ex.res.once('drain', r); ex.res.once('close', r); });
    if (page.length < query.limit) break;
  }
  ex.res.end();
}

const last = (page: RequestRecord[]) => ({ at: page.at(-1)!.at, id: page.at(-1)!.id, kind: page.at(-1)!.kind });

/** A database that does not answer is a 503 for the caller, and why for the operator. */
function read<T>(p: Promise<T>): Promise<T> {
  return p.catch((err: unknown) => {
    throw new GatewayError('request_log_unavailable').because(`the request log store: ${(err as Error).message?.slice(0, 300)}`);
  });
}

/** The gateway's request log; a gateway that keeps none (SWITCHYARD_LOG_STORE=off) answers 404. */
export function logOf(ex: Exchange): RequestLog {
  if (!ex.g.requestLog) throw new GatewayError('not_found', 'This gateway keeps no request log (SWITCHYARD_LOG_STORE=off)');
  return ex.g.requestLog;
}
