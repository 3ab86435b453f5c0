// Policy `models`: the models the calling token may use, in OpenAI's list shape.
import { sendJson } from '../http/send-json.js';
import { visibleModels } from '../pipeline/resolve-model.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';

const created = 1_700_000_000; // a fixed date: the list is config, not an event

export async function serveModels(ex: Exchange, c: Caller): Promise<void> {
  const { runtime } = ex.g;
  const data = visibleModels(ex.g, c.token).map((id) => ({ id, object: 'model', created, owned_by: runtime.models.get(id)?.owned_by ?? 'switchyard' }));
  sendJson(ex.res, 200, { object: 'list', data });
}
