// Keeps a chat answer for routes with `store` (unless the request turned keeping off): the answer as the client got
// it, and the conversation items a later request continuing it starts from (its dialect's `conversation`).
import type { Exchange, Priced } from '../pipeline/exchange.js';

/** Never throws: the answer is already sent; a failed write is logged and the answer simply cannot be continued. */
export async function remember(ex: Exchange, p: Priced, result: unknown, keptBy?: string): Promise<void> {
  const store = p.route.store;
  const conversation = p.route.dialect?.client?.conversation;
  if (!store || !conversation || (store.enabledBy && p.body[store.enabledBy] === false)) return;
  const id = (result as { id?: unknown } | null)?.id;
  if (typeof id !== 'string' || !id) return;
  try {
    const previous = p.previous?.items ?? [];
    const items = await conversation.run(null, { request: p.body, response: result, previous });
    const list = items === undefined ? [] : Array.isArray(items) ? items : [items];
    const record = { id, created_at: Math.floor(Date.now() / 1000), response: result, items: list, ...(keptBy ? { kept_by: keptBy } : {}) };
    await ex.g.conversations.put(store.namespace, p.token.user, record, store.ttlMs, previous);
  } catch (err) {
    ex.g.log.warn({ req_id: ex.ctx.id, err: (err as Error).message }, 'answer not kept');
  }
}
