// The request log in SQLite, on a file of its own (WAL, and a busy timeout so the gateway processes of one host share
// it): one table, the columns searches filter and order on, the rest of each record as JSON (log-columns.ts).
//
// Indexes chosen by measurement (bench/scenarios/request-log.ts: a million records over 30 days, 200 tokens of 50
// users, 12 models and channels, 3 % tasks, 2 % errors; SQLite 3.53 on a 2-core VM), 50 records a search:
//   no filter, 30 days or one hour .................................... 0.26-0.28 ms
//   token (the busiest, 7 % of records, or the least, 0.25 %), user, model,
//   channel, route, status 502, error_code ............................ 0.27-0.30 ms (no filter index: 0.3-3.7 ms,
//                                                                        a token and a status 357 ms)
//   id (a task's two records) .......................................... 0.03 ms
//   the page after a cursor 100,000 records deep ...................... 0.28 ms (5.1 when `to`, not the cursor, bounded the scan)
//   kind topup (0.1 % of records; kind is read from the time index) ... 2.2 ms
//   busiest token + a status it never had / + kind topup .............. 3.0 / 2.2 ms (85 / 24 ms without status and
//                                                                        kind in the token index)
//   1,000 records ...................................................... 5.4 ms
// Writing costs 8.8 µs of CPU a row of the bench's chat traffic (one token) in batches of 250, 25.5 µs over the month's
// 200 tokens in batches of 500 (a commit rewrites a page of the token and user indexes for each token in it), and a
// million records take 966 MB. Without the model, channel, route and status indexes a row costs 2 µs less in the
// gateway, and a search for a value the range lacks scans the range (a model no record has: 1.3 s over the month).
// A table clustered on (at, id, kind) cost as much to write and could not filter a token's rows by status or kind
// from its index (191 ms instead of 13.5): docs/contributors/performance.md.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Statement } from 'better-sqlite3';
import { openSqliteDb } from '../store/sqlite-state.js';
import { columnList, limitOf, logColumns, newestFirst, recordOf, rowOf, whereOf, type LogRow } from './log-columns.js';
import type { LogQuery, LogStore, RequestRecord, Row } from './log-store.js';

// One index per filter, each ordered by time after the value, so a search reads its newest entries first and stops at
// `limit`. A token's and a user's entries also carry kind, status and error code: "this token's errors" or "its
// topups" is decided from the index alone, not by reading each of the token's rows. Error codes are on 2 % of records:
// their index leaves out the rest (1 MB instead of 19). Kind is in the time index, which decides "every task" alone.
const schema = `
  CREATE TABLE IF NOT EXISTS request_log (id TEXT NOT NULL, kind TEXT NOT NULL, at INTEGER NOT NULL, token TEXT, user TEXT,
    "group" TEXT, route TEXT, model TEXT, channel TEXT, status INTEGER, error_code TEXT, task TEXT, rest TEXT NOT NULL);
  CREATE UNIQUE INDEX IF NOT EXISTS request_log_id ON request_log(id, kind);
  CREATE INDEX IF NOT EXISTS request_log_at ON request_log(at, id, kind);
  CREATE INDEX IF NOT EXISTS request_log_token ON request_log(token, at, kind, status, error_code);
  CREATE INDEX IF NOT EXISTS request_log_user ON request_log(user, at, kind, status, error_code);
  CREATE INDEX IF NOT EXISTS request_log_model ON request_log(model, at);
  CREATE INDEX IF NOT EXISTS request_log_channel ON request_log(channel, at);
  CREATE INDEX IF NOT EXISTS request_log_route ON request_log(route, at);
  CREATE INDEX IF NOT EXISTS request_log_status ON request_log(status, at);
  CREATE INDEX IF NOT EXISTS request_log_error_code ON request_log(error_code, at) WHERE error_code IS NOT NULL;
  CREATE INDEX IF NOT EXISTS request_log_task ON request_log(task) WHERE task IS NOT NULL;`;

/**
 * Rows a prune statement deletes at most: with the table's nine indexes 5,000 held the event loop (and the file's
 * write lock, other processes' inserts waiting) for 37-42 ms; 1,000 hold them for 6 (15-45 when the commit also
 * checkpoints the WAL, as any commit may).
 */
const pruneChunk = 1000;

/**
 * Rows one INSERT statement carries: each statement's run costs a few microseconds beyond its rows (binding, stepping,
 * resetting), so ten at a time save most of it; more saved no more (bench/scenarios/request-log.ts, and in the text
 * by the constructor).
 */
const rowsPerStatement = 10;
const placeholders = (rows: number) => Array.from({ length: rows }, () => `(${logColumns.map(() => '?').join(', ')})`).join(', ');

export class SqliteLogStore implements LogStore {
  private readonly db;
  private readonly insertMany;
  private readonly byId;
  private readonly pruneSome;
  /** One prepared search per shape of query (which filters, which cursor): bounded by their combinations, a few dozen in use. */
  private readonly searches = new Map<string, Statement>();

  constructor(file: string) {
    // Another process's batch or prune chunk holds the write lock for milliseconds; a longer wait fails the insert,
    // and the writer spools the batch.
    this.db = openSqliteDb(file, 2000);
    // Temporary files (a statement's journal, a search's sort) in memory: a temp file costs a write(2) per page.
    this.db.pragma('temp_store = MEMORY');
    this.db.exec(schema);
    // A record already there by (id, kind) stays as it was: a retried batch leaves one copy. OR IGNORE, not ON CONFLICT
    // DO NOTHING: an upsert may fail on a NOT NULL column, so a statement of several rows keeps a journal of every
    // page it changes to undo its own rows, where OR IGNORE skips such a row instead (the gateway makes none). With the
    // table's ten indexes, a row of the bench's chat traffic cost 14 µs one INSERT a row with the upsert, 11 with OR
    // IGNORE, 8-8.5 ten rows an INSERT (the upsert's journal made ten rows an INSERT cost more than one, 17 µs).
    const insert = (rows: number) => this.db.prepare(`INSERT OR IGNORE INTO request_log (${columnList}) VALUES ${placeholders(rows)}`);
    const one = insert(1);
    const some = insert(rowsPerStatement);
    this.insertMany = this.db.transaction((rows: Row[]) => {
      let i = 0;
      for (; i + rowsPerStatement <= rows.length; i += rowsPerStatement) some.run(rows.slice(i, i + rowsPerStatement).flat());
      for (; i < rows.length; i++) one.run(rows[i]);
    });
    this.byId = this.db.prepare(`SELECT ${columnList} FROM request_log WHERE id = ? OR task = ? ${newestFirst}`);
    this.pruneSome = this.db.prepare(`DELETE FROM request_log WHERE at < ? ORDER BY at LIMIT ${pruneChunk}`);
  }

  async insert(records: RequestRecord[]): Promise<void> {
    this.insertMany(records.map(rowOf));
  }

  async insertRows(rows: Row[]): Promise<void> {
    this.insertMany(rows);
  }

  async search(q: LogQuery): Promise<RequestRecord[]> {
    const { sql, args } = whereOf(q, () => '?', true);
    let stmt = this.searches.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(`SELECT ${columnList} FROM request_log WHERE ${sql} ${newestFirst} LIMIT ?`);
      this.searches.set(sql, stmt);
    }
    return (stmt.all(...args, limitOf(q)) as LogRow[]).map(recordOf);
  }

  async get(id: string): Promise<RequestRecord[]> {
    return (this.byId.all(id, id) as LogRow[]).map(recordOf);
  }

  /** A chunk at a time, yielding between chunks so requests (and other processes' writes) go on meanwhile. */
  async prune(before: number): Promise<number> {
    let gone = 0;
    for (;;) {
      const { changes } = this.pruneSome.run(before);
      gone += changes;
      if (changes < pruneChunk) return gone;
      await nextTurn();
    }
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
