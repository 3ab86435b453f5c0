// Shared plumbing for simulator vendors: route shape, body reading, JSON/error replies (with echo mode), abortable sleeps.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Control } from './control.js';

/** Everything a vendor handler needs for one request; the body is already read. */
export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  raw: string;
  /** Upstream credential (bearer, x-api-key or api-key), used to match scripted faults. */
  key: string | undefined;
  keys: ReadonlySet<string>;
  control: Control;
  /** Aborts when the client goes away before the response finished. */
  signal: AbortSignal;
}

export interface Route {
  method: string;
  path: string | RegExp;
  handle(ctx: Ctx): Promise<void>;
}

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomId(prefix: string, length = 24): string {
  let out = prefix;
  for (const b of randomBytes(length)) out += ALPHABET[b % ALPHABET.length];
  return out;
}

export function requestId(): string {
  return `req_${randomBytes(16).toString('hex')}`;
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  // The async iterator rejects on a premature close, so a vanished client cannot leave us waiting.
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export function bearerKey(req: IncomingMessage): string | undefined {
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return m ? m[1].trim() : undefined;
}

/** Faults are keyed by whatever credential the gateway sent, whichever header the vendor uses. */
export function upstreamKey(req: IncomingMessage): string | undefined {
  const alt = req.headers['x-api-key'] ?? req.headers['api-key'];
  return bearerKey(req) ?? (typeof alt === 'string' ? alt : undefined);
}

/**
 * The raw secret the caller presented, whichever scheme the vendor uses: Bearer (a Kling JWT whole), Vidu's
 * `Token <key>`, `x-api-key`, `api-key`, `mj-api-secret`, Google's `x-goog-api-key` / `?key=`, a Volcengine V4 `Credential=<AK>/…`.
 * Echo mode puts it back into responses to prove the gateway never lets a vendor's careless echo reach its clients.
 */
export function presentedCredential(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization?.trim() ?? '';
  const scheme = /^(?:Bearer|Token)\s+(.+)$/i.exec(auth)?.[1].trim();
  const header = ['x-api-key', 'api-key', 'mj-api-secret', 'x-goog-api-key'].map((h) => req.headers[h]).find((v): v is string => typeof v === 'string' && v !== '');
  const query = new URL(req.url ?? '/', 'http://sim').searchParams.get('key');
  const volcAk = /Credential=([^/\s,]+)\//.exec(auth)?.[1];
  return scheme || header || query || volcAk || undefined;
}

/** Never echo a secret back: logs and error bodies end up in CI output. */
export function maskKey(key: string): string {
  return key.length < 10 ? '****' : `${key.slice(0, 5)}****${key.slice(-2)}`;
}

export function errorBody(message: string, type: string, param: string | null, code: string | null): ErrorBody {
  return { error: { message, type, param, code } };
}

// ---- echo mode: a careless vendor that repeats the caller's credential in what it answers ----

/** Keys whose string values read as human text on a 2xx; codes, states, ids and URLs are compared by gateways and stay intact. */
const MESSAGE_KEYS = new Set([
  'message', 'msg', 'description', 'error', 'fail_reason', 'failReason', 'failure_reason', 'task_status_msg', 'err_code', 'status_msg', 'reason',
]);
/** Keyed by response, so the dispatcher decides once and no vendor handler has to pass the credential along. */
const echoes = new WeakMap<ServerResponse, string>();

/** Set by the dispatcher while echo mode is on: every JSON body this response sends will carry `credential`. */
export function echoInto(res: ServerResponse, credential: string): void {
  echoes.set(res, credential);
}

/**
 * The body as sent in echo mode (unchanged otherwise). Errors: ` <credential>` after every non-empty string.
 * Success: after the message-like strings only, plus a top-level `echo` field on objects.
 */
export function echoed(res: ServerResponse, body: unknown, error: boolean): unknown {
  const credential = echoes.get(res);
  if (credential === undefined) return body;
  if (error) return appendEverywhere(body, credential);
  const out = appendToMessages(body, credential);
  return isPlainObject(out) ? { ...out, echo: credential } : out;
}

/** A JSON text in echo mode (a scripted fault's string body); anything that is not JSON is left alone. */
export function echoedText(res: ServerResponse, text: string, error: boolean): string {
  if (!echoes.has(res)) return text;
  try {
    return JSON.stringify(echoed(res, JSON.parse(text), error));
  } catch {
    return text;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function appendEverywhere(v: unknown, credential: string): unknown {
  if (typeof v === 'string') return v === '' ? v : `${v} ${credential}`;
  if (Array.isArray(v)) return v.map((x) => appendEverywhere(x, credential));
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, appendEverywhere(x, credential)]));
  return v;
}

function appendToMessages(v: unknown, credential: string): unknown {
  if (Array.isArray(v)) return v.map((x) => appendToMessages(x, credential));
  if (!isPlainObject(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [
    k, typeof x === 'string' ? (MESSAGE_KEYS.has(k) && x !== '' ? `${x} ${credential}` : x) : appendToMessages(x, credential),
  ]));
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(echoed(res, body, status >= 400));
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Canned OpenAI-shaped errors, shared by the `status=` directive and scripted faults. */
export function statusError(status: number): { body: ErrorBody; headers: Record<string, string> } {
  switch (status) {
    case 429:
      return {
        body: errorBody('Rate limit reached for requests per min (RPM): Limit 60, Used 60, Requested 1. Please try again in 1s.', 'requests', null, 'rate_limit_exceeded'),
        headers: { 'retry-after': '1', 'x-ratelimit-remaining-requests': '0' },
      };
    case 500:
      return { body: errorBody('The server had an error while processing your request. Sorry about that!', 'server_error', null, null), headers: {} };
    case 503:
      return { body: errorBody('The engine is currently overloaded, please try again later.', 'server_error', null, 'service_unavailable'), headers: {} };
    case 401:
      return { body: errorBody('Incorrect API key provided.', 'invalid_request_error', null, 'invalid_api_key'), headers: {} };
    default: {
      const type = status >= 500 ? 'server_error' : 'invalid_request_error';
      return { body: errorBody(`Simulated error (HTTP ${status}).`, type, null, null), headers: {} };
    }
  }
}

/** Resolves true after `ms`, or false as soon as the signal aborts (and the timer is cleared). */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (!(ms > 0)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Writes and waits until the bytes reached the socket, so each SSE event (or audio chunk) leaves on its own. */
export function write(res: ServerResponse, data: string | Uint8Array, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted || res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    res.write(data, (err) => {
      signal.removeEventListener('abort', onAbort);
      resolve(!err);
    });
  });
}

/** OpenAI's Bearer check with its own 401 wording; shared by every OpenAI-shaped vendor here. False = already answered. */
export function openaiAuthorized(ctx: { req: IncomingMessage; res: ServerResponse; keys: ReadonlySet<string> }): boolean {
  const key = bearerKey(ctx.req);
  if (key !== undefined && ctx.keys.has(key)) return true;
  const message = key === undefined
    ? "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
    : `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`;
  sendJson(ctx.res, 401, errorBody(message, 'invalid_request_error', null, 'invalid_api_key'));
  return false;
}
