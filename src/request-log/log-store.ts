// Where request records are kept: the contract every request log database meets (SQLite, the embedded default, and
// PostgreSQL for several instances). The writer (request-log.ts) batches records into it off the request path; the
// admin and client APIs search it; the retention job prunes it.
import type { RequestRecord } from '../types/generated/request-record.response.js';

export type { RequestRecord };

/** A record as a store writes it: the values of log-columns.ts's `logColumns`, in order. */
export type Row = unknown[];

/** A search: a time range and filters, newest first, a page at a time. */
export interface LogQuery {
  /** Milliseconds, `from` included, `to` excluded (of the record's `at`). */
  from: number;
  to: number;
  token?: string;
  user?: string;
  model?: string;
  channel?: string;
  route?: string;
  status?: number;
  error_code?: string;
  /** One request's, task's or topup's id. */
  id?: string;
  kind?: RequestRecord['kind'];
  /** At most this many records (1 to 1000). */
  limit: number;
  /**
   * The page after a cursor (the last record of the page before): records strictly after it in the order (at desc,
   * id desc, kind desc). `kind` tells apart the two records of one task id when they finished in the same millisecond
   * (a task its vendor answered done at submit); without it, a page that ends on the first of them skips the second.
   */
  before?: { at: number; id: string; kind?: RequestRecord['kind'] };
}

export interface LogStore {
  /**
   * Writes records in one batch. Idempotent: a record whose id and kind are already there is kept as it was, so a
   * batch written twice (a retry after a timeout that had in fact committed) leaves one copy.
   */
  insert(records: RequestRecord[]): Promise<void>;
  /** `insert` for records already laid out as rows (log-columns.ts): the writer's, serialized once at a request's end. */
  insertRows(rows: Row[]): Promise<void>;
  /** Newest first (at desc, then id desc, then kind desc), at most `limit`. */
  search(q: LogQuery): Promise<RequestRecord[]>;
  /** Every record with this id, and a task's submit (whose `task` it is): a task id has its submit's request record and its task record. */
  get(id: string): Promise<RequestRecord[]>;
  /**
   * Drops records that finished before `before` (ms), or, where the store drops whole days (PostgreSQL's
   * partitions), the records of the days that had ended by then; returns how many went.
   */
  prune(before: number): Promise<number>;
  close(): Promise<void>;
}
