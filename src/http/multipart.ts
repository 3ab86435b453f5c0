// multipart/form-data in bounded memory. Uploads are read as a stream: fields become body properties, files are
// spooled to disk as they arrive and become {filename, content_type, size, path} (never held in memory). Bodies sent
// to vendors are streamed too: parts are written one after another, files read back from disk.
import type { IncomingMessage } from 'node:http';
import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { GatewayError } from './errors.js';
import { ClientGone, type BodyLimits } from './read-body.js';
import { PaceWatch } from './body-pace.js';

/** A file: spooled upload (`path`) or inline data (`data`, base64, e.g. from a data URI). */
export interface FilePart { filename: string; content_type: string; size: number; path?: string; data?: string }

export const isMultipart = (req: IncomingMessage) => (req.headers['content-type'] ?? '').startsWith('multipart/form-data');

const spoolDir = join(tmpdir(), 'switchyard-spool');

/**
 * The spool files of uploads still in flight, and what was read from them. A file part is only ever one of these (or
 * inline data): a JSON body shaped like a file part, naming any other path, is not a file, so no client can make the
 * gateway read a file of its own disk (and send it to a vendor), nor claim what an upload of its own lasts.
 */
const spooled = new Map<string, { seconds?: number }>();
const maxFieldBytes = 1 << 20; // a text field is a prompt or an option, never a file
const maxParts = 64;

export function readMultipart(req: IncomingMessage, o: BodyLimits): Promise<Record<string, unknown>> {
  if (o.signal.aborted || req.destroyed) return Promise.reject(new ClientGone('client closed the connection'));
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > o.maxBytes) { req.resume(); return Promise.reject(new GatewayError('request_too_large', `Request body exceeds ${o.maxBytes} bytes`)); }
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { fieldSize: maxFieldBytes, parts: maxParts, fieldNameSize: 200 } });
  } catch {
    return Promise.reject(new GatewayError('invalid_request', 'Request body is not valid multipart/form-data'));
  }
  return new Promise((resolve, reject) => {
    const out: Record<string, unknown> = {};
    const writes: Promise<void>[] = [];
    let size = 0;
    let heldFields = 0;
    let failed = false;
    const files = new Set<NodeJS.WritableStream & { destroy(): void }>();
    o.cleanup.push(() => o.budget.give(heldFields));
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      pace.stop();
      o.signal.removeEventListener('abort', onGone);
      req.unpipe(parser);
      req.resume();
      for (const f of files) f.destroy(); // no spool file stays open after a failed upload
      reject(err);
    };
    const pace = new PaceWatch(o, fail);
    const grow = (n: number) => {
      size += n;
      if (size > o.maxBytes) fail(new GatewayError('request_too_large', `Request body exceeds ${o.maxBytes} bytes`));
    };
    const onGone = () => fail(new ClientGone('client closed the connection'));
    req.on('data', (c: Buffer) => pace.data(c.length));
    req.once('close', () => { if (!req.complete) onGone(); });
    o.signal.addEventListener('abort', onGone, { once: true });
    parser.on('field', (name, value, info) => {
      if (!usableName(name)) return fail(unnamed());
      if (info.valueTruncated) return fail(new GatewayError('invalid_request', `Field \`${name.slice(0, 100)}\` is longer than ${maxFieldBytes} bytes`));
      const n = Buffer.byteLength(value);
      if (!o.budget.take(n)) return fail(new GatewayError('server_busy', 'Too many request bodies are being received at once; retry shortly'));
      heldFields += n;
      grow(n);
      add(out, name, value);
    });
    parser.on('file', (name, stream, info) => {
      if (!usableName(name)) { stream.resume(); return fail(unnamed()); }
      const path = spoolFile(o.cleanup);
      const part: FilePart = { filename: info.filename ?? 'file', content_type: info.mimeType || 'application/octet-stream', size: 0, path };
      add(out, name, part);
      stream.on('data', (c: Buffer) => { part.size += c.length; grow(c.length); });
      stream.on('error', () => fail(new GatewayError('invalid_request', 'Request body is not valid multipart/form-data')));
      const file = createWriteStream(path);
      files.add(file);
      const written = new Promise<void>((done, bad) => stream.pipe(file).once('finish', () => { files.delete(file); done(); }).once('error', bad));
      written.catch(() => undefined); // a failed upload is reported once, by fail(); this must not surface unhandled
      writes.push(written);
    });
    parser.once('partsLimit', () => fail(new GatewayError('invalid_request', `A multipart body may have at most ${maxParts} parts`)));
    parser.on('error', () => fail(new GatewayError('invalid_request', 'Request body is not valid multipart/form-data')));
    parser.once('close', () => {
      pace.stop();
      Promise.all(writes).then(() => { if (!failed) { o.signal.removeEventListener('abort', onGone); resolve(out); } }, () => fail(new GatewayError('server_busy', 'An upload could not be stored; retry shortly')));
    });
    req.pipe(parser);
  });
}

// A part without a name cannot become a field; `__proto__` would become the body's prototype.
const usableName = (name: unknown): name is string => typeof name === 'string' && name !== '' && name !== '__proto__';
const unnamed = () => new GatewayError('invalid_request', 'Every multipart part needs a name (content-disposition: form-data; name="…"), and not __proto__');

/** A unique file in the spool directory, removed at the end of the request. */
function spoolFile(cleanup: (() => void)[]): string {
  mkdirSync(spoolDir, { recursive: true });
  const path = join(spoolDir, `${process.pid}-${randomBytes(16).toString('hex')}`);
  spooled.set(path, {});
  cleanup.push(() => { spooled.delete(path); rmSync(path, { force: true }); });
  return path;
}

/** An upload of this request spooled to disk (never a lookalike from a JSON body). */
export const isSpooled = (v: unknown): v is FilePart & { path: string } =>
  isFile(v) && typeof v.path === 'string' && spooled.has(v.path);

/** Notes how long a spooled upload lasts (read from its header); a part that is not one is ignored. */
export function noteSeconds(part: FilePart, seconds: number | undefined): void {
  const entry = part.path === undefined ? undefined : spooled.get(part.path);
  if (entry) entry.seconds = seconds;
}

/** How long a spooled upload lasts, as read from its header; undefined for anything else. */
export const secondsOf = (v: unknown): number | undefined => (isSpooled(v) ? spooled.get(v.path)!.seconds : undefined);

// `name[]` fields and repeated names become arrays, as in PHP-style forms and OpenAI's image edits.
function add(out: Record<string, unknown>, name: string, value: unknown): void {
  const key = name.endsWith('[]') ? name.slice(0, -2) : name;
  const prev = out[key];
  out[key] = prev === undefined ? (name.endsWith('[]') ? [value] : value) : Array.isArray(prev) ? [...prev, value] : [prev, value];
}

/** A file part: a spooled upload of a request in flight, or inline base64 data (a data URI's). */
export function isFile(v: unknown): v is FilePart {
  if (!v || typeof v !== 'object' || typeof (v as FilePart).filename !== 'string') return false;
  const f = v as FilePart;
  return typeof f.path === 'string' ? spooled.has(f.path) : typeof f.data === 'string';
}

/** A media type fit for a data URI (a client's type with a comma or parameters would break it). */
const mediaType = (t: string) => (/^[\w.+-]+\/[\w.+-]+$/.test(t) ? t : 'application/octet-stream');

/** A file's bytes (base64) as a data URI of its type. */
export const dataUri = (part: FilePart, base64: string) => `data:${mediaType(part.content_type)};base64,${base64}`;

/**
 * A value as JSON text for a vendor, where a file part is never an object: inline data (a transform's `$toFile`)
 * becomes its data URI, and an upload (which only a multipart body carries, as a file) fails the build, so neither
 * its spool path nor its name ever reaches a vendor.
 */
export function jsonWithFiles(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (!isFile(v)) return v;
    if (isSpooled(v)) throw new Error('an uploaded file cannot be sent inside a JSON value');
    return dataUri(v, v.data ?? '');
  });
}

/** A body to stream to a vendor: its length (for Content-Length) and a way to (re)open it for each attempt. */
export interface StreamBody { length: number; contentType: string; open(): Readable }

/** Encodes an object as multipart for vendors that take uploads; FilePart values become file parts, read from disk. */
export function encodeMultipart(body: Record<string, unknown>): StreamBody {
  const boundary = `----switchyard${randomBytes(12).toString('hex')}`;
  const pieces: (Buffer | FilePart)[] = [];
  const add = (k: string, v: unknown) => {
    if (v === undefined || v === null) return;
    const name = k.replace(/[\r\n"]/g, '_');
    if (isFile(v)) {
      const filename = v.filename.replace(/[\r\n"]/g, '_');
      pieces.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"; filename="${filename}"\r\ncontent-type: ${v.content_type.replace(/[\r\n]/g, '')}\r\n\r\n`), v, Buffer.from('\r\n'));
    } else {
      pieces.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${typeof v === 'object' ? jsonWithFiles(v) : String(v)}\r\n`));
    }
  };
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v) && v.some(isFile)) v.forEach((x) => add(k, x));
    // A list of plain values is a repeated `name[]` field, as it came (`timestamp_granularities[]`, `include[]`).
    else if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) v.forEach((x) => add(`${k}[]`, x));
    else add(k, v);
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  const length = pieces.reduce((n, p) => n + (Buffer.isBuffer(p) ? p.length : fileBytes(p)), 0);
  return { length, contentType: `multipart/form-data; boundary=${boundary}`, open: () => Readable.from(chunks(pieces), { objectMode: false }) };
}

const fileBytes = (f: FilePart) => (f.path ? f.size : Buffer.byteLength(f.data ?? '', 'base64'));

async function* chunks(pieces: (Buffer | FilePart)[]): AsyncGenerator<Buffer> {
  for (const p of pieces) {
    if (Buffer.isBuffer(p)) yield p;
    else if (p.path) yield* createReadStream(p.path);
    else yield Buffer.from(p.data ?? '', 'base64');
  }
}
