// Policy `models`: the models the calling token may use, in OpenAI's list shape; with an `{id}` path parameter, one
// of them as OpenAI's model object (any other id, hidden or not the token's, is 404 model_not_found).
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { visibleModels } from '../pipeline/resolve-model.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';

const created = 1_700_000_000; // a fixed date: the list is config, not an event

export async function serveModels(ex: Exchange, c: Caller): Promise<void> {
  const visible = visibleModels(ex.g, c.token);
  const id = c.params.id;
  if (id === undefined) return sendJson(ex.res, 200, { object: 'list', data: visible.map((m) => modelObject(ex, m)) });
  if (!visible.includes(id)) throw new GatewayError('model_not_found', `The model ${clip(id)} does not exist or is not available to this token`);
  ex.ctx.model = id;
  sendJson(ex.res, 200, modelObject(ex, id));
}

const modelObject = (ex: Exchange, id: string) => ({ id, object: 'model', created, owned_by: ex.g.runtime.models.get(id)?.owned_by ?? 'switchyard' });
