// The baseline the speed targets divide by: a bare node:http pass-through to the simulator, what a minimal
// hand-written proxy does and nothing more (no auth check, routing, transforms, logging, metrics or billing).
// Every request is forwarded blindly, chat JSON, SSE and /files downloads alike. Started by processes.ts as a child.
import { Agent, createServer, request, type IncomingHttpHeaders } from 'node:http';

const upstream = new URL(process.env.BARE_UPSTREAM ?? 'http://127.0.0.1:1');
const authorization = `Bearer ${process.env.BARE_KEY ?? ''}`;
// Pooled keep-alive upstream connections, most recently used first (warm sockets), never queued behind a cap.
const agent = new Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' });

// Hop-by-hop headers describe one connection, not the message: a proxy must not forward them (RFC 9110 §7.6.1).
const hopByHop = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade'];
function endToEnd(h: IncomingHttpHeaders): IncomingHttpHeaders {
  const out = { ...h };
  for (const k of hopByHop) delete out[k];
  return out;
}

const server = createServer((req, res) => {
  const headers = endToEnd(req.headers);
  headers.host = upstream.host;
  headers.authorization = authorization; // the simulator's key replaces whatever the client sent
  const up = request({ hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (ures) => {
    res.writeHead(ures.statusCode ?? 502, endToEnd(ures.headers));
    ures.pipe(res); // backpressure both ways: a slow client pauses the upstream read
    ures.once('error', () => res.destroy());
  });
  up.once('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":{"message":"bad gateway"}}');
    else res.destroy();
  });
  // A client that leaves early (slow download, aborted stream) must not keep the upstream transfer going.
  res.once('close', () => { if (!res.writableFinished) up.destroy(); });
  req.pipe(up);
});

server.listen(Number(process.env.BARE_PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => { server.close(); server.closeAllConnections(); agent.destroy(); });
