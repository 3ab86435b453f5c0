// POST /v1/realtime/client_secrets: mints an ephemeral key (`ek_…`) carrying a session configuration, as OpenAI's GA
// API does. `expires_after.seconds` is 10–7200 (default 600) from creation; until then the value opens Realtime sockets
// (with that session) in place of an API key. Only an API key can mint one.
import { type Ctx, type Route, errorBody, openaiAuthorized, sendJson } from '../http.js';
import { randomBytes } from 'node:crypto';
import { type Json, defaultSession } from './defaults.js';
import { mergeSession } from './session-update.js';
import { realtimeStoreOf } from './store.js';

const DEFAULT_SECONDS = 600;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function bad(ctx: Ctx, message: string, param: string | null, code: string | null): void {
  sendJson(ctx.res, 400, errorBody(message, 'invalid_request_error', param, code));
}

async function mint(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  let body: Json;
  try {
    const parsed: unknown = JSON.parse(ctx.raw || '{}');
    body = isObject(parsed) ? parsed : {};
  } catch {
    return bad(ctx, "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)", null, null);
  }
  const seconds = isObject(body.expires_after) ? body.expires_after.seconds ?? DEFAULT_SECONDS : DEFAULT_SECONDS;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds)) return bad(ctx, "Invalid type for 'expires_after.seconds': expected an integer.", 'expires_after.seconds', 'invalid_type');
  if (seconds < 10) return bad(ctx, `Invalid 'expires_after.seconds': integer below minimum value. Expected a value >= 10, but got ${seconds} instead.`, 'expires_after.seconds', 'integer_below_min_value');
  if (seconds > 7200) return bad(ctx, `Invalid 'expires_after.seconds': integer above maximum value. Expected a value <= 7200, but got ${seconds} instead.`, 'expires_after.seconds', 'integer_above_max_value');
  const asked = isObject(body.session) ? body.session : { type: 'realtime' };
  if (asked.type !== 'realtime') return bad(ctx, `Invalid value: '${String(asked.type)}'. The simulator mints 'realtime' sessions only.`, 'session.type', 'invalid_value');
  const session = mergeSession({ ...defaultSession(String(asked.model ?? 'gpt-realtime'), 0) }, asked);
  if ('code' in session && 'message' in session) return bad(ctx, String(session.message), (session.param as string | null) ?? null, String(session.code));
  const value = `ek_${randomBytes(16).toString('hex')}`;
  const expiresAt = Math.floor(Date.now() / 1000) + seconds;
  realtimeStoreOf(ctx.control).secrets.set(value, { value, expiresAt: expiresAt * 1000, session });
  sendJson(ctx.res, 200, { value, expires_at: expiresAt, session });
}

export const realtimeClientSecrets: Route = { method: 'POST', path: '/v1/realtime/client_secrets', handle: mint };
