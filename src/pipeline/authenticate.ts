// Stage: reads `Authorization: Bearer <key>` (or the route dialect's key header, e.g. x-api-key, or its key query
// parameter, e.g. ?key=) and resolves the live token record; on the admin API, checks the operator's key.
import { hash, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../http/errors.js';
import type { Caller, Exchange, Matched } from './exchange.js';
import { queryOf } from './match-route.js';

/** Throws invalid_api_key (401); one message for unknown, revoked and expired keys: the answer must not reveal which. */
export async function authenticate(ex: Exchange, m: Matched): Promise<Caller> {
  const token = await ex.g.tokens.authenticate(keyOf(ex, m));
  if (!token) throw new GatewayError('invalid_api_key', 'Invalid API key');
  ex.ctx.token = token;
  return { ...m, token };
}

function keyOf(ex: Exchange, m: Matched): string {
  const header = ex.req.headers.authorization;
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

/** How a key may be sent on this route: built only for a refusal, never on the way of an accepted request. */
const hint = (m: Matched) =>
  ['Authorization: Bearer <key>', m.route.keyHeader && `${m.route.keyHeader}: <key>`, m.route.keyQuery && `?${m.route.keyQuery}=<key>`]
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
