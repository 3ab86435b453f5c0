// Rules a route must keep beyond its schema: its dialect exists and has the parts its policy needs (and a key in the
// query stays out of what goes upstream); the admin, billing, files and account policies name one of their actions.
import type { Diagnostic } from './diagnostics.js';
import type { RoutesFile } from '../types/generated/routes.js';

type Report = (level: Diagnostic['level'], pointer: string, message: string) => void;

/** A route's dialect must have a client side; `store` needs one with `conversation`; policies need their parts. */
export function routeDialectRules(routes: RoutesFile, r: RoutesFile['routes'][number], p: string, at: Report): void {
  const d = r.dialect ? routes.dialects?.[r.dialect] : undefined;
  if (r.dialect && !d) at('error', `${p}/dialect`, `unknown dialect "${r.dialect}": not in \`dialects\`, and no file dialects/${r.dialect}.yaml`);
  else if (r.dialect && !d?.client) at('error', `${p}/dialect`, `dialect "${r.dialect}" has no \`client\` side`);
  if (r.store && r.policy === 'stream' && !d?.client?.conversation) at('error', `${p}/store`, 'a stream route with `store` needs a dialect whose client side has `conversation`');
  if (r.policy === 'stored' && !r.store) at('error', p, 'policy `stored` needs `store` (the namespace it reads)');
  if (r.policy === 'count_tokens' && !r.answer) at('error', p, 'policy `count_tokens` needs `answer`');
  // A passthrough route sends the client's query upstream as it came: a key in it would reach the vendor.
  if (r.policy === 'passthrough' && (r.key_query ?? d?.key_query)) at('error', r.key_query ? `${p}/key_query` : `${p}/dialect`, 'a `passthrough` route sends its query upstream: it cannot take the key in the query (`key_query`)');
}

const actions: Partial<Record<string, string[]>> = {
  admin: ['token_create', 'token_list', 'token_get', 'token_update', 'token_topup', 'token_revoke',
    'user_create', 'user_list', 'user_get', 'user_update', 'user_topup', 'user_tokens', 'user_usage', 'user_invite', 'team_create', 'team_list', 'team_get', 'team_update', 'team_member_add', 'team_member_remove', 'team_usage',
    'usage', 'tasks', 'reconciliation', 'requests', 'request', 'requests_export', 'channels', 'reload'],
  billing: ['subscription', 'usage', 'requests', 'request'],
  files: ['upload', 'list', 'get', 'content', 'delete'],
  account: ['sign_in', 'invite_accept', 'sign_out', 'me', 'my_tokens', 'my_token_create', 'my_token_revoke', 'my_token_rotate', 'my_usage', 'my_requests', 'my_request'],
};

/** The account actions anyone may call (they open a session); every other one takes a session. */
const signedOut = new Set(['sign_in', 'invite_accept']);

/** The admin and billing policies name an action of theirs; the admin API takes the operator's key and nothing else. */
export function actionRules(r: RoutesFile['routes'][number], p: string, at: Report): void {
  if ((r.policy === 'admin') !== (r.auth === 'admin')) {
    at('error', `${p}/auth`, r.policy === 'admin' ? 'policy `admin` needs `auth: admin`' : '`auth: admin` is for policy `admin` only');
  }
  if (r.auth === 'session' && r.policy !== 'account') at('error', `${p}/auth`, '`auth: session` is for policy `account` only');
  if (r.policy === 'account' && r.action && (r.auth === 'session') === signedOut.has(r.action)) {
    at('error', `${p}/auth`, signedOut.has(r.action) ? `action \`${r.action}\` needs \`auth: false\`` : `action \`${r.action}\` needs \`auth: session\``);
  }
  const allowed = actions[r.policy];
  if (!allowed) { if (r.action) at('error', `${p}/action`, `policy \`${r.policy}\` takes no \`action\``); return; }
  if (!r.action || !allowed.includes(r.action)) at('error', `${p}/action`, `policy \`${r.policy}\` needs \`action\`, one of: ${allowed.join(', ')}`);
}

/** A live-session route has its session rules, which name usage paths that exist; a secret opens live-session routes. */
export function sessionRules(routes: RoutesFile, r: RoutesFile['routes'][number], p: string, at: Report): void {
  if ((r.policy === 'realtime') !== Boolean(r.realtime)) at('error', p, r.realtime ? '`realtime` is for policy `realtime` only' : 'policy `realtime` needs `realtime` (its session rules)');
  if ((r.policy === 'client_secret') !== Boolean(r.client_secret)) at('error', p, r.client_secret ? '`client_secret` is for policy `client_secret` only' : 'policy `client_secret` needs `client_secret`');
  if ((r.policy === 'relay') !== true && r.audio) at('error', `${p}/audio`, '`audio` is for policy `relay` only');
  for (const [type, c] of Object.entries(r.realtime?.charges ?? {})) {
    if (!routes.usage?.[c.usage]) at('error', `${p}/realtime/charges/${type}/usage`, `no usage paths named "${c.usage}" in \`usage\``);
  }
  for (const id of r.client_secret?.for ?? []) {
    if (!routes.routes.some((x) => x.id === id && x.policy === 'realtime')) at('error', `${p}/client_secret/for`, `"${id}" is not a route of policy \`realtime\``);
  }
}

/**
 * An upload route has its `files` rules, naming routes that exist for its lines; a batch submit names its input file's
 * fields; `task.input_file` is for a submit only.
 */
export function fileRules(routes: RoutesFile, r: RoutesFile['routes'][number], p: string, at: Report): void {
  const upload = r.policy === 'files' && r.action === 'upload';
  if (upload !== Boolean(r.files)) at('error', upload ? p : `${p}/files`, upload ? 'action `upload` needs `files` (what it accepts)' : '`files` is for policy `files`, action `upload`, only');
  for (const [url, id] of Object.entries(r.files?.lines ?? {})) {
    const line = routes.routes.find((x) => x.id === id);
    if (!line) at('error', `${p}/files/lines/${url.replace(/~/g, '~0').replace(/\//g, '~1')}`, `no route "${id}" for the lines calling ${url}`);
    else if (line.policy !== 'stream' && line.policy !== 'json') at('error', `${p}/files/lines/${url.replace(/~/g, '~0').replace(/\//g, '~1')}`, `route "${id}" is not one a request line can follow (policy stream or json)`);
  }
  if (r.task?.input_file && r.task.action !== 'submit') at('error', `${p}/task/input_file`, '`input_file` is for a submit route only');
}
