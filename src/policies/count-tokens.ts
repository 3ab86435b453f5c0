// Policy `count_tokens`: the prompt-token estimate billing would reserve for this request, without calling a vendor.
// The request is read and its model resolved like a proxied one (schema, access, a continued conversation).
import { sendJson } from '../http/send-json.js';
import { readRequest } from '../pipeline/read-request.js';
import { resolveModel } from '../pipeline/resolve-model.js';
import { recall } from '../pipeline/recall.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';

export async function countTokens(ex: Exchange, c: Caller): Promise<void> {
  const r = await recall(ex, await resolveModel(ex, await readRequest(ex, c, 'json')));
  const bytes = r.raw.length + (r.previous?.bytes ?? 0);
  const tokens = Math.ceil(bytes / ex.g.runtime.promptBytesPerToken);
  sendJson(ex.res, 200, await c.route.answer!.run({}, { tokens, model: r.model }));
}
