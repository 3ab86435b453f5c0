// Stage: a request that continues a kept answer (route `store.continues`, e.g. previous_response_id) gets that
// conversation, so it can be translated with it and its size counted in the price.
import { GatewayError, clip } from '../http/errors.js';
import type { Exchange, Recalled, Resolved } from './exchange.js';

/** Throws invalid_request (400, as OpenAI answers an unknown previous_response_id) naming the field: an unknown id (another owner's too), or a conversation too long. */
export async function recall(ex: Exchange, r: Resolved): Promise<Recalled> {
  const store = r.route.store;
  const field = store?.continues;
  const id = field ? r.body[field] : undefined;
  if (!store || id === undefined || id === null) return r;
  if (typeof id !== 'string' || !id) throw new GatewayError('invalid_request', `\`${field}\` must be a non-empty string`);
  const previous = await ex.g.conversations.get(store.namespace, r.token.user, id);
  if (!previous) throw new GatewayError('invalid_request', `\`${field}\`: '${clip(id)}' not found`);
  if (previous.bytes + r.raw.length > store.maxBytes) {
    throw new GatewayError('invalid_request', `\`${field}\`: the conversation would exceed ${store.maxBytes} bytes; start a new one`);
  }
  return { ...r, previous };
}
