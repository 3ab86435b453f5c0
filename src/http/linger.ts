// A request answered before its body arrived (401, 403, 404, 413, 429, ...) ends its connection: a client that is
// still sending could otherwise keep it open for as long as it trickles. The answer says `Connection: close`; then,
// as nginx's lingering close does, what the client still sends is read and dropped for a bounded time (closing at
// once, with its bytes unread, would reset the connection and could destroy the answer before the client reads it),
// and the socket is closed when the client stops sending, pauses, or the linger's time is up.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface Linger {
  /** Longest linger after the answer. */
  totalMs: number;
  /** The linger ends sooner when nothing arrives for this long. */
  idleMs: number;
}

/** The request has a body that has not all arrived. */
export function bodyStillArriving(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Called as the answer's head is written. An answer that closes by itself (a 408 for a slow body) closes at once, as
 * Node does: a client too slow to send its body is not waited for.
 */
export function closeAfterAnswer(res: ServerResponse, headers: OutgoingHttpHeaders | undefined, l: Linger): void {
  if (/close/i.test(String(headers?.connection ?? res.getHeader('connection') ?? ''))) return;
  res.setHeader('connection', 'close');
  const socket = res.socket as (Socket & { destroySoon?: () => void }) | null;
  // Node ends a `Connection: close` answer's socket with destroySoon(): our side's end, then at once the socket.
  if (socket) socket.destroySoon = () => linger(socket, res.req, l);
}

function linger(socket: Socket, req: IncomingMessage, l: Linger): void {
  socket.end();
  // Closed once the answer has left (as Node's own destroySoon), but never later than the linger's end.
  const close = () => { if (socket.writableFinished) socket.destroy(); else socket.once('finish', () => socket.destroy()); };
  if (req.complete || l.totalMs === 0) { close(); return; }
  const total = setTimeout(() => socket.destroy(), l.totalMs);
  // Node's parser reads and drops the rest of the body without a 'data' event (the request was dumped when its
  // answer finished), so arrivals are seen in the socket's byte count, checked when the idle timer fires.
  let seen = socket.bytesRead;
  const idle = setTimeout(function check() {
    if (socket.bytesRead === seen) { close(); return; }
    seen = socket.bytesRead;
    idle.refresh();
  }, l.idleMs);
  req.once('end', close);
  socket.once('close', () => { clearTimeout(total); clearTimeout(idle); });
}
