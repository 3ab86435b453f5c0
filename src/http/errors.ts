// The error catalog: every error a client sees has a code, an HTTP status and a contract shape.
import type { ServerResponse } from 'node:http';

export interface CatalogEntry { status: number; type: string; message: string }

// Shape A `type`: gateway-level failures are platform_api_error; request and key faults are invalid_request_error.
export const catalog = {
  not_found: { status: 404, type: 'invalid_request_error', message: 'Invalid URL' },
  method_not_allowed: { status: 405, type: 'invalid_request_error', message: 'Method not allowed' },
  invalid_api_key: { status: 401, type: 'invalid_request_error', message: 'Invalid API key' },
  admin_key_required: { status: 403, type: 'invalid_request_error', message: 'This route takes the admin key, not a client token' },
  token_not_found: { status: 404, type: 'invalid_request_error', message: 'Token not found' },
  user_not_found: { status: 404, type: 'invalid_request_error', message: 'User not found' },
  team_not_found: { status: 404, type: 'invalid_request_error', message: 'Team not found' },
  conflict: { status: 409, type: 'invalid_request_error', message: 'The change conflicts with the current state' },
  session_required: { status: 401, type: 'invalid_request_error', message: 'Sign in to the console first' },
  invalid_credentials: { status: 401, type: 'invalid_request_error', message: 'Wrong user name or password' },
  csrf_refused: { status: 403, type: 'invalid_request_error', message: 'Refused: the request lacks this session\'s X-CSRF-Token or comes from another origin' },
  invite_not_found: { status: 404, type: 'invalid_request_error', message: 'No such invite' },
  invite_used: { status: 409, type: 'invalid_request_error', message: 'This invite was already used; ask the operator for a new one' },
  invite_expired: { status: 410, type: 'invalid_request_error', message: 'This invite has expired; ask the operator for a new one' },
  invalid_request: { status: 400, type: 'invalid_request_error', message: 'Invalid request' },
  upgrade_required: { status: 426, type: 'invalid_request_error', message: 'This route is a WebSocket: connect with Upgrade: websocket' },
  request_too_large: { status: 413, type: 'invalid_request_error', message: 'Request body too large' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error', message: 'Content-Type must be application/json' },
  model_not_allowed: { status: 403, type: 'invalid_request_error', message: 'This token has no access to the model' },
  model_not_found: { status: 404, type: 'invalid_request_error', message: 'The model does not exist or is not available to this token' },
  insufficient_user_quota: { status: 403, type: 'platform_api_error', message: 'Insufficient quota' },
  too_many_requests: { status: 429, type: 'platform_api_error', message: 'Too many requests' },
  no_available_channel: { status: 503, type: 'platform_api_error', message: 'No upstream channel is available for this model' },
  upstream_error: { status: 502, type: 'platform_api_error', message: 'The upstream failed' },
  upstream_timeout: { status: 504, type: 'platform_api_error', message: 'The upstream timed out' },
  bad_response_body: { status: 502, type: 'platform_api_error', message: 'Bad upstream response body' },
  bad_response: { status: 502, type: 'platform_api_error', message: 'copy_response_body_failed' },
  task_not_found: { status: 404, type: 'invalid_request_error', message: 'Task not found' },
  file_not_found: { status: 404, type: 'invalid_request_error', message: 'File not found' },
  task_not_completed: { status: 400, type: 'invalid_request_error', message: 'Task is not completed yet' },
  task_busy: { status: 409, type: 'platform_api_error', message: 'The task is being updated; retry in a moment' },
  task_failed: { status: 400, type: 'platform_api_error', message: 'The upstream refused the task' },
  request_timeout: { status: 408, type: 'invalid_request_error', message: 'The request was not received in time' },
  server_busy: { status: 503, type: 'platform_api_error', message: 'The gateway is at capacity; retry shortly' },
  request_log_unavailable: { status: 503, type: 'platform_api_error', message: 'The request log database is unavailable; retry shortly' },
  shutting_down: { status: 503, type: 'platform_api_error', message: 'The gateway is shutting down; retry on another instance' },
  internal_error: { status: 500, type: 'platform_api_error', message: 'Internal gateway error' },
} satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof catalog;

/** A catalogued failure; stages throw it and the server turns it into a response. */
export class GatewayError extends Error {
  readonly code: string;
  readonly status: number;
  readonly type: string;
  headers?: Record<string, string>;
  /** Shape B (`{code, message, data: null}`) where the contract asks for it, e.g. saturated task groups. */
  shape: 'A' | 'B' = 'A';
  /** A vendor-format body sent instead of the shapes (e.g. an image-art `{code, description, result}`). */
  answer?: unknown;
  /**
   * Why the gateway refused, for the operator: the check, what it met (an address, a size) and the setting that
   * changes it. Written to the access line only, never sent to the client; no secret and no unbounded client string.
   */
  reason?: string;
  constructor(code: ErrorCode, message?: string, opts: { status?: number; type?: string; headers?: Record<string, string> } = {}) {
    const entry: CatalogEntry = catalog[code];
    super(message ?? entry.message);
    this.code = code;
    this.status = opts.status ?? entry.status;
    this.type = opts.type ?? entry.type;
    this.headers = opts.headers;
  }

  /** Sets the operator's reason (see `reason`) and returns the error, for `throw new GatewayError(…).because(…)`. */
  because(reason: string): this {
    this.reason = reason;
    return this;
  }

  /** An upstream's own client error (e.g. 400 context too long), relayed with its status and code. */
  static fromUpstream(status: number, code: string, message: string, type = 'upstream_error'): GatewayError {
    const e = new GatewayError('upstream_error', message, { status, type });
    (e as { code: string }).code = code;
    return e;
  }
}

/** A client-supplied value quoted in a message, cut short: an answer never grows with what a client sent. */
export const clip = (s: string, max = 64) => (s.length > max ? `${s.slice(0, max)}…` : s);

/** Shape A body. `param` is always the empty string, as the contract shows. */
export function shapeA(message: string, type: string, code: string): string {
  return JSON.stringify({ error: { message, type, param: '', code } });
}

export function sendError(res: ServerResponse, err: GatewayError, requestId: string, typeOverride?: string): void {
  if (res.headersSent) { res.destroy(); return; }
  const message = `${err.message} (request id: ${requestId})`;
  const body = err.answer !== undefined ? JSON.stringify(err.answer) : err.shape === 'B'
    ? JSON.stringify({ code: err.code, message, data: null })
    : shapeA(message, pickType(err, typeOverride), err.code);
  res.writeHead(err.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...err.headers,
  });
  res.end(body);
}

// A route's error_type is the type of every Shape A error on it (the unified video routes: platform_api_error).
function pickType(err: GatewayError, override?: string): string {
  return override ?? err.type;
}

export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError('internal_error');
}
