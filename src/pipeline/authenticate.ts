// Stage: reads `Authorization: Bearer <key>` and resolves the live token record.
import { GatewayError } from '../http/errors.js';
import type { Caller, Exchange, Matched } from './exchange.js';

/** Throws invalid_api_key (401); one message for unknown, revoked and expired keys: the answer must not reveal which. */
export async function authenticate(ex: Exchange, m: Matched): Promise<Caller> {
  const header = ex.req.headers.authorization;
  if (!header) throw new GatewayError('invalid_api_key', 'Missing API key: send Authorization: Bearer <key>');
  const key = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!key) throw new GatewayError('invalid_api_key', 'Malformed Authorization header: expected Bearer <key>');
  const token = await ex.g.tokens.authenticate(key[1]);
  if (!token) throw new GatewayError('invalid_api_key', 'Invalid API key');
  ex.ctx.token = token;
  return { ...m, token };
}
