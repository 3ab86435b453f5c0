// The request log's writer: a request's record is handed over in memory as its row (no await on the request's path;
// finished-request.ts serializes it once) and written to the log store in batches, every `flushMs` or as soon as a
// batch's worth waits, whichever comes first. A batch the store refuses or does not answer within `insertTimeoutMs`
// goes to the spool on disk, and while anything waits there new batches follow it, so the store gets them in order
// once it answers again (a backoff between tries). What a kill -9 can lose: the records of the last `flushMs` (fewer
// when a batch filled sooner) not yet handed to the store, and a batch the store had not committed when the process
// died; the ledger's money moved either way. Inserts are idempotent, so a batch that committed after its timeout is
// not written twice. A full batch goes at once also so that rows do not wait long in memory: rows kept 200 ms at
// thousands of requests a second are copied by every young-generation collection meanwhile, and promoted.
import type { LogStore, RequestRecord, Row } from './log-store.js';
import type { Spool } from './spool.js';
import { recordOfRow, rowOf } from './log-columns.js';

export interface RequestLogOptions {
  flushMs: number;
  insertTimeoutMs: number;
  /** Records one insert carries at most. */
  batchSize: number;
  onError(msg: string, err?: unknown): void;
}

export class RequestLog {
  private buffer: Row[] = [];
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;
  /** A pass is due at the next turn of the event loop (a batch's worth waits). */
  private due = false;
  /** The next pass also writes what is left after the full batches (a flush: the period, a caller, a stop). */
  private everything = false;
  private closed = false;
  private retryAt = 0;
  private backoffMs = 0;
  /** Records handed to the store, since the start. */
  written = 0;

  constructor(readonly store: LogStore, readonly spool: Spool, private readonly opts: RequestLogOptions) {}

  start(): void {
    this.timer = setInterval(() => { void this.flush(); }, this.opts.flushMs);
    this.timer.unref();
  }

  /** A task's or a topup's record. */
  add(record: RequestRecord): void {
    this.addRow(rowOf(record));
  }

  /** A request's row, as finished-request.ts made it. */
  addRow(row: Row): void {
    if (this.buffer.push(row) >= this.opts.batchSize && !this.due) {
      this.due = true;
      setImmediate(() => { this.due = false; if (!this.closed) void this.write(); });
    }
  }

  /** Writes what is buffered, then what waits in the spool; one pass at a time (a caller during a pass waits for it). */
  flush(): Promise<void> {
    this.everything = true;
    return this.write();
  }

  private write(): Promise<void> {
    this.writing ??= this.pass().finally(() => { this.writing = undefined; });
    return this.writing;
  }

  /** Writes what it can within `deadlineMs` (the rest stays in the spool for the next start), then closes the store. */
  async close(deadlineMs = 2000): Promise<void> {
    clearInterval(this.timer);
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.flush().then(() => this.flush()), new Promise((r) => { timer = setTimeout(r, deadlineMs); })]);
    clearTimeout(timer);
    if (this.buffer.length) await this.spill(this.take(this.buffer.length));
    await this.store.close().catch((err) => this.opts.onError('request log store close failed', err));
  }

  /**
   * Full batches while a batch's worth waits, then, for a flush, what is left, once: rows that come in meanwhile wait
   * for the next pass unless a batch fills. Chasing them made batches of a few dozen rows at a few thousand requests a
   * second, each a commit rewriting the same last pages of every index, and checkpoints to match: 20 µs of CPU a row in
   * the gateway against 8.5 in batches of 250.
   */
  private async pass(): Promise<void> {
    for (;;) {
      const full = this.buffer.length >= this.opts.batchSize;
      if (!full && !(this.everything && this.buffer.length)) break;
      if (!full) this.everything = false;
      const batch = this.take(this.opts.batchSize);
      if (this.spool.batches || !(await this.tryInsert(batch))) await this.spill(batch);
      await yieldToRequests();
    }
    await this.drain();
  }

  /** Spooled batches, oldest first, until the store fails again. */
  private async drain(): Promise<void> {
    for (let b = await this.spool.oldest(); b; b = await this.spool.oldest()) {
      if (!(await this.tryInsert(b.records.map(rowOf)))) return;
      await b.done();
      await yieldToRequests();
    }
  }

  private async tryInsert(batch: Row[]): Promise<boolean> {
    if (Date.now() < this.retryAt) return false;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.store.insertRows(batch),
        new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${this.opts.insertTimeoutMs} ms`)), this.opts.insertTimeoutMs); }),
      ]);
      this.written += batch.length;
      this.backoffMs = 0;
      return true;
    } catch (err) {
      this.backoffMs = Math.min(30_000, Math.max(1000, this.backoffMs * 2));
      this.retryAt = Date.now() + this.backoffMs;
      this.opts.onError(`request log store failed; records wait in the spool, next try in ${this.backoffMs} ms`, err);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The spool keeps records (JSON lines a person can read), as it always has. */
  private async spill(batch: Row[]): Promise<void> {
    const kept = await this.spool.append(batch.map(recordOfRow)).catch((err) => {
      this.opts.onError(`request log spool write failed: ${batch.length} records dropped`, err);
      return undefined;
    });
    if (kept === false) this.opts.onError(`request log spool is full (${this.spool.bytes} bytes): ${batch.length} records dropped (${this.spool.dropped} in all)`);
  }

  private take(n: number): Row[] {
    return this.buffer.length <= n ? this.buffer.splice(0) : this.buffer.splice(0, n);
  }
}

/** An embedded database's insert runs on the event loop: requests get their turn between batches. */
const yieldToRequests = () => new Promise((r) => setImmediate(r));
