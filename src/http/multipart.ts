// Reads multipart/form-data with the platform's own parser: fields become properties, files become base64 objects.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from './errors.js';

export interface FilePart { filename: string; content_type: string; size: number; data: string }

export const isMultipart = (req: IncomingMessage) => (req.headers['content-type'] ?? '').startsWith('multipart/form-data');

export async function parseMultipart(raw: Buffer, contentType: string): Promise<Record<string, unknown>> {
  let form: FormData;
  try {
    form = await new Response(new Blob([raw as Uint8Array<ArrayBuffer>]), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new GatewayError('invalid_request', 'Request body is not valid multipart/form-data');
  }
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    const item = typeof value === 'string' ? value : await filePart(value);
    const key = name.endsWith('[]') ? name.slice(0, -2) : name;
    const prev = out[key];
    out[key] = prev === undefined ? (name.endsWith('[]') ? [item] : item) : Array.isArray(prev) ? [...prev, item] : [prev, item];
  }
  return out;
}

async function filePart(f: File): Promise<FilePart> {
  const data = Buffer.from(await f.arrayBuffer()).toString('base64');
  return { filename: f.name, content_type: f.type || 'application/octet-stream', size: f.size, data };
}

const isFile = (v: unknown): v is FilePart => Boolean(v && typeof v === 'object' && 'data' in v && 'filename' in v);

/** Encodes an object as multipart for vendors that take uploads; FilePart values become file parts. */
export async function encodeMultipart(body: Record<string, unknown>): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  const add = (k: string, v: unknown) => {
    if (v === undefined || v === null) return;
    if (isFile(v)) form.append(k, new Blob([Buffer.from(v.data, 'base64') as Uint8Array<ArrayBuffer>], { type: v.content_type }), v.filename);
    else form.append(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  };
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v) && v.some(isFile)) v.forEach((x) => add(k, x));
    else add(k, v);
  }
  const req = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await req.arrayBuffer()), contentType: req.headers.get('content-type')! };
}
