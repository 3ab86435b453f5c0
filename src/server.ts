// The HTTP server. A request's whole path reads top-down from `handle`:
// match route → authenticate → rate limit → policy (read body, validate, reserve quota, dispatch, relay, settle) → log.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Gateway } from './gateway.js';
import { sendError, shapeA, toGatewayError } from './http/errors.js';
import { newContext, type RequestContext } from './pipeline/context.js';
import { authenticate } from './pipeline/authenticate.js';
import { serveStream } from './policies/stream-policy.js';
import { serveModels } from './policies/models-policy.js';
import { serveTask } from './policies/task-policy.js';
import { servePassthrough } from './policies/passthrough-policy.js';
import { serveJson } from './policies/json-policy.js';
import { logRequest } from './log.js';
import { RedactingResponse } from './redaction/redacting-response.js';
import { observeRequest, serveMetrics } from './metrics.js';
import { serveHealth, serveReady } from './policies/health-policy.js';

export function createGatewayServer(g: Gateway): Server {
  const server = createServer({ maxHeaderSize: 16 * 1024, keepAliveTimeout: 65_000, requestTimeout: 0, ServerResponse: RedactingResponse }, (req, res) => {
    (res as RedactingResponse).redactor = g.redactor;
    void handle(g, req, res);
  });
  server.on('clientError', (err: Error & { code?: string }, socket) => {
    if (!socket.writable) { socket.destroy(); return; }
    const big = err.code === 'HPE_HEADER_OVERFLOW';
    const body = shapeA(big ? 'Request headers too large' : 'Malformed HTTP request', 'invalid_request_error', big ? 'request_header_too_large' : 'invalid_request');
    socket.end(`HTTP/1.1 ${big ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
  return server;
}

async function handle(g: Gateway, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const ctx = newContext(req.method ?? 'GET', req.url ?? '/');
  res.setHeader('x-request-id', ctx.id);
  g.inflight++;
  try {
    const { route, params } = g.routes.match(ctx.method, pathOf(ctx.url));
    ctx.route = route;
    ctx.params = params;
    if (route.auth) ctx.token = await authenticate(req, g.tokens);
    if (ctx.token) await g.limiter.takeShared(ctx.token.id, route.limits.rateLimit ?? g.runtime.groups.get(ctx.token.group)?.rate_limit);
    await runPolicy(g, ctx, req, res);
  } catch (err) {
    fail(g, ctx, res, err);
  }
  // Logged when the request's work is over (settled, refunded, stream closed), not when the socket closes.
  g.inflight--;
  if (g.log.isLevelEnabled('info')) logRequest(g.logging.write, ctx, res);
  observeRequest(ctx, res);
}

async function runPolicy(g: Gateway, ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  switch (ctx.route!.policy) {
    case 'models': return serveModels(g, ctx, res);
    case 'metrics': return serveMetrics(g, res);
    case 'health': return serveHealth(res);
    case 'ready': return serveReady(g, res);
    case 'stream': return serveStream(g, ctx, req, res);
    case 'json': return serveJson(g, ctx, req, res);
    case 'task': return serveTask(g, ctx, req, res);
    case 'passthrough': return servePassthrough(g, ctx, req, res);
  }
}

function fail(g: Gateway, ctx: RequestContext, res: ServerResponse, err: unknown): void {
  const e = toGatewayError(err);
  ctx.errorCode = e.code;
  if (e.code === 'internal_error') g.log.error({ req_id: ctx.id, err }, 'unhandled error');
  if (!res.destroyed) sendError(res, e, ctx.id, ctx.route?.errorType);
}

const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};
