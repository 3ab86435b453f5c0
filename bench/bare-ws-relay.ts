// The baseline of the realtime scenario: a bare WebSocket relay to the simulator's Realtime socket, what a minimal
// hand-written relay does and nothing more (no auth check, model resolution, session slots, holds, metering or
// logging). On an upgrade it dials the same path on the simulator with the simulator's key, accepts the client once
// the vendor's side is open, then pipes every frame both ways as it came (text stays text), each side's sends bounded
// like the gateway's (a side that reads slowly pauses the other). Started by processes.ts as a child, on demand.
import { createServer } from 'node:http';
import WebSocket, { WebSocketServer, type RawData } from 'ws';

const upstream = new URL(process.env.BARE_WS_UPSTREAM ?? 'ws://127.0.0.1:1');
const authorization = `Bearer ${process.env.BARE_KEY ?? ''}`;
const maxPayload = 16 << 20; // the gateway's default max_frame_bytes
const highWater = 4 << 20;
const lowWater = 1 << 20;

const wss = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload });
const open = new Set<WebSocket>();

// Plain HTTP (the rig's readiness probe) gets 426: only upgrades are relayed.
const server = createServer((_req, res) => { res.writeHead(426, { 'content-type': 'text/plain' }).end('upgrade required'); });

server.on('upgrade', (req, socket, head) => {
  socket.on('error', () => {});
  const up = new WebSocket(new URL(req.url ?? '/', upstream), { headers: { authorization }, perMessageDeflate: false, maxPayload });
  let accepted = false;
  const refuse = (status: number) => {
    if (!socket.destroyed) socket.end(`HTTP/1.1 ${status} Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
  };
  up.once('open', () => {
    up.pause(); // the vendor's first event (session.created) waits until the client's side listens
    if (socket.destroyed) return void up.terminate();
    wss.handleUpgrade(req, socket, head, (client) => { accepted = true; relay(client, up); });
  });
  up.once('unexpected-response', (_r, res) => { res.resume(); refuse(res.statusCode ?? 502); up.terminate(); });
  up.on('error', () => { if (!accepted) refuse(502); });
  socket.once('close', () => { if (!accepted) up.terminate(); });
});

function relay(client: WebSocket, up: WebSocket): void {
  open.add(client).add(up);
  pipe(client, up);
  pipe(up, client);
  client.on('error', () => client.terminate());
  client.once('close', (code) => { open.delete(client); closeWith(up, code); });
  up.once('close', (code) => { open.delete(up); closeWith(client, code); });
  up.resume();
}

function pipe(from: WebSocket, to: WebSocket): void {
  let queued = 0;
  from.on('message', (data: RawData, isBinary: boolean) => {
    if (to.readyState !== WebSocket.OPEN) return;
    const size = (data as Buffer).length;
    queued += size;
    if (queued > highWater && !from.isPaused) from.pause();
    to.send(data, { binary: isBinary }, () => {
      queued -= size;
      if (queued < lowWater && from.isPaused) from.resume();
    });
  });
}

/** 1005 (no code) and 1006 (abnormal) describe a close but may not be sent in one. */
function closeWith(ws: WebSocket, code: number): void {
  if (ws.readyState !== WebSocket.OPEN && ws.readyState !== WebSocket.CONNECTING) return;
  const sendable = (code >= 1000 && code <= 1014 && ![1004, 1005, 1006].includes(code)) || (code >= 3000 && code <= 4999);
  ws.close(sendable ? code : 1000);
  setTimeout(() => ws.terminate(), 1000).unref();
}

server.listen(Number(process.env.BARE_WS_PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  for (const ws of open) ws.terminate();
  setTimeout(() => process.exit(0), 500).unref();
});
