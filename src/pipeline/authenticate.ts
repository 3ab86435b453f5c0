// Stage: reads `Authorization: Bearer <key>` (or the route dialect's key header, e.g. x-api-key, or its key query
// parameter, e.g. ?key=) and resolves the live token record; on the admin API, checks the operator's key.
import { hash, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../http/errors.js';
import type { Caller, Exchange, Matched } from './exchange.js';
import { queryOf } from './match-route.js';

/**
 * Throws invalid_api_key (401); one message for unknown, revoked and expired keys and secrets, and for a secret on a
 * route it does not open: the answer must not reveal which.
 */
export async function authenticate(ex: Exchange, m: Matched): Promise<Caller> {
  const key = keyOf(ex, m);
  if (ex.g.runtime.secretPrefixes.some((p) => key.startsWith(p))) {
    const opened = await ex.g.secrets.open(key, m.route.id);
    if (!opened) throw new GatewayError('invalid_api_key', 'Invalid API key');
    ex.ctx.token = opened.token;
    return { ...m, token: opened.token, grant: opened.grant };
  }
  const token = await ex.g.tokens.authenticate(key);
  if (!token || (await userDisabled(ex, token.user))) throw new GatewayError('invalid_api_key', 'Invalid API key');
  ex.ctx.token = token;
  return { ...m, token };
}

/** A disabled user's tokens are refused like unknown keys. */
async function userDisabled(ex: Exchange, user: string): Promise<boolean> {
  return user.startsWith('usr_') && Boolean((await ex.g.accounts.users.get(user))?.disabled);
}

function keyOf(ex: Exchange, m: Matched): string {
  const header = ex.req.headers.authorization;
  const offered = !header && m.route.realtime?.keySubprotocol ? subprotocolKey(ex, m.route.realtime.keySubprotocol) : undefined;
  if (offered) return offered;
  const alt = m.route.keyHeader ? ex.req.headers[m.route.keyHeader] : undefined;
  if (!header && typeof alt === 'string' && alt.trim()) return alt.trim();
  const inQuery = !header && m.route.keyQuery ? queryOf(ex.ctx.url)[m.route.keyQuery]?.trim() : undefined;
  if (inQuery) return inQuery;
  if (!header) throw new GatewayError('invalid_api_key', `Missing API key: send ${hint(m)}`);
  const key = bearer.exec(header);
  if (!key) throw new GatewayError('invalid_api_key', `Malformed Authorization header: expected ${hint(m)}`);
  return key[1];
}

const bearer = /^Bearer\s+(\S+)\s*$/i;

/** A browser's WebSocket cannot set headers: its key rides in a subprotocol (the route's `key_subprotocol` and the key). */
function subprotocolKey(ex: Exchange, prefix: string): string | undefined {
  const offered = ex.req.headers['sec-websocket-protocol'];
  if (typeof offered !== 'string') return undefined;
  for (const p of offered.split(',')) {
    const t = p.trim();
    if (t.startsWith(prefix) && t.length > prefix.length) return t.slice(prefix.length);
  }
  return undefined;
}

/** How a key may be sent on this route: built only for a refusal, never on the way of an accepted request. */
const hint = (m: Matched) =>
  ['Authorization: Bearer <key>', m.route.keyHeader && `${m.route.keyHeader}: <key>`, m.route.keyQuery && `?${m.route.keyQuery}=<key>`,
    m.route.realtime?.keySubprotocol && `the WebSocket subprotocol ${m.route.realtime.keySubprotocol}<key>`]
    .filter(Boolean).join(' or ');

/**
 * The operator's key, compared in constant time (as digests, so the key's length leaks nothing either). A client
 * token is told it may not (403); anything else is 401 as for any other route.
 */
export async function authenticateAdmin(ex: Exchange, m: Matched): Promise<void> {
  const key = keyOf(ex, m);
  const want = ex.g.runtime.adminKeyHash;
  if (want && timingSafeEqual(hash('sha256', key, 'buffer'), want)) return;
  if (await ex.g.tokens.authenticate(key)) throw new GatewayError('admin_key_required');
  throw new GatewayError('invalid_api_key', 'Invalid admin key');
}
