// Test-facing control plane: request log, scripted faults, stream stats and echo mode, also served over HTTP under /_sim/.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Ctx, echoedText, errorBody, sendJson, sleep, statusError } from './http.js';

export interface Fault {
  key?: string;
  path?: string;
  /** 0 destroys the socket without answering, to look like a connect-level failure. */
  status: number;
  times?: number;
  delay_ms?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface LoggedRequest {
  method: string;
  path: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** A multipart body's bytes as they arrived (the first 64 KB), base64: `body` is their utf8 text, which mangles a file. */
  body_base64?: string;
  at: number;
}

export interface SimStats {
  requests: number;
  streams_started: number;
  streams_completed: number;
  streams_aborted: number;
}

const LOG_KEEP = 200;
const LOG_BODY_LIMIT = 64 * 1024;
const LONG_STRING = 1024;

export class Control {
  #log: LoggedRequest[] = [];
  #faults: Fault[] = [];
  #stats: SimStats = zeroStats();
  #echoCredential = false;

  requests(): LoggedRequest[] {
    return [...this.#log];
  }

  clear(): void {
    this.#log = [];
  }

  addFault(fault: Fault): void {
    const problem = faultProblem(fault);
    if (problem) throw new Error(problem);
    this.#faults.push({ ...fault });
  }

  clearFaults(): void {
    this.#faults = [];
  }

  faults(): Fault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  stats(): SimStats {
    return { ...this.#stats };
  }

  resetStats(): void {
    this.#stats = zeroStats();
  }

  /** Echo mode: vendor answers repeat the caller's credential, so tests can prove the gateway never passes it on. */
  setEchoCredential(on: boolean): void {
    this.#echoCredential = on;
  }

  echoCredential(): boolean {
    return this.#echoCredential;
  }

  count(name: keyof SimStats): void {
    this.#stats[name]++;
  }

  record(req: IncomingMessage, path: string, raw: string, bytes?: Buffer): void {
    this.#stats.requests++;
    const entry: LoggedRequest = { method: req.method ?? 'GET', path, url: req.url ?? path, headers: { ...req.headers }, body: logBody(raw), at: Date.now() };
    if (bytes && /^multipart\//i.test(String(req.headers['content-type'] ?? ''))) entry.body_base64 = bytes.subarray(0, LOG_BODY_LIMIT).toString('base64');
    this.#log.push(entry);
    if (this.#log.length > LOG_KEEP) this.#log.splice(0, this.#log.length - LOG_KEEP);
  }

  /** First live fault matching this credential and path; consumes one of its `times`. */
  takeFault(key: string | undefined, path: string): Fault | undefined {
    const fault = this.#faults.find((f) => matches(f, key, path));
    if (fault && fault.times !== undefined) fault.times--;
    return fault;
  }
}

function zeroStats(): SimStats {
  return { requests: 0, streams_started: 0, streams_completed: 0, streams_aborted: 0 };
}

function matches(f: Fault, key: string | undefined, path: string): boolean {
  if (f.times !== undefined && f.times <= 0) return false;
  if (f.key !== undefined && f.key !== key) return false;
  return f.path === undefined || path.startsWith(f.path);
}

function faultProblem(f: Fault): string | undefined {
  if (!f || typeof f !== 'object') return 'fault must be an object';
  if (!Number.isInteger(f.status) || (f.status !== 0 && (f.status < 100 || f.status > 599))) return 'status must be 0 or an HTTP status';
  if (f.times !== undefined && !(Number.isInteger(f.times) && f.times > 0)) return 'times must be a positive integer';
  if (f.delay_ms !== undefined && !(typeof f.delay_ms === 'number' && f.delay_ms >= 0)) return 'delay_ms must be >= 0';
  return undefined;
}

/** Keeps the log assertable (parsed JSON) without letting base64 media blow up memory. */
function logBody(raw: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw.slice(0, LOG_BODY_LIMIT);
  }
  if (raw.length <= LOG_BODY_LIMIT) return parsed;
  const shrunk = shrinkStrings(parsed);
  return JSON.stringify(shrunk).length <= LOG_BODY_LIMIT ? shrunk : raw.slice(0, LOG_BODY_LIMIT);
}

function shrinkStrings(v: unknown): unknown {
  if (typeof v === 'string') return v.length > LONG_STRING ? `${v.slice(0, LONG_STRING)}…[truncated]` : v;
  if (Array.isArray(v)) return v.map(shrinkStrings);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shrinkStrings(x)]));
  return v;
}

/** Replies with a scripted fault instead of the vendor's normal behaviour. */
export async function applyFault(ctx: Ctx, fault: Fault): Promise<void> {
  if (!(await sleep(fault.delay_ms ?? 0, ctx.signal))) return;
  if (fault.status === 0) {
    ctx.req.socket.destroy();
    return;
  }
  const canned = statusError(fault.status);
  const headers = { ...canned.headers, ...stringValues(fault.headers) };
  if (typeof fault.body === 'string') {
    const text = echoedText(ctx.res, fault.body, fault.status >= 400);
    ctx.res.writeHead(fault.status, { 'content-type': 'application/json', ...headers });
    ctx.res.end(text);
    return;
  }
  sendJson(ctx.res, fault.status, fault.body ?? canned.body, headers);
}

function stringValues(h: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

/** The /_sim/ HTTP surface; unauthenticated because only tests and humans on localhost use it. */
export function serveControl(req: IncomingMessage, res: ServerResponse, path: string, raw: string, control: Control): void {
  const route = `${req.method} ${path.replace(/\/+$/, '')}`;
  switch (route) {
    case 'GET /_sim/health':
      return sendJson(res, 200, { ok: true });
    case 'GET /_sim/requests':
      return sendJson(res, 200, { data: control.requests() });
    case 'DELETE /_sim/requests':
      control.clear();
      return sendJson(res, 200, { ok: true });
    case 'GET /_sim/faults':
      return sendJson(res, 200, { data: control.faults() });
    case 'POST /_sim/faults':
      return postFault(res, raw, control);
    case 'DELETE /_sim/faults':
      control.clearFaults();
      return sendJson(res, 200, { ok: true });
    case 'GET /_sim/echo':
      return sendJson(res, 200, { on: control.echoCredential() });
    case 'POST /_sim/echo':
      return postEcho(res, raw, control);
    case 'GET /_sim/stats':
      return sendJson(res, 200, control.stats());
    case 'DELETE /_sim/stats':
      control.resetStats();
      return sendJson(res, 200, { ok: true });
    default:
      return sendJson(res, 404, errorBody(`Unknown control route (${route})`, 'invalid_request_error', null, null));
  }
}

function postFault(res: ServerResponse, raw: string, control: Control): void {
  let fault: Fault;
  try {
    fault = JSON.parse(raw) as Fault;
    control.addFault(fault);
  } catch (err) {
    return sendJson(res, 400, errorBody(`Invalid fault: ${(err as Error).message}`, 'invalid_request_error', null, null));
  }
  sendJson(res, 200, { ok: true });
}

function postEcho(res: ServerResponse, raw: string, control: Control): void {
  let on: unknown;
  try {
    on = (JSON.parse(raw) as { on?: unknown })?.on;
  } catch {
    on = undefined;
  }
  if (typeof on !== 'boolean') return sendJson(res, 400, errorBody('Invalid echo switch: body must be {"on": true|false}', 'invalid_request_error', null, null));
  control.setEchoCredential(on);
  sendJson(res, 200, { on });
}
