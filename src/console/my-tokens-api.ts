// A console user's own tokens, through the same TokenAdmin as the admin API: list, create (in the user's group, with
// caps and a model allow-list; no money: a token spends from the user's wallet), revoke and rotate. Another user's
// token is not found (404), exactly as a token that does not exist.
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { readJson } from '../pipeline/read-request.js';
import type { Exchange, Member } from '../pipeline/exchange.js';
import type { Gateway } from '../pipeline/gateway.js';
import { TokenAdmin, type TokenInput } from '../admin/token-admin.js';
import { refused as admin } from '../admin/admin-refusal.js';

/** Live tokens one user may hold: enough for every device and job, bounded so a session cannot fill the store. */
export const maxLiveTokens = 100;

export async function listMyTokens(ex: Exchange, m: Member): Promise<void> {
  const data = (await tokenAdmin(ex.g).list()).filter((t) => t.user === m.user.id);
  sendJson(ex.res, 200, { object: 'list', data });
}

export async function createMyToken(ex: Exchange, m: Member): Promise<void> {
  const body = (await readJson(ex, m.route)) as Pick<TokenInput, 'name' | 'models' | 'cap' | 'period_cap' | 'cap_period' | 'expires_at'>;
  const tokens = tokenAdmin(ex.g);
  const live = (await tokens.list()).filter((t) => t.user === m.user.id && !t.revoked).length;
  if (live >= maxLiveTokens) throw new GatewayError('conflict', `You hold ${maxLiveTokens} live tokens, the most there may be: revoke one first`);
  const { key, token } = await admin(() => tokens.create({ ...body, user: m.user.id, group: m.user.group }));
  // The key is shown this once: only its hash is stored.
  sendJson(ex.res, 201, { ...token, key }, { 'cache-control': 'no-store' });
}

export async function revokeMyToken(ex: Exchange, m: Member): Promise<void> {
  const id = await ownToken(ex.g, m, m.params.id);
  sendJson(ex.res, 200, await admin(() => tokenAdmin(ex.g).revoke(id)));
}

/** A new key for the same token (same id, caps and models); the old key stops working. */
export async function rotateMyToken(ex: Exchange, m: Member): Promise<void> {
  const id = await ownToken(ex.g, m, m.params.id);
  const { key, token } = await admin(() => tokenAdmin(ex.g).rotate(id));
  sendJson(ex.res, 200, { ...token, key }, { 'cache-control': 'no-store' });
}

/** The id when it names a token of this user; otherwise 404, the same answer as for no token at all. */
export async function ownToken(g: Gateway, m: Member, id: string): Promise<string> {
  const rec = /^tok_[0-9a-f]{1,64}$/.test(id) ? await g.tokens.byId(id) : undefined;
  if (!rec || rec.user !== m.user.id) throw new GatewayError('token_not_found', `No token ${clip(id)}`);
  return rec.id;
}

const tokenAdmin = (g: Gateway) => new TokenAdmin(g.store, g.tokens, () => g.runtime, (r) => g.requestLog?.add(r), g.accounts);
