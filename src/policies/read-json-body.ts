// Reads, parses and validates a route's JSON body once; the result is shared by every later stage.
import type { IncomingMessage } from 'node:http';
import type { CompiledRoute } from '../config/runtime.js';
import { GatewayError } from '../http/errors.js';
import { readBody, parseJsonObject } from '../http/read-body.js';
import { describeAjvErrors } from '../config/schema-registry.js';
import { isMultipart, parseMultipart } from '../http/multipart.js';

export async function readJsonBody(req: IncomingMessage, route: CompiledRoute): Promise<{ body: Record<string, unknown>; raw: Buffer }> {
  // Any declared type is read as JSON (curl's default form type included), except multipart.
  const multipart = isMultipart(req);
  if (multipart && !route.multipart) {
    throw new GatewayError('unsupported_media_type', 'This route takes a JSON body (Content-Type: application/json)');
  }
  const raw = await readBody(req, route.limits.maxBodyBytes);
  const body = multipart ? await parseMultipart(raw, req.headers['content-type']!) : parseJsonObject(raw, route.limits.maxJsonDepth);
  if (route.validate && !route.validate(body)) {
    throw new GatewayError('invalid_request', describeAjvErrors(route.validate.errors));
  }
  return { body, raw };
}
