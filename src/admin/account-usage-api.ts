// GET /admin/users/{id}/usage and GET /admin/teams/{id}/usage: a user's or a team's spending over `from`..`to`
// (unix seconds or ISO 8601; default the last 30 days; at most 400), by `group_by`, as JSON or (`format=csv`) as a
// CSV file with a header row. A team's covers its members of now (src/admin/account-reports.ts).
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import type { Exchange, Matched } from '../pipeline/exchange.js';
import { reportCsv, type Report, type ReportQuery } from './account-reports.js';
import { refused } from './admin-refusal.js';
import { accountReports } from './gateway-admins.js';

export async function userUsage(ex: Exchange, m: Matched): Promise<void> {
  const { query, csv } = readQuery(ex);
  send(ex, await refused(() => accountReports(ex.g).user(m.params.id, query)), csv);
}

export async function teamUsage(ex: Exchange, m: Matched): Promise<void> {
  const { query, csv } = readQuery(ex);
  send(ex, await refused(() => accountReports(ex.g).team(m.params.id, query)), csv);
}

function readQuery(ex: Exchange): { query: ReportQuery; csv: boolean } {
  const q = queryOf(ex.ctx.url);
  const format = q.format ?? 'json';
  if (format !== 'json' && format !== 'csv') throw new GatewayError('invalid_request', `\`format\` must be json or csv (got ${clip(format, 40)})`);
  return { query: { from: q.from, to: q.to, group_by: q.group_by }, csv: format === 'csv' };
}

function send(ex: Exchange, r: Report, csv: boolean): void {
  if (!csv) return sendJson(ex.res, 200, r);
  const text = reportCsv(r);
  const whose = r.user?.id ?? r.team!.id;
  ex.res.writeHead(200, {
    'content-type': 'text/csv; charset=utf-8', 'content-length': Buffer.byteLength(text),
    'content-disposition': `attachment; filename="usage-${whose}-${r.from.slice(0, 10)}-by-${r.group_by}.csv"`,
  });
  ex.res.end(text);
}
