// Policy `models`: the models the calling token may use, in OpenAI's list shape; with an `{id}` (or `{model}`) path
// parameter, one of them as OpenAI's model object (any other id, hidden or not the token's, is 404 model_not_found).
// A route with `answer` gives them in its dialect's shape instead. Each model names the endpoints that can call it
// (`supported_endpoint_types`, new-api's extension field), so a client need not find out by being refused.
import { GatewayError, clip } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { visibleModels } from '../pipeline/model-access.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';

const created = 1_700_000_000; // a fixed date: the list is config, not an event

type Listed = { id: string; endpoints: readonly string[] };

export async function serveModels(ex: Exchange, c: Caller): Promise<void> {
  const visible = visibleModels(ex.g, c.token);
  const id = c.params.id ?? c.params.model;
  const answer = c.route.answer;
  if (id === undefined) {
    if (answer) return sendJson(ex.res, 200, await answer.run({}, { models: visible.map((m) => modelInfo(ex, m)) }));
    return sendJson(ex.res, 200, { object: 'list', data: visible.map((m) => modelObject(ex, m)) });
  }
  const one = visible.find((m) => m.id === id);
  if (!one) throw new GatewayError('model_not_found', `The model ${clip(id)} does not exist or is not available to this token`);
  ex.ctx.model = id;
  sendJson(ex.res, 200, answer ? await answer.run({}, { model: modelInfo(ex, one) }) : modelObject(ex, one));
}

const modelObject = (ex: Exchange, m: Listed) => ({
  id: m.id, object: 'model', created, owned_by: ex.g.runtime.models.get(m.id)?.owned_by ?? 'switchyard', supported_endpoint_types: m.endpoints,
});

/** What a dialect's model list may say of a model: its name, owner, endpoints and completion limit (when the config sets one). */
function modelInfo(ex: Exchange, l: Listed) {
  const m = ex.g.runtime.models.get(l.id);
  return {
    id: l.id, owned_by: m?.owned_by ?? 'switchyard', supported_endpoint_types: l.endpoints,
    ...(m?.max_output_tokens !== undefined && { max_output_tokens: m.max_output_tokens }),
  };
}
