// Keeps each request's body as raw bytes next to the utf8 string the router passes on, so multipart uploads survive intact.
import type { IncomingMessage } from 'node:http';

const raws = new WeakMap<IncomingMessage, Buffer>();

/** Reads the whole body once; server.ts decodes it for Ctx.raw and vendors needing bytes use rawBodyOf(). */
export async function readRawBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  // The async iterator rejects on a premature close, so a vanished client cannot leave us waiting.
  for await (const chunk of req) parts.push(chunk as Buffer);
  const buf = Buffer.concat(parts);
  raws.set(req, buf);
  return buf;
}

/** The exact bytes received; falls back to re-encoding Ctx.raw for requests not read through readRawBody. */
export function rawBodyOf(req: IncomingMessage, fallback: string): Buffer {
  return raws.get(req) ?? Buffer.from(fallback, 'utf8');
}
