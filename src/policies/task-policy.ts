// Policy `task`: routes act on task records by their configured action.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway.js';
import type { RequestContext } from '../pipeline/context.js';
import { submitTask } from '../tasks/submit.js';
import { queryTask, listTasks } from '../tasks/query.js';
import { serveContent } from '../tasks/content.js';
import { relayTask } from '../tasks/relay.js';

export function serveTask(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  switch (ctx.route!.task!.action) {
    case 'submit': return submitTask(g, ctx, req, res);
    case 'query': return queryTask(g, ctx, req, res);
    case 'list': return listTasks(g, ctx, req, res);
    case 'content': return serveContent(g, ctx, req, res);
    case 'relay': return relayTask(g, ctx, res);
  }
}
