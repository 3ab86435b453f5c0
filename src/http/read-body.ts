// Reads a request body with its bounds enforced while reading: size, memory shared by all requests, its pace (the
// longest pause between chunks, the slowest average rate), and the client going away. Then parses JSON with a depth
// bound and strict UTF-8.
import type { Signal } from './abort.js';
import type { IncomingMessage } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { GatewayError } from './errors.js';
import type { BodyBudget } from './body-budget.js';
import { PaceWatch, type Pace } from './body-pace.js';

export interface BodyLimits extends Pace {
  maxBytes: number;
  budget: BodyBudget;
  /** Aborts when the request must stop (client gone, shutdown): the read settles at once. */
  signal: Signal;
  /** Where the memory held is given back, at the end of the request. */
  cleanup: (() => void)[];
}

/** Thrown when the client went away: there is nobody to answer. */
export class ClientGone extends Error {}

export function readBody(req: IncomingMessage, o: BodyLimits): Promise<Buffer> {
  if (o.signal.aborted || req.destroyed) return Promise.reject(new ClientGone('client closed the connection'));
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > o.maxBytes) {
    req.resume();
    return Promise.reject(new GatewayError('request_too_large', `Request body exceeds ${o.maxBytes} bytes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let held = 0;
    let pace: PaceWatch | undefined;
    o.cleanup.push(() => o.budget.give(held));
    const take = (n: number) => { if (!o.budget.take(n)) return false; held += n; return true; };
    const settle = (err?: Error) => {
      pace?.stop();
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onClose);
      o.signal.removeEventListener('abort', onGone);
      if (err) { req.resume(); reject(err); } else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > o.maxBytes) return settle(new GatewayError('request_too_large', `Request body exceeds ${o.maxBytes} bytes`));
      if (size > held && !take(size - held)) return settle(busy());
      chunks.push(c);
      pace!.data(c.length);
    };
    const onEnd = () => settle();
    const onGone = () => settle(new ClientGone('client closed the connection'));
    const onClose = () => { if (!req.complete) onGone(); };
    // A declared length is taken at once: a burst of large uploads is refused before it is read.
    if (Number.isFinite(declared) && declared > 0 && !take(declared)) { req.resume(); reject(busy()); return; }
    req.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onClose);
    o.signal.addEventListener('abort', onGone, { once: true });
    pace = new PaceWatch(o, settle);
  });
}

const busy = () => new GatewayError('server_busy', 'Too many request bodies are being received at once; retry shortly', { headers: { 'retry-after': '1' } });

/** Parses a JSON object body; the depth scan runs first so a hostile body cannot exhaust the stack. */
export function parseJsonObject(raw: Buffer, maxDepth: number): Record<string, unknown> {
  if (!raw.length) throw new GatewayError('invalid_request', 'Request body is empty; a JSON object is required');
  // JSON is UTF-8: invalid bytes would be silently replaced by the parser and then forwarded as they came.
  if (!isUtf8(raw)) throw new GatewayError('invalid_request', 'Request body is not valid UTF-8');
  if (jsonDepth(raw) > maxDepth) throw new GatewayError('invalid_request', `Request body nests deeper than ${maxDepth} levels`);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new GatewayError('invalid_request', `Request body is not valid JSON: ${(err as Error).message.slice(0, 200)}`);
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
