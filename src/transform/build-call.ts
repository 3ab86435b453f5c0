// The one function that maps a unified body onto a vendor's request: the operation's `request` transform (or the
// body with the upstream model), its path (`path_expr`, or `path` with placeholders filled), and its encoding. The
// files a client sent reach the vendor in the body's encoding or not at all (src/transform/uploads.ts): a JSON
// vendor's transform sees each as a data URI, and a body that leaves one out is refused (400 naming the field).
import { encodeMultipart, jsonWithFiles, type StreamBody } from '../http/multipart.js';
import { fillPath } from './fill-path.js';
import { base64Of, filesOf, notTaken, sendsPart, withDataUris } from './uploads.js';
import type { Transform } from './compile-transform.js';

/** What building a call reads of an operation (config's compiled operation is one): its transforms, path and encoding. */
export interface MappedOperation { path: string; request?: Transform; pathExpr?: Transform; encoding: 'json' | 'multipart' }

export interface Call { path: string; body: Buffer | StreamBody }

/** `bindings` reach the transforms as `$name` (`$model` is the upstream model); `params` fill the path. */
export async function buildCall(op: MappedOperation, input: Record<string, unknown>, bindings: Record<string, unknown> & { model: string }, params: Record<string, string> = {}): Promise<Call> {
  const { shown, body } = await mapBody(op, input, bindings);
  const path = op.pathExpr ? String(await op.pathExpr.run(shown, bindings)) : fillPath(op.path, { ...params, model: bindings.model });
  return { path, body: typeof body === 'string' ? Buffer.from(body) : encodeMultipart(body) };
}

/**
 * The vendor's body as the operation encodes it (JSON text, or the object multipart encodes), and the input its
 * transforms saw. Throws the refusal of a file the client sent that the body does not carry (see uploads.ts): it
 * runs for every attempt, and, before anything is reserved, for every channel that may take the request
 * (src/pipeline/uploads.ts), so a request is never sent without what it asked for.
 */
export async function mapBody(op: MappedOperation, input: Record<string, unknown>, bindings: Record<string, unknown> & { model: string }): Promise<{ shown: Record<string, unknown>; body: string | Record<string, unknown> }> {
  const files = filesOf(input);
  const multipart = op.encoding === 'multipart';
  const shown = files.length && !multipart ? await withDataUris(input, files) : input;
  const mapped = ((op.request ? await op.request.run(shown, bindings) : { ...shown, model: bindings.model }) ?? {}) as Record<string, unknown>;
  if (multipart) {
    const dropped = files.find((f) => !sendsPart(mapped, f.part));
    if (dropped) throw notTaken(dropped);
    return { shown, body: mapped };
  }
  const text = jsonWithFiles(mapped);
  // A file is in the body if its base64 is (in a data URI, or bare: JSON escapes no base64 character), once for each
  // file with those bytes (the same image sent twice, once dropped, is still one dropped).
  const wanted = new Map<string, number>();
  for (const f of files) {
    const b64 = await base64Of(f.part);
    const n = (wanted.get(b64) ?? 0) + 1;
    wanted.set(b64, n);
    if (b64 && occurrences(text, b64, n) < n) throw notTaken(f);
  }
  return { shown, body: text };
}

/** How many times `part` occurs in `text`, counting no further than `enough`. */
function occurrences(text: string, part: string, enough: number): number {
  let n = 0;
  for (let at = text.indexOf(part); at >= 0 && n < enough; at = text.indexOf(part, at + part.length)) n++;
  return n;
}
