// /admin/tokens: create, list, read, change, top up and revoke client tokens, through the same TokenAdmin as the CLI.
import { GatewayError } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import { readJson } from '../pipeline/read-request.js';
import type { Exchange, Matched } from '../pipeline/exchange.js';
import type { TokenChange } from '../store/token-store.js';
import type { TokenInput, TokenView } from './token-admin.js';
import { listPage } from './list-page.js';
import { refused } from './admin-refusal.js';
import { tokenAdmin } from './gateway-admins.js';
import { topupRef } from './idempotency-key.js';

export async function createToken(ex: Exchange, m: Matched): Promise<void> {
  const body = (await readJson(ex, m.route)) as unknown as TokenInput;
  const { key, token } = await refused(() => tokenAdmin(ex.g).create(body));
  // The key is shown this once: only its hash is stored.
  sendJson(ex.res, 201, { ...token, key });
}

/** `?user=&group=&revoked=true|false`, paged by `limit` (1-1000, default 100) and `after` (a token id), oldest first. */
export async function listTokens(ex: Exchange): Promise<void> {
  const q = queryOf(ex.ctx.url);
  const revoked = q.revoked === undefined ? undefined : q.revoked === 'true' ? true : q.revoked === 'false' ? false : badRevoked();
  const all = (await tokenAdmin(ex.g).list()).filter((t) =>
    (q.user === undefined || t.user === q.user) && (q.group === undefined || t.group === q.group) && (revoked === undefined || t.revoked === revoked));
  sendJson(ex.res, 200, listPage<TokenView>(all, q, { defaultLimit: 100, maxLimit: 1000 }));
}

export async function getToken(ex: Exchange, m: Matched): Promise<void> {
  sendJson(ex.res, 200, await refused(() => tokenAdmin(ex.g).get(m.params.id)));
}

export async function updateToken(ex: Exchange, m: Matched): Promise<void> {
  const change = (await readJson(ex, m.route)) as TokenChange;
  sendJson(ex.res, 200, await refused(() => tokenAdmin(ex.g).update(m.params.id, change)));
}

/** An `Idempotency-Key` header makes a retried topup count once; without one each request is its own topup. */
export async function topupToken(ex: Exchange, m: Matched): Promise<void> {
  const { amount } = (await readJson(ex, m.route)) as { amount: number };
  const ref = topupRef(ex, m.params.id);
  sendJson(ex.res, 200, await refused(() => tokenAdmin(ex.g).topup(m.params.id, amount, ref, 'admin')));
}

export async function revokeToken(ex: Exchange, m: Matched): Promise<void> {
  sendJson(ex.res, 200, await refused(() => tokenAdmin(ex.g).revoke(m.params.id)));
}

function badRevoked(): never {
  throw new GatewayError('invalid_request', '`revoked` must be `true` or `false`');
}
