// Result-file CDN stand-in: GET/HEAD /files/<name> streams deterministic fake-MP4 bytes with Range support and backpressure.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Ctx } from '../http.js';
import { route } from './common.js';
import { type VideoTask, phaseOf, storeOf } from './task-store.js';

/** A 32-byte `ftyp` box so sniffers (file, ffprobe's probe step, browsers) see an MP4 signature. */
const FTYP = Buffer.concat([
  u32(32), Buffer.from('ftyp'), Buffer.from('isom'), u32(0x200), Buffer.from('isomiso2avc1mp41'),
]);
const PATTERN_LEN = 4096;
const CHUNK = 256 * 1024;
const patterns = new Map<string, Buffer>();

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** 4 KiB derived from the name, repeated after the header: different files differ, the same file never changes. */
function patternOf(name: string): Buffer {
  let p = patterns.get(name);
  if (p) return p;
  const parts: Buffer[] = [];
  for (let k = 0; k < PATTERN_LEN / 32; k++) parts.push(createHash('sha256').update(`${name}#${k}`).digest());
  p = Buffer.concat(parts);
  if (patterns.size >= 256) patterns.clear(); // a bounded cache; recomputing is cheap
  patterns.set(name, p);
  return p;
}

/** Bytes [start, end) of file `name`; byte i is FTYP[i] for i < 32, else pattern[i % 4096]. */
function slice(name: string, start: number, end: number): Buffer {
  const buf = Buffer.allocUnsafe(end - start);
  const p = patternOf(name);
  const off = start % PATTERN_LEN;
  buf.fill(off === 0 ? p : Buffer.concat([p.subarray(off), p.subarray(0, off)]));
  if (start < FTYP.length) FTYP.copy(buf, 0, start, Math.min(FTYP.length, end));
  return buf;
}

/**
 * What a download of `name` (file of `size` bytes) must contain, for tests: bytes `start..end` inclusive
 * (defaults: the whole file). Only call with small ranges; it materialises the buffer.
 */
export function expectedFileBytes(name: string, size: number, start = 0, end = size - 1): Buffer {
  const last = Math.min(end, size - 1);
  return last < start ? Buffer.alloc(0) : slice(name, start, last + 1);
}

type Range = { start: number; end: number } | 'unsatisfiable' | undefined;

/** Single `bytes=a-b`, `bytes=a-` or `bytes=-n`; anything else (multi-range, junk) is ignored → full 200. */
function parseRange(header: string | undefined, size: number): Range {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Number(m[2]);
    return n === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return start >= size || end < start ? 'unsatisfiable' : { start, end };
}

/** Writes the (ranged) body; shared by /files and OpenAI's /v1/videos/{id}/content. */
export async function serveVideoBytes(ctx: Ctx, name: string, size: number, extraHeaders: Record<string, string> = {}): Promise<void> {
  const { req, res } = ctx;
  const range = parseRange(typeof req.headers.range === 'string' ? req.headers.range : undefined, size);
  const base = { 'content-type': 'video/mp4', 'accept-ranges': 'bytes', etag: `"${name}-${size}"`, ...extraHeaders };
  if (range === 'unsatisfiable') {
    res.writeHead(416, { ...base, 'content-range': `bytes */${size}`, 'content-length': 0 });
    res.end();
    return;
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  const length = Math.max(0, end - start + 1);
  const headers = { ...base, 'content-length': String(length), ...(range ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}) };
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  await pump(res, name, start, end + 1, ctx.signal);
}

/** Chunked generation that waits for 'drain', so a 1 GB file never sits in memory and a gone client stops it. */
async function pump(res: ServerResponse, name: string, start: number, end: number, signal: AbortSignal): Promise<void> {
  for (let pos = start; pos < end;) {
    if (signal.aborted || res.destroyed) return;
    const n = Math.min(CHUNK, end - pos);
    const ok = res.write(slice(name, pos, pos + n));
    pos += n;
    if (!ok && !(await drained(res, signal))) return;
  }
  res.end();
}

function drained(res: ServerResponse, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => () => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      signal.removeEventListener('abort', onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
    signal.addEventListener('abort', onClose, { once: true });
  });
}

/** Object-storage style errors: result URLs are signed CDN/OSS links, not vendor API calls. */
export function storageError(ctx: Ctx, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>\n`;
  ctx.res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : body);
}

const FILE_PATH = /^\/files\/([^/]+)$/;

async function handle(ctx: Ctx): Promise<void> {
  const name = decodeURIComponent(FILE_PATH.exec(ctx.path)?.[1] ?? '');
  const task: VideoTask | undefined = storeOf(ctx.control).byFile(name);
  // Only a finished, successful task has a file; before that the URL was never handed out.
  if (!task || phaseOf(task) !== 'succeeded') return storageError(ctx, 404, 'NoSuchKey', 'The specified key does not exist.');
  if (task.urlTtlMs !== undefined && Date.now() - (task.finishedAt ?? 0) > task.urlTtlMs) {
    return storageError(ctx, 403, 'AccessDenied', 'Request has expired.');
  }
  await serveVideoBytes(ctx, name, task.sizeBytes);
}

export const fileRoutes = [route('GET', FILE_PATH, handle), route('HEAD', FILE_PATH, handle)];
