// A route's parameters: path segments from `{name}`, the query parameters its policy reads, and the headers it
// reads besides the key. Query parameters are listed here next to the file that reads them (`source`), and
// test/openapi.test.ts checks that every `q.<name>` such a file reads is listed.
import type { CompiledRoute } from '../config/runtime.js';
import { groupings } from '../store/usage.js';
import { taskStatuses } from '../admin/tasks-api.js';
import { teamGroupings, userGroupings } from '../admin/account-reports.js';

export interface Parameter { name: string; in: 'path' | 'query' | 'header'; required?: boolean; description: string; schema: Record<string, unknown> }
export interface QuerySet { source: string; parameters: Parameter[] }

const query = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }): Parameter => ({ name, in: 'query', description, schema });
const limit = (def: number, max: number) => query('limit', `How many items a page holds (default ${def}).`, { type: 'integer', minimum: 1, maximum: max, default: def });
const after = (what: string) => query('after', `The id of the last ${what} of the previous page; the page starts after it.`);
const instant = (name: string, what: string) => query(name, `${what}: unix seconds, or an ISO 8601 date (UTC midnight) or time.`);

/** A request log search's parameters (src/admin/log-query.ts), with its page size. */
function logSearch(def: number, max: number): Parameter[] {
  return [
    instant('from', 'Records that ended from (default: a day before `to`; at most 400 days)'), instant('to', 'Records that ended before (default: now)'),
    ...['token', 'user', 'model', 'channel', 'route', 'error_code'].map((f) => query(f, `Only records of this ${f.replace('_', ' ')}.`)),
    query('id', 'One request\'s, task\'s or topup\'s records.'), query('request_id', 'The same as `id`.'),
    query('status', 'Only records of this HTTP status.', { type: 'integer', minimum: 100, maximum: 599 }),
    query('kind', 'Only requests, tasks or topups.', { type: 'string', enum: ['request', 'task', 'topup'] }),
    limit(def, max), query('cursor', 'The `next_cursor` of the previous page.'),
  ];
}

/** A user's or a team's usage report (src/admin/account-usage-api.ts). */
function accountUsage(groupings: readonly string[], note: string): Parameter[] {
  return [
    instant('from', 'Start of the range (default: 30 days before `to`; at most 400 days)'), instant('to', 'End of the range, exclusive (default: now)'),
    query('group_by', `What each row sums.${note}`, { type: 'string', enum: [...groupings], default: 'model' }),
    query('format', 'JSON, or CSV with a header row (text/csv).', { type: 'string', enum: ['json', 'csv'], default: 'json' }),
  ];
}

/** By `policy:action`: the query parameters each local answer reads. */
export const queryParameters: Record<string, QuerySet> = {
  'task:page': { source: 'src/policies/task-page.ts', parameters: [
    after('task'), limit(20, 100), query('order', 'By creation time.', { type: 'string', enum: ['asc', 'desc'], default: 'desc' }),
  ] },
  'admin:token_list': { source: 'src/admin/tokens-api.ts', parameters: [
    query('user', 'Only tokens of this user.'), query('group', 'Only tokens of this group.'),
    query('revoked', 'Only revoked (`true`) or live (`false`) tokens.', { type: 'string', enum: ['true', 'false'] }),
    limit(100, 1000), after('token'),
  ] },
  'admin:user_list': { source: 'src/admin/users-api.ts', parameters: [
    query('team', 'Only the members of this team (its id or name; 404 when there is none).'),
    query('disabled', 'Only disabled (`true`) or active (`false`) users.', { type: 'string', enum: ['true', 'false'] }),
    limit(100, 1000), after('user'),
  ] },
  'admin:user_tokens': { source: 'src/admin/list-page.ts', parameters: [limit(100, 1000), after('token')] },
  'admin:user_usage': { source: 'src/admin/account-usage-api.ts', parameters: accountUsage(userGroupings, '') },
  'admin:team_list': { source: 'src/admin/list-page.ts', parameters: [limit(100, 1000), after('team')] },
  'admin:team_usage': { source: 'src/admin/account-usage-api.ts', parameters: accountUsage(teamGroupings, ' `member`: a row per member, with their name.') },
  'admin:tasks': { source: 'src/admin/tasks-api.ts', parameters: [
    query('token', 'Only tasks of this token id (404 when there is no such token).'), query('user', 'Only tasks of this user.'),
    query('status', 'Only tasks in this state.', { type: 'string', enum: taskStatuses }), query('family', 'Only tasks of this family (e.g. video).'),
    limit(50, 100), after('task'),
  ] },
  'admin:reconciliation': { source: 'src/admin/reconciliation-api.ts', parameters: [
    query('model', 'Only tasks of this model.'), query('channel', 'Only tasks of this channel.'),
    instant('from', 'Tasks created from (default: 30 days before `to`; at most 400 days)'), instant('to', 'Tasks created before (default: now)'),
    query('min_difference', 'The smallest difference listed, in units (default 1).', { type: 'integer', minimum: 0, default: 1 }),
    limit(50, 100), after('task'),
  ] },
  'admin:requests': { source: 'src/admin/log-query.ts', parameters: logSearch(100, 1000) },
  'admin:requests_export': { source: 'src/admin/requests-api.ts', parameters: [
    query('format', 'CSV, or JSON Lines (one record a line).', { type: 'string', enum: ['csv', 'jsonl'], default: 'jsonl' }),
    ...logSearch(1000, 1000).filter((p) => p.name !== 'limit' && p.name !== 'cursor'),
  ] },
  'billing:requests': { source: 'src/admin/log-query.ts', parameters: logSearch(20, 100).filter((p) => p.name !== 'token' && p.name !== 'user') },
  'admin:usage': { source: 'src/admin/usage-api.ts', parameters: [
    query('token', 'Only this token id.'), query('user', 'Only tokens of this user.'),
    instant('from', 'Start of the range (default: 30 days before `to`; at most 400 days)'), instant('to', 'End of the range, exclusive (default: now)'),
    query('group_by', 'What each row sums.', { type: 'string', enum: [...groupings], default: 'model' }),
  ] },
  'account:my_requests': { source: 'src/console/my-records-api.ts', parameters: logSearch(20, 100).map((p) => (p.name === 'user' || p.name === 'token' ? ownFilter(p) : p)) },
  'account:my_usage': { source: 'src/console/my-records-api.ts', parameters: [
    ownFilter(query('token', 'Only this token id.')), ownFilter(query('user', 'Only tokens of this user.')),
    instant('from', 'Start of the range (default: 30 days before `to`; at most 400 days)'), instant('to', 'End of the range, exclusive (default: now)'),
    query('group_by', 'What each row sums.', { type: 'string', enum: [...groupings], default: 'model' }),
  ] },
  'billing:usage': { source: 'src/policies/billing.ts', parameters: [
    instant('start_date', 'Start of the range (default: the first of this month; at most 100 days)'),
    instant('end_date', 'End of the range, exclusive (default: now)'),
  ] },
};

/** A console user's filter: their own id or token's, or 404 as for one that does not exist. */
function ownFilter(p: Parameter): Parameter {
  return { ...p, description: `${p.description} Only the user's own: another user's id is 404.` };
}

const requestId = 'A request id (`req_…`, the `x-request-id` header), a task id or a topup\'s reference.';

const pathWords: Record<string, string> = {
  task: 'The id of one of the caller\'s tasks (`task_…`); another user\'s is not found.',
  stored: 'The id of one of the caller\'s kept answers.',
  models: 'A model id the token may use.',
  admin: 'A token id (`tok_…`).',
  account: 'The id of one of the signed-in user\'s tokens (`tok_…`); another user\'s is not found (404), as a token that does not exist.',
};

/** The admin routes' path segments, by what the action is about. */
function adminWords(action: string, name: string): string | undefined {
  if (name === 'user') return 'A member: a user id (`usr_…`) or name.';
  if (action.startsWith('user_')) return 'A user id (`usr_…`) or name.';
  if (action.startsWith('team_')) return 'A team id (`team_…`) or name.';
  return undefined;
}

function pathWordsOf(route: CompiledRoute, name: string): string | undefined {
  const admin = route.policy === 'admin' ? adminWords(route.action ?? '', name) : undefined;
  if (admin || name !== 'id') return admin;
  return route.action === 'request' || route.action === 'my_request' ? requestId : pathWords[route.policy];
}

export function parametersOf(route: CompiledRoute): Parameter[] {
  const path = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]): Parameter => ({
    name, in: 'path', required: true, schema: { type: 'string' },
    description: pathWordsOf(route, name) || `The \`${name}\` segment of the path.`,
  }));
  const own = queryParameters[`${route.policy}:${route.task?.action ?? route.action}`]?.parameters ?? [];
  return [...path, ...own, ...modelQuery(route), ...headers(route)];
}

/** Query parameters a route's `model_expr` reads as `$query.<name>`. */
function modelQuery(route: CompiledRoute): Parameter[] {
  const names = new Set([...(route.modelExpr?.source ?? '').matchAll(/\$query\.([A-Za-z_][A-Za-z0-9_]*)/g)].map(([, n]) => n));
  return [...names].map((n) => query(n, 'Read to pick the model this request is billed and dispatched as.'));
}

function headers(route: CompiledRoute): Parameter[] {
  const out: Parameter[] = [];
  if (route.task?.action === 'content') {
    out.push({ name: 'Range', in: 'header', description: 'A byte range of the result, passed to where it is stored (answered 206).', schema: { type: 'string' } });
  }
  if (route.auth === 'session' && route.method !== 'GET') {
    out.push({ name: 'X-CSRF-Token', in: 'header', required: true, description: 'The session\'s CSRF token (GET /console/api/me `csrf_token`); without it, 403 csrf_refused.', schema: { type: 'string' } });
  }
  if (route.policy === 'admin' && (route.action === 'token_topup' || route.action === 'user_topup')) {
    out.push({ name: 'Idempotency-Key', in: 'header', description: 'Makes a retried topup count once (1 to 128 printable characters).', schema: { type: 'string', minLength: 1, maxLength: 128 } });
  }
  return out;
}
