// The request log in PostgreSQL, one database for several instances. The table is partitioned by day (UTC) of `at`,
// one partition a day named by it (request_log_p20261127), created three days ahead (open and `maintain`), so
// retention drops a whole day's partition instead of deleting its rows; a DEFAULT partition takes records outside
// them (a clock far ahead, a spool replayed after its day was dropped) until their day is created or pruned.
//
// The same columns and indexes as SQLite's, measured the same way (bench/scenarios/request-log.ts, PostgreSQL 15, 31
// day partitions, analyzed): every search of 50 records takes 2.0-3.3 ms, of which planning over 31 partitions is about
// 1.5 (one hour, one partition: 0.8 ms); busiest token + kind topup 5.0-5.2 ms (22 without kind in the token index); 1,000
// records 7.6 ms. A batch of 500 as one multi-row INSERT costs 9.8 µs of CPU a record in the gateway and 20.6 in the
// server (unnest() of column arrays: 14.3 and 17.5; json_to_recordset(): 12.0 and 21.6); a million records take
// 1.27 GB; dropping a day's partition (34,000 records) takes 22 ms.
import pg from 'pg';
import { columnList, limitOf, newestFirst, recordOf, rowOf, whereOf, type LogRow } from './log-columns.js';
import type { LogQuery, LogStore, RequestRecord, Row } from './log-store.js';

export interface PostgresLogOptions {
  /** Longest any statement may run (ms), so a hung database cannot hold the writer, which spools instead. */
  statementTimeoutMs?: number;
  connections?: number;
}

const day = 86_400_000;
const dayOf = (ms: number) => Math.floor(ms / day) * day;
/** request_log_p20261127: the partition of that UTC day. */
const partitionOf = (dayStart: number) => `request_log_p${new Date(dayStart).toISOString().slice(0, 10).replaceAll('-', '')}`;
const partitionDay = (name: string) => {
  const m = /^request_log_p(\d{4})(\d{2})(\d{2})$/.exec(name);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : undefined;
};

// "C" collation: ids order bytewise, as in SQLite, whatever the database's locale (and compare faster).
const columns = `id text COLLATE "C" NOT NULL, kind text COLLATE "C" NOT NULL, at bigint NOT NULL, token text COLLATE "C",
  "user" text COLLATE "C", "group" text COLLATE "C", route text COLLATE "C", model text COLLATE "C", channel text COLLATE "C",
  status integer, error_code text COLLATE "C", task text COLLATE "C", rest text NOT NULL, PRIMARY KEY (at, id, kind)`;

// The same indexes as SQLite's (sqlite-log.ts says why), declared once on the parent: every partition gets them.
// The primary key must hold the partition key, so a record is unique by (at, id, kind): a retried record has its `at`.
const schema = `
  CREATE TABLE IF NOT EXISTS request_log (${columns}) PARTITION BY RANGE (at);
  CREATE INDEX IF NOT EXISTS request_log_id ON request_log (id);
  CREATE INDEX IF NOT EXISTS request_log_token ON request_log (token, at, kind, status, error_code);
  CREATE INDEX IF NOT EXISTS request_log_user ON request_log ("user", at, kind, status, error_code);
  CREATE INDEX IF NOT EXISTS request_log_model ON request_log (model, at);
  CREATE INDEX IF NOT EXISTS request_log_channel ON request_log (channel, at);
  CREATE INDEX IF NOT EXISTS request_log_route ON request_log (route, at);
  CREATE INDEX IF NOT EXISTS request_log_status ON request_log (status, at);
  CREATE INDEX IF NOT EXISTS request_log_error_code ON request_log (error_code, at) WHERE error_code IS NOT NULL;
  CREATE INDEX IF NOT EXISTS request_log_task ON request_log (task) WHERE task IS NOT NULL;
  CREATE TABLE IF NOT EXISTS request_log_default PARTITION OF request_log DEFAULT;`;

/** Serializes schema changes across instances (two creating one day's partition at once). */
const ddlLock = 0x5357_4c47; // "SWLG"
/** How long a schema change waits for a lock before giving up until the next pass: queries queue behind it meanwhile. */
const ddlLockTimeout = "SET LOCAL lock_timeout = '1s'";

/** Records one INSERT carries at most: a statement takes 65,535 parameters, and a record is 13. */
const rowsPerStatement = 5000;

// bigint (`at`) as a number, not a string: milliseconds fit a double exactly.
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export class PostgresLogStore implements LogStore {
  private constructor(private readonly pool: pg.Pool) {}

  static async open(uri: string, opts: PostgresLogOptions = {}): Promise<PostgresLogStore> {
    const statementTimeout = opts.statementTimeoutMs ?? 5000;
    const pool = new pg.Pool({
      connectionString: uri, max: opts.connections ?? 4, types, application_name: 'switchyard request log',
      statement_timeout: statementTimeout,
      // The server's timeout cannot fire when the server or the network hangs: the client gives up a second later.
      query_timeout: statementTimeout + 1000, connectionTimeoutMillis: statementTimeout, keepAlive: true,
    });
    // An idle connection that dies (a database restart) is dropped by the pool; the next query opens another.
    pool.on('error', () => {});
    const store = new PostgresLogStore(pool);
    try {
      await store.transaction(async (c) => { await c.query(schema); });
      await store.maintain(Date.now());
    } catch (err) {
      await pool.end();
      throw err;
    }
    return store;
  }

  /** One multi-row INSERT a batch (of up to 5,000 records; a larger one is split, each part idempotent as a whole). */
  async insert(records: RequestRecord[]): Promise<void> {
    await this.insertRows(records.map(rowOf));
  }

  async insertRows(rows: Row[]): Promise<void> {
    for (let i = 0; i < rows.length; i += rowsPerStatement) {
      const values: unknown[] = [];
      const tuples = rows.slice(i, i + rowsPerStatement).map((r) => `(${r.map((v) => `$${values.push(v)}`).join(', ')})`);
      await this.pool.query(`INSERT INTO request_log (${columnList}) VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`, values);
    }
  }

  async search(q: LogQuery): Promise<RequestRecord[]> {
    const { sql, args } = whereOf(q, (n) => `$${n}`);
    const text = `SELECT ${columnList} FROM request_log WHERE ${sql} ${newestFirst} LIMIT $${args.length + 1}`;
    const { rows } = await this.pool.query<LogRow>(text, [...args, limitOf(q)]);
    return rows.map(recordOf);
  }

  async get(id: string): Promise<RequestRecord[]> {
    const { rows } = await this.pool.query<LogRow>(`SELECT ${columnList} FROM request_log WHERE id = $1 OR task = $1 ${newestFirst}`, [id]);
    return rows.map(recordOf);
  }

  /** Creates the partitions of `now`'s day and the two after it (the retention job calls this hourly). */
  async maintain(now: number): Promise<void> {
    for (let d = 0; d < 3; d++) await this.createDay(dayOf(now) + d * day);
  }

  /**
   * Drops the partitions of the days that ended by `before` (a day `before` falls in stays whole until it has ended),
   * and deletes the DEFAULT partition's records of those days; returns how many records went.
   */
  async prune(before: number): Promise<number> {
    let gone = 0;
    for (const name of await this.partitions()) {
      const start = partitionDay(name);
      if (start !== undefined && start + day <= before) gone += await this.dropDay(name);
    }
    const { rowCount } = await this.pool.query('DELETE FROM request_log_default WHERE at < $1', [dayOf(before)]);
    return gone + (rowCount ?? 0);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** The day partitions there are, oldest first. */
  async partitions(): Promise<string[]> {
    const { rows } = await this.pool.query<{ name: string }>(`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'request_log'::regclass ORDER BY 1`);
    return rows.map((r) => r.name).filter((n) => partitionDay(n) !== undefined);
  }

  /**
   * A day's partition, made as its own table and attached: ATTACH locks the parent only against other schema changes,
   * where CREATE … PARTITION OF locks out every insert and search (it still locks DEFAULT while checking it, a moment
   * when DEFAULT holds few records). The records DEFAULT holds for that day move into it first.
   */
  private async createDay(start: number): Promise<void> {
    const name = partitionOf(start);
    await this.transaction(async (c) => {
      if ((await c.query('SELECT to_regclass($1) AS t', [name])).rows[0].t) return;
      await c.query(`CREATE TABLE ${name} (${columns})`);
      await c.query(`WITH moved AS (DELETE FROM request_log_default WHERE at >= $1 AND at < $2 RETURNING ${columnList})
        INSERT INTO ${name} (${columnList}) SELECT ${columnList} FROM moved`, [start, start + day]);
      await c.query(`ALTER TABLE request_log ATTACH PARTITION ${name} FOR VALUES FROM (${start}) TO (${start + day})`);
    });
  }

  /** Detaches, counts and drops one day's partition; 0 when another instance dropped it first. */
  private async dropDay(name: string): Promise<number> {
    return this.transaction(async (c) => {
      if (!(await c.query('SELECT to_regclass($1) AS t', [name])).rows[0].t) return 0;
      await c.query(`ALTER TABLE request_log DETACH PARTITION ${name}`);
      const { rows } = await c.query<{ n: number }>(`SELECT count(*) AS n FROM ${name}`);
      await c.query(`DROP TABLE ${name}`);
      return rows[0].n;
    });
  }

  /** `fn` in a transaction holding the schema lock, rolled back when it throws. */
  private async transaction<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(ddlLockTimeout);
      await c.query('SELECT pg_advisory_xact_lock($1)', [ddlLock]);
      const result = await fn(c);
      await c.query('COMMIT');
      c.release();
      return result;
    } catch (err) {
      // A connection that failed mid-transaction is closed rather than returned to the pool in an unknown state.
      c.release(err as Error);
      throw err;
    }
  }
}
