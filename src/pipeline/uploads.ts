// Stage, for a request that sent files (a multipart upload, an inline file part): which channels carry them. Each
// channel that may take the request has its vendor body built as dispatch will build it (mapBody: a JSON vendor's
// transform sees each file as a data URI; a body that leaves one out is refused, 400 naming the field), and nothing
// is sent. Dispatch then tries only the channels that carry every file; when none does, the refusal is the answer,
// before anything is reserved. A request without files skips the stage (and its span), and so does a route whose
// policy does not map its body with buildCall (chat translates its own, passthrough sends the bytes as they came).
import type { CompiledChannel } from '../config/runtime.js';
import { GatewayError } from '../http/errors.js';
import { mapBody } from '../transform/build-call.js';
import { filesOf } from '../transform/uploads.js';
import { queryOf } from './match-route.js';
import { operationFor } from './dispatch.js';
import type { Checked, Exchange, Priced } from './exchange.js';

/** Whether the request has files for this stage to check. */
export const sendsFiles = (p: Priced) => filesOf(p.body).length > 0;

/** Throws the first channel's refusal (invalid_request, 400) when no channel carries every file. */
export async function checkUploads(ex: Exchange, p: Priced): Promise<Checked> {
  const all = ex.g.runtime.candidates(p.token.group, p.model, p.route.operation);
  const cands = p.pin ? all.filter((c) => c.id === p.pin) : all;
  const carriers = new Set<string>();
  let refusal: unknown;
  for (const channel of cands) {
    const why = await refusalOf(ex, p, channel);
    if (why === undefined) carriers.add(channel.id);
    else refusal ??= why;
  }
  if (cands.length && !carriers.size) {
    if (refusal instanceof GatewayError) throw refusal.because(`no channel of model ${p.model} carries the files the request sent (${cands.map((c) => c.id).join(', ')})`);
    // A transform that fails on this body fails the same way at dispatch: the client's request cannot be mapped.
    throw new GatewayError('invalid_request', `The request cannot be mapped for this model: ${(refusal as Error).message}`)
      .because(`the request transform of channel ${cands[0].id} failed: ${String((refusal as Error).message).slice(0, 200)}`);
  }
  return { ...p, carriers };
}

/**
 * Why the channel's body would not carry the request's files, or undefined when it does. The bindings are those the
 * policies pass ($model, $params, $query; $task_id stands for the id reserving will give the task): none of them
 * decides whether a file is carried.
 */
async function refusalOf(ex: Exchange, p: Priced, channel: CompiledChannel): Promise<unknown> {
  const bindings = { model: channel.modelMap[p.model] ?? p.model, params: p.params, query: queryOf(ex.ctx.url), task_id: 'task_unreserved' };
  try {
    await mapBody(operationFor(channel, p), p.body, bindings);
    return undefined;
  } catch (err) {
    return err;
  }
}
