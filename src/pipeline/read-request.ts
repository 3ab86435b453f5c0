// Stage: the request body, read once within its bounds and checked against the route's schema. JSON routes parse it
// (multipart uploads spool files to disk); raw routes keep the bytes to forward as they came.
import { GatewayError } from '../http/errors.js';
import { readBody, parseJsonObject } from '../http/read-body.js';
import { describeAjvErrors } from '../config/schema-registry.js';
import { isMultipart, readMultipart } from '../http/multipart.js';
import type { Caller, Exchange, Inbound } from './exchange.js';
import type { CompiledRoute } from '../config/runtime.js';
import { probeUploads } from '../media/probe-uploads.js';

export type BodyKind = 'json' | 'raw';

/** Throws invalid_request (400), request_timeout (408), request_too_large (413), unsupported_media_type (415), server_busy (503). */
export async function readRequest(ex: Exchange, c: Caller, kind: BodyKind): Promise<Inbound> {
  const { route } = c;
  const limits = ex.g.bodyLimits(ex.ctx, route.limits.maxBodyBytes);
  if (kind === 'raw') {
    const raw = ex.req.method === 'GET' || ex.req.method === 'HEAD' ? Buffer.alloc(0) : await readBody(ex.req, limits);
    return { ...c, raw, body: jsonOrEmpty(raw) };
  }
  // Any declared type is read as JSON (curl's default form type included), except multipart.
  const multipart = isMultipart(ex.req);
  if (multipart && !route.multipart) throw new GatewayError('unsupported_media_type', 'This route takes a JSON body (Content-Type: application/json)');
  const raw = multipart ? Buffer.alloc(0) : await readBody(ex.req, limits);
  const body = multipart ? await readMultipart(ex.req, limits) : parseJsonObject(raw, route.limits.maxJsonDepth);
  checkBody(route, body);
  checkCallback(c, body);
  if (multipart && route.priceInputs.media_seconds) await probeUploads(body, route.priceInputs.media_seconds);
  return { ...c, raw, body };
}

/** A JSON body read and checked as a proxied route's is, for routes the gateway answers itself (the admin API). */
export async function readJson(ex: Exchange, route: CompiledRoute): Promise<Record<string, unknown>> {
  if (isMultipart(ex.req)) throw new GatewayError('unsupported_media_type', 'This route takes a JSON body (Content-Type: application/json)');
  const body = parseJsonObject(await readBody(ex.req, ex.g.bodyLimits(ex.ctx, route.limits.maxBodyBytes)), route.limits.maxJsonDepth);
  checkBody(route, body);
  return body;
}

function checkBody(route: CompiledRoute, body: Record<string, unknown>): void {
  if (route.validate && !route.validate(body)) throw new GatewayError('invalid_request', describeAjvErrors(route.validate.errors));
}

/** The client's callback URL (route `task.callback.field`) must be an http(s) URL; its address is checked at delivery. */
function checkCallback(c: Caller, body: Record<string, unknown>): void {
  const field = c.route.task?.callback?.field;
  const v = field ? body[field] : undefined;
  if (v === undefined || v === null || v === '') return;
  if (typeof v !== 'string' || !/^https?:\/\/[^\s]+$/.test(v) || v.length > 2048) throw new GatewayError('invalid_request', `\`${field}\` must be an http(s) URL`);
}

/** A raw body as JSON when it is JSON (to find the model in it); the bytes forwarded stay the original ones. */
function jsonOrEmpty(raw: Buffer): Record<string, unknown> {
  try {
    const v = raw.length ? JSON.parse(raw.toString('utf8')) : {};
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}
