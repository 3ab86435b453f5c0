// Policy `models`: the models the calling token may use, in OpenAI's list shape.
import type { ServerResponse } from 'node:http';
import type { Gateway } from '../gateway.js';
import type { RequestContext } from '../pipeline/context.js';
import { visibleModels } from '../pipeline/model-access.js';

const created = 1_700_000_000; // a fixed date: the list is config, not an event

export function serveModels(g: Gateway, ctx: RequestContext, res: ServerResponse): void {
  const data = visibleModels(g, ctx.token!).map((id) => ({
    id, object: 'model', created, owned_by: g.runtime.models.get(id)?.owned_by ?? 'switchyard',
  }));
  const body = JSON.stringify({ object: 'list', data });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
