// Google's error body and key check, shared by the image and chat handlers of the Gemini API.
import { type Ctx, sendJson } from '../http.js';
import { type Json, type VendorError, retryHeaders } from '../video/common.js';

const STATUS_WORDS: Record<number, string> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED',
};

function googleBody(code: number, message: string, details?: Json[]): Json {
  const error: Json = { code, message, status: STATUS_WORDS[code] ?? (code >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT') };
  if (details) error.details = details;
  return { error };
}

export function geminiFail(ctx: Ctx, code: number, message: string, details?: Json[]): void {
  sendJson(ctx.res, code, googleBody(code, message, details));
}

export function geminiError(status: number): VendorError {
  const message = status === 429 ? 'Resource has been exhausted (e.g. check quota).' : status === 503 ? 'The model is overloaded. Please try again later.' : `Simulated error (HTTP ${status}).`;
  return { body: googleBody(status, message), headers: retryHeaders(status) };
}

/** The key the client sent: header first, then `?key=` (Google accepts either). */
export function googleKey(ctx: Pick<Ctx, 'req'>): string | undefined {
  const h = ctx.req.headers['x-goog-api-key'];
  if (typeof h === 'string' && h !== '') return h;
  return new URL(ctx.req.url ?? '/', 'http://sim').searchParams.get('key') ?? undefined;
}

export function geminiAuthorized(ctx: Ctx): boolean {
  const key = googleKey(ctx);
  if (key !== undefined && ctx.keys.has(key)) return true;
  if (key === undefined) {
    geminiFail(ctx, 403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.");
    return false;
  }
  geminiFail(ctx, 400, 'API key not valid. Please pass a valid API key.', [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
  ]);
  return false;
}

