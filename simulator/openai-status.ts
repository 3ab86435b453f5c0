// `[sim status=N]` on every OpenAI-shaped endpoint of the simulator (chat, embeddings, moderations, audio): OpenAI's
// canned error for N instead of an answer, or for 0 a dropped connection.
import { type Directives, intDirective } from './directives.js';
import { type Ctx, sendJson, statusError } from './http.js';

/** True once it answered (or dropped the connection) for the directive; false when there is none. */
export function directedFailure(ctx: Ctx, d: Directives): boolean {
  const status = intDirective(d, 'status');
  if (status === 0) {
    ctx.req.socket.destroy();
    return true;
  }
  if (status === undefined || status < 400 || status > 599) return false;
  const canned = statusError(status);
  sendJson(ctx.res, status, canned.body, canned.headers);
  return true;
}
