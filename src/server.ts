// The HTTP server: connection bounds, then each request through the pipeline (src/pipeline/index.ts, the stage
// list), its failure answered in the contract's shape, and one access-log line when its work is over.
import { finishedRequest } from './finished-request.js';
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { RunningGateway } from './gateway.js';
import type { Exchange } from './pipeline/exchange.js';
import { GatewayError, sendError, shapeA, toGatewayError } from './http/errors.js';
import { ClientGone } from './http/read-body.js';
import { newContext, newRequestId, type RequestContext } from './pipeline/context.js';
import { observeRequest } from './metrics/metrics.js';
import { serve } from './pipeline/index.js';
import { policyOf } from './policies/index.js';
import { GatewayResponse } from './http/gateway-response.js';
import { bodyStillArriving } from './http/linger.js';
import { maxOpenFiles } from './http/open-files.js';
import { defaultReason, transformFailure } from './pipeline/refusal-reasons.js';
import { TransformError } from './transform/compile-transform.js';
import { RefusedConnections } from './http/refused-connections.js';

/** `tls`: the certificate and key to serve HTTPS (and wss://) with; plain HTTP without. */
export function createGatewayServer(g: RunningGateway, tls?: { cert: Buffer; key: Buffer }): Server {
  const limits = g.runtime.server;
  const linger = { totalMs: limits.linger_ms, idleMs: limits.linger_idle_ms };
  const options: ServerOptions = {
    ServerResponse: GatewayResponse,
    maxHeaderSize: 16 * 1024,
    headersTimeout: limits.header_timeout_ms,
    requestTimeout: Math.max(limits.request_timeout_ms, limits.header_timeout_ms + 1),
    keepAliveTimeout: limits.keep_alive_timeout_ms,
    // Node checks the two timeouts above this often; its 30 s default would let a slow client stay 30 s longer.
    connectionsCheckingInterval: Math.min(1000, limits.header_timeout_ms),
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (overCap.has(req.socket)) { res.destroy(); return; }
    (res as GatewayResponse).redactor = g.redactor;
    (res as GatewayResponse).linger = linger; // an answer given before the body arrived closes the connection
    void handle(g, req, res);
  };
  // A TLS handshake is bounded like a request's headers: a connection that never completes one holds a socket.
  const server: Server = tls ? createTlsServer({ ...options, ...tls, handshakeTimeout: limits.header_timeout_ms }, onRequest) : createServer(options, onRequest);
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    if (overCap.has(socket)) { socket.destroy(); return; }
    // A WebSocket upgrade goes through the same pipeline: its refusals are HTTP answers written on its socket, which
    // then closes; a realtime route takes the socket over (src/realtime/open-session.ts).
    const res = new GatewayResponse(req);
    res.assignSocket(socket);
    res.shouldKeepAlive = false;
    res.redactor = g.redactor;
    socket.on('error', () => socket.destroy());
    res.once('finish', () => socket.end());
    void handle(g, req, res, { socket, head });
  });
  const refused = new RefusedConnections(g.log);
  server.once('close', () => refused.flush());
  capConnections(server, Math.min(limits.max_connections, maxOpenFiles() - 512), refused, Boolean(tls));
  server.on('clientError', (err: Error & { code?: string }, socket) => {
    if (!socket.writable) { socket.destroy(); return; }
    const [status, code, message] = clientErrorAnswer(err.code);
    refused.note(clientErrorReason(err.code, limits));
    // Refused before it became a request, yet answered like one: an id in the header and at the message's end.
    const id = newRequestId();
    const body = shapeA(`${message} (request id: ${id})`, 'invalid_request_error', code);
    socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\nx-request-id: ${id}\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
  return server;
}

function clientErrorAnswer(code: string | undefined): [string, string, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return ['431 Request Header Fields Too Large', 'request_header_too_large', 'Request headers too large'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return ['408 Request Timeout', 'request_timeout', 'The request was not received in time'];
  return ['400 Bad Request', 'invalid_request', 'Malformed HTTP request'];
}

/** The operator's reason for a request refused by Node's parser, with the setting where there is one. */
function clientErrorReason(code: string | undefined, limits: RunningGateway['runtime']['server']): string {
  if (code === 'HPE_HEADER_OVERFLOW') return 'request headers over 16 KiB';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return `request not received within server.header_timeout_ms (${limits.header_timeout_ms} ms) or server.request_timeout_ms (${limits.request_timeout_ms} ms)`;
  return 'malformed HTTP request';
}

const overCap = new WeakSet<Socket>();

type Upgrade = NonNullable<Exchange['upgrade']>;

/**
 * One connection past the cap is answered 503 and closed, so the connections already open keep being served; under
 * TLS, where nothing can be said before a handshake, it is closed at once.
 */
function capConnections(server: Server, max: number, refused: RefusedConnections, tls: boolean): void {
  let open = 0;
  const body = shapeA('The gateway has too many open connections; retry shortly', 'platform_api_error', 'server_busy');
  server.on('connection', (socket: Socket) => {
    if (open >= max) {
      refused.note(`connections over server.max_connections (${max})`);
      if (tls) { socket.destroy(); return; }
      overCap.add(socket); // whatever request it sends is never served
      socket.end(`HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\nretry-after: 1\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      socket.setTimeout(1000, () => socket.destroy());
      return;
    }
    open++;
    socket.once('close', () => { open--; });
  });
}

async function handle(g: RunningGateway, req: IncomingMessage, res: ServerResponse, upgrade?: Upgrade): Promise<void> {
  const ctx = newContext(req.method ?? 'GET', req.url ?? '/');
  if (g.tracing) ctx.trace = g.tracing.request(req, ctx);
  res.setHeader('x-request-id', ctx.id);
  g.active.add(ctx);
  // A client that leaves aborts everything its request still awaits (body read, upstream call, relay); a WebSocket
  // session, once accepted, watches its own sockets.
  res.once('close', () => { if (!res.writableFinished && !ctx.abort.signal.aborted) ctx.abort.abort('client_gone'); });
  if (upgrade) {
    upgrade.onClose = () => { if (!ctx.abort.signal.aborted) ctx.abort.abort('client_gone'); };
    upgrade.socket.once('close', upgrade.onClose);
  }
  try {
    await serve({ g, req, res, ctx, upgrade }, policyOf);
  } catch (err) {
    await fail(g, ctx, res, err);
  } finally {
    for (const undo of ctx.cleanup) undo();
    g.active.delete(ctx);
  }
  // Logged when the request's work is over (settled, refunded, stream closed), not when the socket closes.
  if (ctx.abort.signal.reason === 'client_gone') ctx.logStatus = 499;
  ctx.trace?.end(res);
  // One record, serialized once into the access line and the request log's row.
  const line = g.log.isLevelEnabled('info');
  const row = g.requestLog !== undefined && logged(ctx);
  if (line || row) {
    const done = finishedRequest(ctx, res, line, row);
    if (done.line) g.logging.write(done.line);
    if (done.row) g.requestLog!.addRow(done.row);
  }
  observeRequest(ctx, res);
}

/**
 * What the request log keeps: requests to the API, refused or not (a client's 401 is worth finding). Not the
 * health checks, metrics scrapes and console files, nor the admin API's own reads (a topup is recorded as one).
 */
const logged = (ctx: RequestContext) => !unlogged.has(ctx.route?.policy ?? '');
const unlogged = new Set(['health', 'ready', 'metrics', 'openapi', 'console', 'admin']);

async function fail(g: RunningGateway, ctx: RequestContext, res: ServerResponse, err: unknown): Promise<void> {
  const reason = ctx.abort.signal.reason;
  if (reason === 'client_gone' || err instanceof ClientGone) { ctx.errorCode = 'client_gone'; return; }
  const e = reason === 'shutdown' ? new GatewayError('shutting_down') : err instanceof TransformError ? transformFailure(err, ctx) : toGatewayError(err);
  ctx.errorCode = e.code;
  ctx.reason = e.reason ?? defaultReason(e, ctx, g.runtime);
  if (e.code === 'internal_error') g.log.error({ req_id: ctx.id, err }, 'unhandled error');
  // A body sent with its headers may be parsed only after a refusal of the headers: once it is, the refusal keeps
  // the connection alive; one still arriving then gets `Connection: close` (linger.ts).
  if (bodyStillArriving(res.req)) await new Promise(setImmediate);
  if (res.destroyed) return;
  await inFamilyShape(ctx, e);
  sendError(res, e, ctx.id, ctx.route?.errorType);
}

/** Routes of a family with its own error shape answer in it; saturated task routes may ask for Shape B. */
async function inFamilyShape(ctx: RequestContext, e: GatewayError): Promise<void> {
  const route = ctx.route;
  if (!route || e.answer !== undefined) return;
  if (e.code === 'too_many_requests' && route.task?.saturatedShape === 'B') e.shape = 'B';
  if (!route.errorAnswer) return;
  const message = `${e.message} (request id: ${ctx.id})`;
  e.answer = await route.errorAnswer.run({}, { status: e.status, code: e.code, message, type: e.type }).catch(() => undefined);
}

