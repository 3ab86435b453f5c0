// The answers of the console users' routes (policy `account`) and of the admin routes that serve the console (an
// invite, the teams): their shapes, as src/console/ and src/admin/ write them.
import type { CompiledRoute } from '../config/runtime.js';
import type { Answer } from './answer.js';

type Schema = Record<string, unknown>;

const json = (schema: Schema) => ({ 'application/json': { schema } });
const obj = (properties: Record<string, Schema>, description?: string): Schema => ({ type: 'object', ...(description && { description }), properties });
const str = { type: 'string' };
const int = { type: 'integer' };
const intOrNull = { type: ['integer', 'null'] };
const who = obj({ id: str, name: str });
const list = (items: Schema) => obj({ object: { const: 'list' }, data: { type: 'array', items } });

const token = obj({
  id: str, object: { const: 'token' }, name: { type: ['string', 'null'] }, user: str, group: str, models: { type: ['array', 'null'], items: str },
  expires_at: intOrNull, revoked: { type: 'boolean' }, created_at: int, balance: { ...int, description: 'The user\'s wallet, which the token spends from.' },
  cap: intOrNull, cap_left: intOrNull, period_cap: intOrNull, cap_period: { type: ['string', 'null'] },
}, 'A token (never its key, but where the key is answered once, in `key`).');
const withKey = { allOf: [token, obj({ key: { ...str, description: 'The key, shown this once: only its hash is kept.' } })] };

const period = obj({ key: str, starts_at: int, resets_at: int, budget: intOrNull, used: intOrNull, remaining: intOrNull }, 'The current period (ms timestamps).');
const budget = { id: str, name: str, budget: intOrNull, period: { type: ['string', 'null'] }, member_cap: intOrNull, current: period };
const team = obj({ ...budget, members: { type: 'array', items: obj({ id: str, name: str, used: intOrNull }) } });
const myTeam = obj({ ...budget, member_used: { ...intOrNull, description: 'What the user spent of `member_cap` in the period.' } }, 'The user\'s team, without its other members.');
const me = obj({
  object: { const: 'me' }, id: str, name: str, group: str, unlimited: { type: 'boolean' }, disabled: { type: 'boolean' },
  balance: { ...int, description: 'The wallet every token of the user spends from.' }, created_at: int,
  team: { oneOf: [{ type: 'null' }, myTeam] },
  models: { type: 'array', items: str, description: 'What a token of the user may be allowed (`models` of a new token).' },
  csrf_token: { ...str, description: 'Send it as X-CSRF-Token on every call but GET.' }, session_expires_at: int,
});
const session = obj({ object: { const: 'session' }, user: who, csrf_token: str, expires_at: int });
const cookie = { 'Set-Cookie': { description: 'The session: `sy_session` (`__Host-sy_session` over TLS); HttpOnly, SameSite=Strict, Path=/, Secure over TLS.', schema: str } };

const ok = (schema: Schema, status = '200', description = 'Success.'): Answer[] => [{ status, description, content: json(schema) }];

export function accountAnswers(route: CompiledRoute, records: Schema, usage: Schema): Answer[] {
  switch (route.action) {
    case 'sign_in': return [{ status: '200', description: 'Signed in: the session cookie, and the CSRF token for later calls.', content: json(session), headers: cookie }];
    case 'invite_accept': return ok(obj({ object: { const: 'invite.accepted' }, user: who }), '200', 'The password is set; sign in with it.');
    case 'sign_out': return [{ status: '200', description: 'The session is deleted and its cookie cleared.', content: json(obj({ object: { const: 'session' }, signed_out: { const: true } })), headers: cookie }];
    case 'me': return ok(me);
    case 'my_tokens': return ok(list(token));
    case 'my_token_create': return ok(withKey, '201', 'The token, and its key this once.');
    case 'my_token_rotate': return ok(withKey, '200', 'The same token with a new key, shown this once; the old key no longer works.');
    case 'my_token_revoke': return ok(token);
    case 'my_usage': return ok(usage);
    default: return ok(records);
  }
}

/** The admin routes the console's team bars and invites use. */
export function consoleAdminAnswers(route: CompiledRoute): Answer[] | undefined {
  if (route.action === 'user_invite') {
    return ok(obj({ object: { const: 'invite' }, user: who, url: { ...str, description: 'The link: the console, with the one-time code in its fragment.' }, expires_at: int }), '201', 'The invite link, shown this once.');
  }
  if (route.action === 'team_list') return ok(list(team));
  return undefined;
}
