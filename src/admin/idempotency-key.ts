// A topup's reference from its `Idempotency-Key` header: a retried topup with the same key counts once; without one
// each request is its own topup (its request id).
import { GatewayError } from '../http/errors.js';
import type { Exchange } from '../pipeline/exchange.js';

/** `owner`: what the topup is for (a token or user id), so one key used for two of them is two topups. */
export function topupRef(ex: Exchange, owner: string): string {
  const key = ex.req.headers['idempotency-key'];
  if (key !== undefined && (typeof key !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(key))) {
    throw new GatewayError('invalid_request', '`Idempotency-Key` must be 1 to 128 printable characters');
  }
  return key ? `idem:${owner}:${key}` : ex.ctx.id;
}
