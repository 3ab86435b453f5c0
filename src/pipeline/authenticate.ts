// Reads `Authorization: Bearer <key>` and resolves the live token record.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../http/errors.js';
import type { TokenStore, TokenRecord } from '../store/token-store.js';

export async function authenticate(req: IncomingMessage, tokens: TokenStore): Promise<TokenRecord> {
  const header = req.headers.authorization;
  if (!header) throw new GatewayError('invalid_api_key', 'Missing API key: send Authorization: Bearer <key>');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw new GatewayError('invalid_api_key', 'Malformed Authorization header: expected Bearer <key>');
  const rec = await tokens.authenticate(m[1]);
  // One message for unknown, revoked and expired keys: the answer must not reveal which.
  if (!rec) throw new GatewayError('invalid_api_key', 'Invalid API key');
  return rec;
}
