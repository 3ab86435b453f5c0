// The one function that maps a unified body onto a vendor's request: the operation's `request` transform (or the
// body with the upstream model), its path (`path_expr`, or `path` with placeholders filled), and its encoding.
import type { CompiledOperation } from '../config/runtime.js';
import { encodeMultipart, type StreamBody } from '../http/multipart.js';
import { fillPath } from './fill-path.js';

export interface Call { path: string; body: Buffer | StreamBody }

/** `bindings` reach the transforms as `$name` (`$model` is the upstream model); `params` fill the path. */
export async function buildCall(op: CompiledOperation, input: Record<string, unknown>, bindings: Record<string, unknown> & { model: string }, params: Record<string, string> = {}): Promise<Call> {
  const mapped = (op.request ? await op.request.run(input, bindings) : { ...input, model: bindings.model }) ?? {};
  const path = op.pathExpr ? String(await op.pathExpr.run(input, bindings)) : fillPath(op.path, { ...params, model: bindings.model });
  const body = op.encoding === 'multipart' ? encodeMultipart(mapped as Record<string, unknown>) : Buffer.from(JSON.stringify(mapped));
  return { path, body };
}
