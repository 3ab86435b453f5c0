// OpenAI Batch API: POST /v1/batches, GET /v1/batches[/{id}], POST /v1/batches/{id}/cancel. A batch validates its input
// file (JSON Lines; each line's custom_id unique, method POST, url the batch's endpoint), then runs each line on this
// simulator's own endpoint over loopback (so chat, Responses and embeddings answer, directives and usage included, as
// they would alone) and moves through OpenAI's statuses, one step per retrieve: validating → in_progress → finalizing →
// completed, or failed (validation), expired, cancelling → cancelled. Output lines are
// `{id, custom_id, response: {status_code, request_id, body}, error: null}` (2xx in the output file, others in the error
// file); requests an expired or cancelled batch never ran are error lines `{response: null, error: {code, message}}`.
// Directives (`[sim …]` in any metadata value): polls=N (retrieves until the end, default 2), fail=1 (validation fails),
// expire=1 (expires instead of completing), done=K (requests run before an expiry or a cancel, default 0), status=N
// (the create answers that error), submit_delay_ms=N (the batch is created at once, its answer sent N ms later).
import { randomId, type Ctx, type Route, errorBody, openaiAuthorized, sendJson, sleep, statusError, bearerKey } from './http.js';
import { intDirective, flagDirective, parseDirectives, type Directives } from './directives.js';
import { addFile, filesOf } from './openai-files.js';
import type { Control } from './control.js';

const ENDPOINTS = ['/v1/responses', '/v1/chat/completions', '/v1/embeddings', '/v1/completions', '/v1/moderations'];
type Status = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';

interface Line { custom_id: string; url: string; body: Record<string, unknown> }
interface Ran { custom_id: string; status: number; requestId: string; body: unknown }

export interface SimBatch {
  id: string; object: 'batch'; endpoint: string; model: string | null; errors: unknown; input_file_id: string; completion_window: string;
  status: Status; output_file_id: string | null; error_file_id: string | null; created_at: number; in_progress_at: number | null;
  expires_at: number; finalizing_at: number | null; completed_at: number | null; failed_at: number | null; expired_at: number | null;
  cancelling_at: number | null; cancelled_at: number | null; request_counts: { total: number; completed: number; failed: number };
  usage: Record<string, unknown>; metadata: Record<string, string> | null;
}

interface State { batch: SimBatch; lines: Line[]; ran: Ran[]; running?: Promise<void>; retrieves: number; cancelledAt: number; d: Directives; key: string }

const stores = new WeakMap<Control, Map<string, State>>();
const batchesOf = (control: Control) => {
  let s = stores.get(control);
  if (!s) stores.set(control, (s = new Map()));
  return s;
};

/** The simulator's batches as OpenAI would show them, oldest first (for tests). */
export const simBatches = (control: Control): SimBatch[] => [...batchesOf(control).values()].map((s) => s.batch);

const now = () => Math.floor(Date.now() / 1000);
const invalid = (ctx: Ctx, message: string, param: string | null, status = 400) => sendJson(ctx.res, status, errorBody(message, 'invalid_request_error', param, null));

async function create(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  let body: Record<string, unknown>;
  try { body = JSON.parse(ctx.raw); } catch { return invalid(ctx, 'We could not parse the JSON body of your request.', null); }
  const metadata = body.metadata && typeof body.metadata === 'object' ? body.metadata as Record<string, string> : null;
  const d = parseDirectives(Object.values(metadata ?? {}).join(' '));
  const status = intDirective(d, 'status');
  if (status !== undefined && status >= 400) { const c = statusError(status); return sendJson(ctx.res, status, c.body, c.headers); }
  if (typeof body.endpoint !== 'string' || !ENDPOINTS.includes(body.endpoint)) return invalid(ctx, `Invalid value for 'endpoint': supported are ${ENDPOINTS.join(', ')}.`, 'endpoint');
  if (body.completion_window !== '24h') return invalid(ctx, "Invalid value for 'completion_window': only '24h' is supported.", 'completion_window');
  const file = filesOf(ctx.control).get(String(body.input_file_id));
  if (!file) return invalid(ctx, `No such File object: ${String(body.input_file_id)}`, 'input_file_id', 404);
  if (file.meta.purpose !== 'batch') return invalid(ctx, 'The input file must have purpose batch.', 'input_file_id');
  const created = now();
  const { lines, errors } = parse(file.data.toString('utf8'), body.endpoint, flagDirective(d, 'fail'));
  const batch: SimBatch = {
    id: randomId('batch_', 24), object: 'batch', endpoint: body.endpoint, model: typeof lines[0]?.body.model === 'string' ? lines[0].body.model : null,
    errors: errors.length ? { object: 'list', data: errors } : null, input_file_id: file.meta.id, completion_window: '24h', status: 'validating',
    output_file_id: null, error_file_id: null, created_at: created, in_progress_at: null, expires_at: created + 86_400, finalizing_at: null,
    completed_at: null, failed_at: null, expired_at: null, cancelling_at: null, cancelled_at: null,
    request_counts: { total: 0, completed: 0, failed: 0 }, usage: usageOf([]), metadata,
  };
  const state: State = { batch, lines, ran: [], retrieves: 0, cancelledAt: 0, d, key: bearerKey(ctx.req) ?? '' };
  batchesOf(ctx.control).set(batch.id, state);
  if (!errors.length) state.running = run(ctx, state);
  // Accepted, but the answer comes late: a gateway that dies meanwhile must find the batch again.
  if (!(await sleep(intDirective(d, 'submit_delay_ms', 0), ctx.signal))) return;
  sendJson(ctx.res, 200, batch);
}

/** The lines, or why the file fails validation (line numbers 1-based, as OpenAI reports them). */
function parse(text: string, endpoint: string, fail: boolean): { lines: Line[]; errors: unknown[] } {
  const lines: Line[] = [];
  const errors: unknown[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let v: Partial<Line> & { method?: unknown };
    try { v = JSON.parse(raw); } catch { errors.push({ code: 'invalid_json_line', message: 'This line is not parseable as valid JSON.', param: null, line: i + 1 }); return; }
    if (v.url !== endpoint) errors.push({ code: 'mismatched_endpoint', message: `The endpoint of this request, ${String(v.url)}, does not match the batch's endpoint.`, param: 'url', line: i + 1 });
    else if (v.method !== 'POST') errors.push({ code: 'invalid_method', message: 'Only POST is supported.', param: 'method', line: i + 1 });
    else if (typeof v.custom_id !== 'string' || ids.has(v.custom_id)) errors.push({ code: 'duplicate_custom_id', message: 'The custom_id of this request is a duplicate of another request.', param: 'custom_id', line: i + 1 });
    else { ids.add(v.custom_id); lines.push(v as Line); }
  });
  if (fail && !errors.length) errors.push({ code: 'invalid_request', message: 'The batch failed validation (simulated).', param: null, line: 1 });
  if (!lines.length && !errors.length) errors.push({ code: 'empty_file', message: 'The input file is empty.', param: null, line: null });
  return { lines, errors };
}

/** Each line on this simulator's own endpoint, one after another, as OpenAI's workers would. */
async function run(ctx: Ctx, s: State): Promise<void> {
  const self = `http://${ctx.req.socket.localAddress?.includes(':') ? `[${ctx.req.socket.localAddress}]` : ctx.req.socket.localAddress}:${ctx.req.socket.localPort}`;
  for (const line of s.lines) {
    try {
      const res = await fetch(`${self}${line.url}`, {
        method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' }, body: JSON.stringify(line.body),
      });
      const text = await res.text();
      let body: unknown;
      try { body = JSON.parse(text); } catch { body = { error: { message: 'The server returned an unreadable answer.', type: 'server_error' } }; }
      s.ran.push({ custom_id: line.custom_id, status: res.status, requestId: res.headers.get('x-request-id') ?? '', body });
    } catch {
      s.ran.push({ custom_id: line.custom_id, status: 500, requestId: '', body: { error: { message: 'The server had an error.', type: 'server_error' } } });
    }
  }
}

/** One step per retrieve; the end waits for the lines to have run. */
async function advance(control: Control, s: State): Promise<void> {
  const b = s.batch;
  if (['failed', 'completed', 'expired', 'cancelled'].includes(b.status)) return;
  s.retrieves++;
  if (b.status === 'validating' && b.errors) {
    Object.assign(b, { status: 'failed', failed_at: now() });
    return;
  }
  // OpenAI keeps a batch cancelling a while (up to 10 minutes): here for one retrieve after the cancel.
  if (b.status === 'cancelling') return s.retrieves > s.cancelledAt + 1 ? end(control, s, 'cancelled', intDirective(s.d, 'done', 0)) : undefined;
  if (b.status === 'validating') Object.assign(b, { status: 'in_progress', in_progress_at: now() });
  const polls = intDirective(s.d, 'polls', 2);
  counts(s, s.ran.length);
  if (s.retrieves < polls) {
    if (s.retrieves === polls - 1 && polls >= 3) Object.assign(b, { status: 'finalizing', finalizing_at: now() });
    return;
  }
  await s.running;
  if (flagDirective(s.d, 'expire')) return end(control, s, 'expired', intDirective(s.d, 'done', 0));
  b.finalizing_at ??= now();
  return end(control, s, 'completed', s.lines.length);
}

/** The batch ends with its first `ran` requests done: output and error files written, counts and usage set. */
async function end(control: Control, s: State, status: 'completed' | 'expired' | 'cancelled', ran: number): Promise<void> {
  await s.running;
  const b = s.batch;
  const done = s.ran.slice(0, ran);
  const out: string[] = [];
  const err: string[] = [];
  for (const r of done) {
    const line = JSON.stringify({ id: randomId('batch_req_', 24), custom_id: r.custom_id, response: { status_code: r.status, request_id: r.requestId, body: r.body }, error: null });
    (r.status >= 200 && r.status < 300 ? out : err).push(line);
  }
  const code = status === 'expired' ? 'batch_expired' : 'batch_cancelled';
  const why = status === 'expired' ? 'This request could not be executed before the completion window expired.' : 'This request was not executed because the batch was cancelled.';
  for (const line of s.lines.slice(ran)) err.push(JSON.stringify({ id: randomId('batch_req_', 24), custom_id: line.custom_id, response: null, error: { code, message: why } }));
  const file = (lines: string[], name: string) => (lines.length ? addFile(control, Buffer.from(`${lines.join('\n')}\n`), `${b.id}_${name}.jsonl`, 'batch_output', 30 * 86_400).id : null);
  counts(s, ran);
  b.request_counts.failed = b.request_counts.total - b.request_counts.completed;
  Object.assign(b, { status, output_file_id: file(out, 'output'), error_file_id: file(err, 'error'), usage: usageOf(done), [`${status}_at`]: now() });
}

function counts(s: State, ran: number): void {
  const done = s.ran.slice(0, ran);
  const ok = done.filter((r) => r.status >= 200 && r.status < 300).length;
  s.batch.request_counts = { total: s.lines.length, completed: ok, failed: done.length - ok };
}

/** OpenAI's batch usage: the requests' tokens added up (chat and embeddings report prompt/completion, Responses input/output). */
function usageOf(done: Ran[]): Record<string, unknown> {
  let input = 0, output = 0, cached = 0, reasoning = 0;
  for (const r of done) {
    const u = (r.body as { usage?: Record<string, any> } | null)?.usage;
    if (!u || r.status >= 300) continue;
    input += u.prompt_tokens ?? u.input_tokens ?? 0;
    output += u.completion_tokens ?? u.output_tokens ?? 0;
    cached += (u.prompt_tokens_details ?? u.input_tokens_details)?.cached_tokens ?? 0;
    reasoning += (u.completion_tokens_details ?? u.output_tokens_details)?.reasoning_tokens ?? 0;
  }
  return { input_tokens: input, input_tokens_details: { cached_tokens: cached }, output_tokens: output, output_tokens_details: { reasoning_tokens: reasoning }, total_tokens: input + output };
}

const idOf = (path: string) => decodeURIComponent(path.split('/')[3] ?? '');

async function retrieve(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const s = batchesOf(ctx.control).get(idOf(ctx.path));
  if (!s) return invalid(ctx, `No batch found with id '${idOf(ctx.path)}'.`, null, 404);
  await advance(ctx.control, s);
  sendJson(ctx.res, 200, s.batch);
}

async function cancel(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const s = batchesOf(ctx.control).get(idOf(ctx.path));
  if (!s) return invalid(ctx, `No batch found with id '${idOf(ctx.path)}'.`, null, 404);
  const b = s.batch;
  if (!['validating', 'in_progress', 'finalizing', 'cancelling'].includes(b.status)) return invalid(ctx, `Cannot cancel a batch with status '${b.status}'.`, null, 400);
  if (b.status !== 'cancelling') {
    Object.assign(b, { status: 'cancelling', cancelling_at: now() });
    s.cancelledAt = s.retrieves;
  }
  sendJson(ctx.res, 200, b);
}

async function list(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const q = new URL(ctx.req.url ?? '/', 'http://sim').searchParams;
  const all = simBatches(ctx.control).reverse();
  const after = q.get('after');
  const from = after ? all.findIndex((b) => b.id === after) + 1 : 0;
  const limit = Math.min(100, Math.max(1, Number(q.get('limit') ?? 20) || 20));
  const data = all.slice(from, from + limit);
  sendJson(ctx.res, 200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: from + limit < all.length });
}

export const openaiBatches: Route[] = [
  { method: 'POST', path: '/v1/batches', handle: create },
  { method: 'GET', path: '/v1/batches', handle: list },
  { method: 'GET', path: /^\/v1\/batches\/[^/]+$/, handle: retrieve },
  { method: 'POST', path: /^\/v1\/batches\/[^/]+\/cancel$/, handle: cancel },
];
