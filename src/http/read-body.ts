// Reads a request body with its size bound enforced while reading, then parses JSON with a depth bound.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from './errors.js';

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) {
    req.resume();
    return Promise.reject(new GatewayError('request_too_large', `Request body exceeds ${maxBytes} bytes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.resume(); // drain the rest without keeping it
        reject(new GatewayError('request_too_large', `Request body exceeds ${maxBytes} bytes`));
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    req.once('error', () => reject(new GatewayError('invalid_request', 'Request body could not be read')));
  });
}

/** Parses a JSON object body; the depth scan runs first so a hostile body cannot exhaust the stack. */
export function parseJsonObject(raw: Buffer, maxDepth: number): Record<string, unknown> {
  if (!raw.length) throw new GatewayError('invalid_request', 'Request body is empty; a JSON object is required');
  if (jsonDepth(raw) > maxDepth) throw new GatewayError('invalid_request', `Request body nests deeper than ${maxDepth} levels`);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new GatewayError('invalid_request', `Request body is not valid JSON: ${(err as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new GatewayError('invalid_request', 'Request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function jsonDepth(raw: Buffer): number {
  let depth = 0, max = 0, inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === 0x5c) i++; // skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) { if (++depth > max) max = depth; }
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}
