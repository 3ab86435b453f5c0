// A log store opened when it can be: a gateway starts while its log database is down (records wait in the spool),
// and the first call after the database is back opens it. Opening is tried again on each call after a failure, at
// the writer's pace (its backoff), never in a loop of its own.
import type { LogQuery, LogStore, RequestRecord, Row } from './log-store.js';

export class ReconnectingLogStore implements LogStore {
  private store?: LogStore;
  private opening?: Promise<LogStore>;

  constructor(private readonly open: () => Promise<LogStore>) {}

  /** Opens now if it can; a failure is not an error here (the store opens on a later call). */
  async tryOpen(): Promise<void> {
    await this.ready().catch(() => undefined);
  }

  insert(records: RequestRecord[]): Promise<void> { return this.ready().then((s) => s.insert(records)); }
  insertRows(rows: Row[]): Promise<void> { return this.ready().then((s) => s.insertRows(rows)); }
  search(q: LogQuery): Promise<RequestRecord[]> { return this.ready().then((s) => s.search(q)); }
  get(id: string): Promise<RequestRecord[]> { return this.ready().then((s) => s.get(id)); }
  prune(before: number): Promise<number> { return this.ready().then((s) => s.prune(before)); }

  /** What a store can do besides the contract (PostgreSQL's partitions ahead), once it is open. */
  async maintain(now: number): Promise<void> {
    const s = (await this.ready()) as { maintain?: (now: number) => Promise<void> };
    if (s.maintain) await s.maintain(now);
  }

  async close(): Promise<void> {
    await this.store?.close();
  }

  private ready(): Promise<LogStore> {
    if (this.store) return Promise.resolve(this.store);
    this.opening ??= this.open().then(
      (s) => { this.store = s; return s; },
      (err) => { this.opening = undefined; throw err; },
    );
    return this.opening;
  }
}
