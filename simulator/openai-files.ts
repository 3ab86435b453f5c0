// OpenAI Files API: POST /v1/files (multipart: file, purpose, expires_after[anchor|seconds]), GET /v1/files[/{id}],
// GET /v1/files/{id}/content (the bytes), DELETE /v1/files/{id}. Files live in memory, one store per simulator; batches
// (openai-batches.ts) read their input here and write their output and error files here.
import { type Ctx, type Route, errorBody, openaiAuthorized, randomId, sendJson } from './http.js';
import { rawBodyOf } from './video/raw-body.js';
import type { Control } from './control.js';

export interface SimFile {
  id: string; object: 'file'; bytes: number; created_at: number; expires_at: number | null; filename: string;
  purpose: string; status: 'processed'; status_details: null;
}

const PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'];
/** OpenAI keeps a batch file 30 days unless told otherwise. */
const BATCH_EXPIRY_S = 30 * 86_400;

const stores = new WeakMap<Control, Map<string, { meta: SimFile; data: Buffer }>>();
/** The simulator's files (one store per simulator: keyed by its control). */
export function filesOf(control: Control): Map<string, { meta: SimFile; data: Buffer }> {
  let s = stores.get(control);
  if (!s) stores.set(control, (s = new Map()));
  return s;
}

/** Stores bytes as a file (a batch's output, or an upload). */
export function addFile(control: Control, data: Buffer, filename: string, purpose: string, expiresS: number | null): SimFile {
  const now = Math.floor(Date.now() / 1000);
  const meta: SimFile = {
    id: randomId('file-', 22), object: 'file', bytes: data.length, created_at: now, expires_at: expiresS === null ? null : now + expiresS,
    filename, purpose, status: 'processed', status_details: null,
  };
  filesOf(control).set(meta.id, { meta, data });
  return meta;
}

const invalid = (ctx: Ctx, message: string, param: string | null, status = 400) => sendJson(ctx.res, status, errorBody(message, 'invalid_request_error', param, null));
const notFound = (ctx: Ctx, id: string) => invalid(ctx, `No such File object: ${id}`, 'id', 404);
const idOf = (path: string) => decodeURIComponent(path.split('/')[3] ?? '');

async function create(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const ct = String(ctx.req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data/i.test(ct)) return invalid(ctx, 'The request must be multipart/form-data with a file and a purpose.', null);
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(rawBodyOf(ctx.req, ctx.raw)), { headers: { 'content-type': ct } }).formData();
  } catch {
    return invalid(ctx, 'Could not parse multipart form data.', null);
  }
  const file = form.get('file');
  const purpose = form.get('purpose');
  if (typeof purpose !== 'string' || !PURPOSES.includes(purpose)) return invalid(ctx, `'${String(purpose)}' is not one of ${PURPOSES.map((p) => `'${p}'`).join(', ')} - 'purpose'`, 'purpose');
  if (!file || typeof file === 'string') return invalid(ctx, "Missing required parameter: 'file'.", 'file');
  const seconds = form.get('expires_after[seconds]');
  const expires = typeof seconds === 'string' && seconds ? Number(seconds) : purpose === 'batch' ? BATCH_EXPIRY_S : null;
  if (expires !== null && !(Number.isInteger(expires) && expires >= 3600 && expires <= 2_592_000)) return invalid(ctx, "Invalid 'expires_after[seconds]': must be between 3600 and 2592000.", 'expires_after[seconds]');
  const data = Buffer.from(await file.arrayBuffer());
  if (purpose === 'batch' && data.length > 200 * 1024 * 1024) return invalid(ctx, 'File is too large: a batch file may be at most 200 MB.', 'file');
  sendJson(ctx.res, 200, addFile(ctx.control, data, file.name || 'file', purpose, expires));
}

async function retrieve(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const f = filesOf(ctx.control).get(idOf(ctx.path));
  if (!f) return notFound(ctx, idOf(ctx.path));
  sendJson(ctx.res, 200, f.meta);
}

async function content(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const f = filesOf(ctx.control).get(idOf(ctx.path));
  if (!f) return notFound(ctx, idOf(ctx.path));
  ctx.res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': f.data.length });
  ctx.res.end(f.data);
}

async function list(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const q = new URL(ctx.req.url ?? '/', 'http://sim').searchParams;
  const order = q.get('order') === 'asc' ? 1 : -1;
  let all = [...filesOf(ctx.control).values()].map((f) => f.meta).filter((m) => !q.get('purpose') || m.purpose === q.get('purpose'));
  all = all.sort((a, b) => order * (a.created_at - b.created_at));
  const after = q.get('after');
  const from = after ? all.findIndex((m) => m.id === after) + 1 : 0;
  const limit = Math.min(10_000, Math.max(1, Number(q.get('limit') ?? 10_000) || 10_000));
  const data = all.slice(from, from + limit);
  sendJson(ctx.res, 200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: from + limit < all.length });
}

async function remove(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const id = idOf(ctx.path);
  if (!filesOf(ctx.control).delete(id)) return notFound(ctx, id);
  sendJson(ctx.res, 200, { id, object: 'file', deleted: true });
}

const one = /^\/v1\/files\/[^/]+$/;
export const openaiFiles: Route[] = [
  { method: 'POST', path: '/v1/files', handle: create },
  { method: 'GET', path: '/v1/files', handle: list },
  { method: 'GET', path: one, handle: retrieve },
  { method: 'GET', path: /^\/v1\/files\/[^/]+\/content$/, handle: content },
  { method: 'DELETE', path: one, handle: remove },
];
