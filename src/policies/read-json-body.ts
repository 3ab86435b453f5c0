// Reads, parses and validates a route's JSON body once; the result is shared by every later stage.
import type { IncomingMessage } from 'node:http';
import type { Gateway } from '../gateway.js';
import type { RequestContext } from '../pipeline/context.js';
import { GatewayError } from '../http/errors.js';
import { readBody, parseJsonObject } from '../http/read-body.js';
import { describeAjvErrors } from '../config/schema-registry.js';
import { isMultipart, readMultipart } from '../http/multipart.js';

export async function readJsonBody(g: Gateway, ctx: RequestContext, req: IncomingMessage): Promise<{ body: Record<string, unknown>; raw: Buffer }> {
  const route = ctx.route!;
  // Any declared type is read as JSON (curl's default form type included), except multipart.
  const multipart = isMultipart(req);
  if (multipart && !route.multipart) {
    throw new GatewayError('unsupported_media_type', 'This route takes a JSON body (Content-Type: application/json)');
  }
  const limits = g.bodyLimits(ctx, route.limits.maxBodyBytes);
  // Multipart uploads stream to disk; only JSON bodies are held (bounded) in memory.
  const raw = multipart ? Buffer.alloc(0) : await readBody(req, limits);
  const body = multipart ? await readMultipart(req, limits) : parseJsonObject(raw, route.limits.maxJsonDepth);
  if (route.validate && !route.validate(body)) {
    throw new GatewayError('invalid_request', describeAjvErrors(route.validate.errors));
  }
  return { body, raw };
}
