// Policy `stored`: the caller's kept answers (routes with `store`): GET answers one as the client first got it,
// DELETE forgets it. Another owner's id is not found, exactly like an unknown one.
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';

export async function serveStored(ex: Exchange, c: Caller): Promise<void> {
  const { namespace } = c.route.store!;
  const id = c.params.id ?? '';
  const rec = await ex.g.conversations.get(namespace, c.token.user, id);
  if (!rec) throw new GatewayError('not_found', `No answer with id '${clip(id)}' was found`);
  if (ex.req.method !== 'DELETE') return sendJson(ex.res, 200, rec.response);
  await ex.g.conversations.delete(namespace, c.token.user, id);
  const object = (rec.response as { object?: unknown } | null)?.object;
  sendJson(ex.res, 200, { id, object: typeof object === 'string' ? object : namespace, deleted: true });
}
