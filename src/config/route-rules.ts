// Rules a route must keep beyond its schema: its dialect exists and has the parts its policy needs; the admin and
// billing policies name one of their actions.
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
}

const actions: Partial<Record<string, string[]>> = {
  admin: ['token_create', 'token_list', 'token_get', 'token_update', 'token_topup', 'token_revoke', 'usage', 'tasks', 'reconciliation', 'requests', 'request', 'requests_export', 'channels', 'reload'],
  billing: ['subscription', 'usage', 'requests', 'request'],
};

/** The admin and billing policies name an action of theirs; the admin API takes the operator's key and nothing else. */
export function actionRules(r: RoutesFile['routes'][number], p: string, at: Report): void {
  if ((r.policy === 'admin') !== (r.auth === 'admin')) {
    at('error', `${p}/auth`, r.policy === 'admin' ? 'policy `admin` needs `auth: admin`' : '`auth: admin` is for policy `admin` only');
  }
  const allowed = actions[r.policy];
  if (!allowed) { if (r.action) at('error', `${p}/action`, `policy \`${r.policy}\` takes no \`action\``); return; }
  if (!r.action || !allowed.includes(r.action)) at('error', `${p}/action`, `policy \`${r.policy}\` needs \`action\`, one of: ${allowed.join(', ')}`);
}
