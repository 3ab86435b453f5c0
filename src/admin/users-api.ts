// /admin/users: create, list, read and change users, top up their wallets and list their tokens, through the same
// UserAdmin as `switchyard user …`. {id} is a user's id or name.
import { GatewayError } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import { readJson } from '../pipeline/read-request.js';
import type { Exchange, Matched } from '../pipeline/exchange.js';
import type { UserChange, UserInput } from './user-admin.js';
import { listPage } from './list-page.js';
import { refused } from './admin-refusal.js';
import { tokenAdmin, userAdmin } from './gateway-admins.js';
import { topupRef } from './idempotency-key.js';

const page = { defaultLimit: 100, maxLimit: 1000 };

export async function createUser(ex: Exchange, m: Matched): Promise<void> {
  const body = (await readJson(ex, m.route)) as unknown as UserInput;
  sendJson(ex.res, 201, await refused(() => userAdmin(ex.g).create(body)));
}

/** `?team=` (an id or name; 404 when there is none) `&disabled=true|false`, paged by `limit` and `after`, oldest first. */
export async function listUsers(ex: Exchange): Promise<void> {
  const q = queryOf(ex.ctx.url);
  const disabled = q.disabled === undefined ? undefined : q.disabled === 'true' ? true : q.disabled === 'false' ? false : badDisabled();
  sendJson(ex.res, 200, listPage(await refused(() => userAdmin(ex.g).list({ team: q.team, disabled })), q, page));
}

export async function getUser(ex: Exchange, m: Matched): Promise<void> {
  sendJson(ex.res, 200, await refused(() => userAdmin(ex.g).get(m.params.id)));
}

export async function updateUser(ex: Exchange, m: Matched): Promise<void> {
  const change = (await readJson(ex, m.route)) as UserChange;
  sendJson(ex.res, 200, await refused(() => userAdmin(ex.g).update(m.params.id, change)));
}

/** Into the user's wallet; an `Idempotency-Key` makes a retry count once, whether the user is named by id or name. */
export async function topupUser(ex: Exchange, m: Matched): Promise<void> {
  const { amount } = (await readJson(ex, m.route)) as { amount: number };
  const users = userAdmin(ex.g);
  const user = await refused(() => users.find(m.params.id));
  const ref = topupRef(ex, user.id);
  sendJson(ex.res, 200, await refused(() => users.topup(user.id, amount, ref, 'admin')));
}

/** The user's tokens (never their keys), paged like GET /admin/tokens. */
export async function userTokens(ex: Exchange, m: Matched): Promise<void> {
  const user = await refused(() => userAdmin(ex.g).find(m.params.id));
  sendJson(ex.res, 200, listPage(await tokenAdmin(ex.g).list(user.id), queryOf(ex.ctx.url), page));
}

function badDisabled(): never {
  throw new GatewayError('invalid_request', '`disabled` must be `true` or `false`');
}
