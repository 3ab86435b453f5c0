// The files a client sent, on their way to a vendor. A file part ({filename, content_type, size, path|data}: an upload
// spooled from a multipart body, or inline base64 data) is never sent to a vendor as an object:
// - to a vendor that takes multipart, it goes as a file part (src/http/multipart.ts encodeMultipart);
// - to a vendor that takes JSON, its request transform sees it as a data URI (`data:<type>;base64,<bytes>`), the form
//   most JSON vendors take inline, and writes it the way its vendor takes it (as it is, or the base64 alone);
// - a file the transform left out of the vendor's body (a vendor, or a field, that takes no upload) refuses the
//   request with 400 naming the field: the vendor would otherwise make something the client did not ask for (a text
//   to video where an image to video was asked) and the client would pay for it.
import { readFile } from 'node:fs/promises';
import { GatewayError } from '../http/errors.js';
import { dataUri, isFile, isSpooled, type FilePart } from '../http/multipart.js';

/** A file of the request body and where the client put it: `input_reference`, or `input_reference[1]` in a list. */
export interface SentFile { field: string; part: FilePart }

/**
 * The file parts of a body, where a body holds them: a field's value, or an item of a field's list (a multipart body
 * has no other place for them). A JSON body shaped like an upload that names another path is not one (isFile).
 */
export function filesOf(body: Record<string, unknown>): SentFile[] {
  const out: SentFile[] = [];
  for (const [field, v] of Object.entries(body)) {
    if (isFile(v)) out.push({ field, part: v });
    else if (Array.isArray(v)) v.forEach((x, i) => { if (isFile(x)) out.push({ field: `${field}[${i}]`, part: x }); });
  }
  return out;
}

// An upload is read once a request, however many channels' transforms see it (the check before anything is
// reserved, then each attempt): its spooled part is the key, dropped with the request body.
const read = new WeakMap<FilePart, Promise<string>>();

/** A file's bytes as base64: an upload's read from its spool file, inline data as it is. */
export function base64Of(part: FilePart): Promise<string> {
  if (!isSpooled(part)) return Promise.resolve(part.data ?? '');
  let b = read.get(part);
  if (!b) {
    b = readFile(part.path).then((bytes) => bytes.toString('base64'));
    read.set(part, b);
  }
  return b;
}

/** The body a JSON vendor's transform sees: each file part a data URI, the rest as it came. */
export async function withDataUris(body: Record<string, unknown>, files: SentFile[]): Promise<Record<string, unknown>> {
  const uris = new Map<FilePart, string>();
  for (const f of files) uris.set(f.part, dataUri(f.part, await base64Of(f.part)));
  const shown: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    shown[k] = isFile(v) ? uris.get(v) : Array.isArray(v) ? v.map((x) => (isFile(x) ? uris.get(x) : x)) : v;
  }
  return shown;
}

/** Whether a multipart body sends the file as a file part (a field's value or an item of its list). */
export function sendsPart(body: Record<string, unknown>, part: FilePart): boolean {
  const same = (v: unknown) => isFile(v) && (part.path !== undefined ? v.path === part.path : v.data === part.data);
  return Object.values(body).some((v) => same(v) || (Array.isArray(v) && v.some(same)));
}

/** The refusal of a file the vendor's body does not carry. */
export function notTaken(file: SentFile): GatewayError {
  const what = isSpooled(file.part) ? 'an upload' : 'a file';
  return new GatewayError('invalid_request', `\`${file.field.slice(0, 100)}\` (${what}) is not taken by this model; send a URL instead`);
}
