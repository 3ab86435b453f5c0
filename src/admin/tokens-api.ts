// /admin/tokens: create, list, read, change, top up and revoke client tokens, through the same TokenAdmin as the CLI.
import { GatewayError } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import { readJson } from '../pipeline/read-request.js';
import type { Exchange, Matched } from '../pipeline/exchange.js';
import type { Gateway } from '../pipeline/gateway.js';
import type { TokenChange } from '../store/token-store.js';
import { TokenAdmin, TokenAdminError, type TokenInput, type TokenView } from './token-admin.js';
import { listPage } from './list-page.js';

export async function createToken(ex: Exchange, m: Matched): Promise<void> {
  const body = (await readJson(ex, m.route)) as unknown as TokenInput;
  const { key, token } = await admin(() => tokenAdmin(ex.g).create(body));
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
  sendJson(ex.res, 200, await admin(() => tokenAdmin(ex.g).get(m.params.id)));
}

export async function updateToken(ex: Exchange, m: Matched): Promise<void> {
  const change = (await readJson(ex, m.route)) as TokenChange;
  sendJson(ex.res, 200, await admin(() => tokenAdmin(ex.g).update(m.params.id, change)));
}

/** An `Idempotency-Key` header makes a retried topup count once; without one each request is its own topup. */
export async function topupToken(ex: Exchange, m: Matched): Promise<void> {
  const { amount } = (await readJson(ex, m.route)) as { amount: number };
  const key = ex.req.headers['idempotency-key'];
  if (key !== undefined && (typeof key !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(key))) {
    throw new GatewayError('invalid_request', '`Idempotency-Key` must be 1 to 128 printable characters');
  }
  const ref = key ? `idem:${m.params.id}:${key}` : ex.ctx.id;
  sendJson(ex.res, 200, await admin(() => tokenAdmin(ex.g).topup(m.params.id, amount, ref, 'admin')));
}

export async function revokeToken(ex: Exchange, m: Matched): Promise<void> {
  sendJson(ex.res, 200, await admin(() => tokenAdmin(ex.g).revoke(m.params.id)));
}

/** The gateway's TokenAdmin: it holds nothing of its own, and its topups go to the gateway's request log. */
const tokenAdmin = (g: Gateway) => new TokenAdmin(g.store, g.tokens, () => g.runtime, (r) => g.requestLog?.add(r));

/**
 * The admin code paths' refusals in the contract's shape: 404 for a missing token, user or team, 409 for a change the
 * current state refuses, else 400 naming the field.
 */
export async function admin<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof TokenAdminError)) throw err;
    const code = err.notFound ? (`${err.what}_not_found` as const) : err.conflict ? 'conflict' : 'invalid_request';
    throw new GatewayError(code, err.field && !err.message.includes('`') ? `\`${err.field}\`: ${err.message}` : err.message);
  }
}

function badRevoked(): never {
  throw new GatewayError('invalid_request', '`revoked` must be `true` or `false`');
}
