// Structured logs with pino: one JSON line per request, written in blocks, every line through the redactor.
import { pino, type Logger } from 'pino';
import type { Redactor } from './redaction/redactor.js';

// Keys never reach these fields, but redaction guards against a future stage logging a raw header.
// Exact paths only: wildcard redaction costs a walk of every line.
const redact = ['authorization', 'headers.authorization', 'req.headers.authorization', 'key', 'api_key', 'secret'];

/** Where log lines go: pino's own destination, or anything with `write` (tests capture lines this way). */
export interface Destination { write(line: string): unknown; flush?(cb?: (err?: Error) => void): void; flushSync?(): void }

export interface Logging {
  log: Logger;
  /** Writes one prepared line (the access line, finished-request.ts) to the same redacted destination. */
  write(line: string): void;
  /** Resolves once buffered lines are written, or after `withinMs`: a stop must never hang on its own log. */
  flush(withinMs: number): Promise<void>;
}

/**
 * Lines are buffered and written in blocks (8 KiB, or every 200 ms when quiet), never one syscall per request.
 * A file gets synchronous block writes: one write(2) per ~15 lines beats handing each line to libuv's threadpool,
 * whose wake-ups cost more than the write. Standard output stays asynchronous, as a pipe reader may be slow.
 * A crash can lose the lines of the last 200 ms; `flush` writes them. Every line, pino's and the access line,
 * passes the redactor on its way out, so a secret a vendor echoed never reaches a log.
 */
export function createLogging(redactor: Redactor, dest?: Destination, level = process.env.LOG_LEVEL ?? 'info'): Logging {
  const file = process.env.SWITCHYARD_LOG_FILE;
  const inner: Destination = dest ?? pino.destination({ dest: file ?? 1, sync: Boolean(file), mkdir: Boolean(file) });
  const out = dest ? redacted(inner, redactor) : new BlockWriter(inner, redactor, 8192, 200);
  const log = pino({ level, redact, base: { pid: process.pid } }, out as never);
  return { log, write: (line) => { out.write(line); }, flush: (withinMs) => flushWithin(out, withinMs) };
}

/** A caller's own destination (tests) sees every line at once, redacted. */
function redacted(inner: Destination, redactor: Redactor): Destination {
  return {
    write: (line) => inner.write(redactor.text(line)),
    flush: (cb) => (inner.flush ? inner.flush(cb) : cb?.()),
    flushSync: () => inner.flushSync?.(),
  };
}

/**
 * Collects lines and hands the destination one string per block, redacted once. sonic-boom's own `minLength`
 * buffering measures its growing buffer on every line, which flattens it each time: kilobytes copied per request.
 */
class BlockWriter implements Destination {
  private lines: string[] = [];
  private size = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly inner: Destination, private readonly redactor: Redactor, private readonly blockBytes: number, periodMs: number) {
    this.timer = setInterval(() => this.drain(), periodMs);
    this.timer.unref();
  }

  write(line: string): void {
    this.lines.push(line);
    this.size += line.length;
    if (this.size >= this.blockBytes) this.drain();
  }

  flush(cb?: (err?: Error) => void): void {
    this.drain();
    if (this.inner.flush) this.inner.flush(cb);
    else cb?.();
  }

  flushSync(): void {
    this.drain();
    this.inner.flushSync?.();
  }

  private drain(): void {
    if (!this.lines.length) return;
    const block = this.lines.join('');
    this.lines = [];
    this.size = 0;
    this.inner.write(this.redactor.text(block));
  }
}

function flushWithin(d: Destination, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = () => { clearTimeout(timer); resolve(); };
    try { d.flush ? d.flush((err) => { if (err) console.error(`log flush failed: ${err.message}`); done(); }) : done(); } catch { done(); }
  });
}
