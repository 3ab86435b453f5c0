// Media results at GET/HEAD /files/media/<name>: real PNGs for images, deterministic ranged bytes (video/files.ts) for audio/video.
import type { IncomingMessage } from 'node:http';
import type { Ctx } from '../http.js';
import { ownUrl, route } from '../video/common.js';
import { expectedFileBytes, serveVideoBytes, storageError } from '../video/files.js';
import { pngBytes } from './png.js';
import { type MediaFile, type MediaStore, type MediaTask, mediaStoreOf, succeeded } from './store.js';

const FILE_PATH = /^\/files\/media\/([^/]+)$/;
const TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', mp3: 'audio/mpeg', mp4: 'video/mp4' };

export interface NewFile {
  name: string;
  /** PNG size; omit for pattern files (mp3/mp4/jpeg), which use `size`. */
  png?: { width: number; height: number };
  size?: number;
  task?: MediaTask;
  urlTtlMs?: number;
}

/** Registers a result file; a task's files stay 404 until the task succeeded, like a URL never handed out. */
export function addFile(store: MediaStore, f: NewFile): MediaFile {
  const ext = f.name.slice(f.name.lastIndexOf('.') + 1);
  const file: MediaFile = {
    name: f.name, contentType: TYPES[ext] ?? 'application/octet-stream', size: f.size ?? 4096, png: f.png,
    task: f.task, createdAt: Date.now(), urlTtlMs: f.urlTtlMs,
  };
  store.files.set(file.name, file);
  f.task?.files.push(file.name);
  return file;
}

/** URL on the simulator's own host; `base` is `http://host` (tasks keep the submit's host for callbacks). */
export function mediaUrl(base: string, name: string): string {
  return `${base}/files/media/${encodeURIComponent(name)}`;
}

export function baseOf(req: IncomingMessage): string {
  return ownUrl(req, '');
}

/** Exact bytes a download of `name` returns (whole file), for tests; undefined for unknown names. */
export function mediaFileBytes(store: MediaStore, name: string): Buffer | undefined {
  const f = store.files.get(name);
  if (!f) return undefined;
  return f.png ? pngBytes(f.png.width, f.png.height, f.name) : expectedFileBytes(f.name, f.size);
}

async function handle(ctx: Ctx): Promise<void> {
  const name = decodeURIComponent(FILE_PATH.exec(ctx.path)?.[1] ?? '');
  const file = mediaStoreOf(ctx.control).files.get(name);
  if (!file || (file.task && !succeeded(file.task))) return storageError(ctx, 404, 'NoSuchKey', 'The specified key does not exist.');
  const readyAt = file.task?.finishedAt ?? file.createdAt;
  if (file.urlTtlMs !== undefined && Date.now() - readyAt > file.urlTtlMs) return storageError(ctx, 403, 'AccessDenied', 'Request has expired.');
  if (!file.png) return serveVideoBytes(ctx, name, file.size, { 'content-type': file.contentType });
  // Images are small: always the whole file (Range is ignored), as many image CDNs do.
  const body = pngBytes(file.png.width, file.png.height, file.name);
  ctx.res.writeHead(200, { 'content-type': 'image/png', 'content-length': body.length, etag: `"${name}"` });
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : body);
}

export const mediaFileRoutes = [route('GET', FILE_PATH, handle), route('HEAD', FILE_PATH, handle)];
