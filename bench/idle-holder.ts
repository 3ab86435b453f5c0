// Child process of the connection-soak scenario: opens N TCP connections to the gateway, sends one GET /healthz on each,
// reads the answer (200 → the connection is now an idle keep-alive connection; 503 → refused), then holds them idle.
// One process cannot hold 20,000 sockets under a 20,000 open-file limit, so the scenario starts several of these.
//
// Protocol: JSON lines on stdout ({t:'progress'|'ramped'|'snapshot'|'final', ...counts}); on stdin, the line
// `snapshot <id>` asks for the counts now. SIGTERM, SIGINT or stdin closing (the parent died) closes every socket and exits.
import { connect, type Socket } from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string' },
    count: { type: 'string', default: '5000' },
    parallel: { type: 'string', default: '100' },
    'timeout-ms': { type: 'string', default: '15000' },
    'progress-ms': { type: 'string', default: '1000' },
  },
});
const host = values.host!;
const port = Number(values.port);
const count = Number(values.count);
const parallel = Number(values.parallel);
const timeoutMs = Number(values['timeout-ms']);
const progressMs = Number(values['progress-ms']);
if (!Number.isInteger(port) || port <= 0 || !Number.isInteger(count) || count < 1 || !Number.isInteger(parallel) || parallel < 1) {
  console.error('usage: idle-holder --port P [--host H] [--count N] [--parallel K] [--timeout-ms T]');
  process.exit(2);
}

const request = Buffer.from('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
const t0 = performance.now();

const c = {
  attempted: 0,
  /** Connections that got 200 and are open and idle now. */
  idle: 0,
  /** Every connection that ever reached the idle state. */
  everIdle: 0,
  /** Answered 503 (over the gateway's max_connections). */
  refused: 0,
  /** Any other status on the first request. */
  otherStatus: 0,
  /** connect() failed (by errno code in `connectErrorCodes`). */
  connectErrors: 0,
  /** Connected, but the socket failed or closed before a full answer. */
  failedBeforeAnswer: 0,
  /** No full answer within timeout-ms. */
  timeouts: 0,
  /** Idle connections the gateway closed. */
  closedByPeer: 0,
  /** Bytes arriving on an idle connection (the gateway should send none). */
  unexpectedData: 0,
  inFlight: 0,
  /** Slowest connect + first answer, ms. */
  maxSetupMs: 0,
  /** ms since start of the first idle-connection close by the gateway, or -1. */
  firstPeerCloseMs: -1,
};
const connectErrorCodes: Record<string, number> = {};
const otherStatuses: Record<string, number> = {};
const sockets = new Set<Socket>();
let rampedAt = -1;
let closing = false;

const now = () => Math.round(performance.now() - t0);
const emit = (t: string, extra: Record<string, unknown> = {}) => {
  process.stdout.write(`${JSON.stringify({ t, ms: now(), pid: process.pid, ...c, connectErrorCodes, otherStatuses, rampedAt, ...extra })}\n`);
};

function openOne(): void {
  c.attempted++;
  c.inFlight++;
  const started = performance.now();
  const s = connect({ host, port });
  sockets.add(s);
  let state: 'connecting' | 'awaiting' | 'idle' | 'done' = 'connecting';
  let buf = Buffer.alloc(0);
  const timer = setTimeout(() => { if (state === 'connecting' || state === 'awaiting') { c.timeouts++; finish(); s.destroy(); } }, timeoutMs);

  // Leaves the setup phase exactly once, freeing its slot for the next connection.
  const finish = () => {
    if (state === 'idle' || state === 'done') return;
    state = 'done';
    clearTimeout(timer);
    c.inFlight--;
    c.maxSetupMs = Math.max(c.maxSetupMs, performance.now() - started);
    next();
  };

  s.once('connect', () => {
    if (state !== 'connecting') return;
    state = 'awaiting';
    s.write(request);
  });
  s.on('data', (chunk: Buffer) => {
    if (state === 'idle') { c.unexpectedData++; return; }
    if (state !== 'awaiting') return;
    buf = Buffer.concat([buf, chunk]);
    const end = buf.indexOf('\r\n\r\n');
    if (end === -1) return;
    const head = buf.subarray(0, end).toString('latin1');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
    const len = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (buf.length < end + 4 + len) return; // body not complete yet
    const closes = /\r\nconnection:\s*close/i.test(head);
    if (status === 200 && !closes) {
      finish();
      state = 'idle';
      c.idle++;
      c.everIdle++;
      buf = Buffer.alloc(0);
      return;
    }
    if (status === 503) c.refused++;
    else { c.otherStatus++; otherStatuses[String(status)] = (otherStatuses[String(status)] ?? 0) + 1; }
    finish();
    s.destroy();
  });
  s.on('error', (err: NodeJS.ErrnoException) => {
    if (state === 'connecting') {
      c.connectErrors++;
      const code = err.code ?? 'unknown';
      connectErrorCodes[code] = (connectErrorCodes[code] ?? 0) + 1;
      finish();
    } else if (state === 'awaiting') { c.failedBeforeAnswer++; finish(); }
    // An error on an idle socket is followed by 'close', counted there.
  });
  s.once('close', () => {
    sockets.delete(s);
    if (state === 'awaiting' || state === 'connecting') { c.failedBeforeAnswer++; finish(); return; }
    if (state === 'idle' && !closing) {
      c.idle--;
      c.closedByPeer++;
      if (c.firstPeerCloseMs < 0) c.firstPeerCloseMs = now();
    } else if (state === 'idle') c.idle--;
    state = 'done';
  });
}

/** Keeps `parallel` connections in setup until `count` were attempted: a bounded pace the accept queue can absorb. */
function next(): void {
  if (closing) return;
  while (c.inFlight < parallel && c.attempted < count) openOne();
  if (c.attempted >= count && c.inFlight === 0 && rampedAt < 0) {
    rampedAt = now();
    emit('ramped');
  }
}

const progress = setInterval(() => emit('progress'), progressMs);

function shutdown(why: string): void {
  if (closing) return;
  closing = true;
  clearInterval(progress);
  const held = c.idle;
  for (const s of sockets) s.destroy();
  emit('final', { why, heldAtClose: held });
  // stdout is a pipe: let the last line drain, then go (bounded in case the parent is gone).
  setTimeout(() => process.exit(0), 200).unref();
  process.stdout.write('', () => process.exit(0));
}

process.once('SIGTERM', () => shutdown('SIGTERM'));
process.once('SIGINT', () => shutdown('SIGINT'));
process.stdout.on('error', () => shutdown('stdout closed')); // EPIPE: the parent is gone
let line = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d: string) => {
  line += d;
  for (let i = line.indexOf('\n'); i !== -1; i = line.indexOf('\n')) {
    const cmd = line.slice(0, i).trim().split(' ');
    line = line.slice(i + 1);
    if (cmd[0] === 'snapshot') emit('snapshot', { id: cmd[1] });
  }
});
process.stdin.once('end', () => shutdown('parent gone'));
process.stdin.once('error', () => shutdown('parent gone'));

emit('started');
next();
