// A keyv storage adapter over better-sqlite3, so the keyv records and the state tables use one SQLite driver
// (better-sqlite3 is synchronous and its statements are prepared once; @keyv/sqlite needed a second native driver).
// It keeps @keyv/sqlite's layout, so files it wrote read unchanged: one table `keyv(key VARCHAR(255) PRIMARY KEY,
// value TEXT)`, keys `<namespace>:<key>` as keyv prefixes them, values keyv's serialized `{"value":…,"expires":…}`.
import { EventEmitter } from 'node:events';
import type Database from 'better-sqlite3';

type Row = { key: string; value: string };

/** The statements on one connection's `keyv` table, compiled once and shared by every namespace's adapter. */
export interface KvStatements {
  get: Database.Statement<[string], string>;
  getMany: Database.Statement<[string], Row>;
  set: Database.Statement<[string, string]>;
  /** Several rows in one transaction: one commit, not one per row (keyv would otherwise call `set` for each). */
  setMany: (rows: { key: string; value: string }[]) => void;
  delete: Database.Statement<[string]>;
  deleteMany: Database.Statement<[string]>;
  clear: Database.Statement<[string, string | Buffer]>;
  first: Database.Statement<[string, string | Buffer, number], Row>;
  after: Database.Statement<[string, string | Buffer, number], Row>;
}

/** Creates the table when missing (a new file) and compiles the statements. */
export function kvStatements(db: Database.Database): KvStatements {
  // The exact DDL @keyv/sqlite ran: a file created by either one is the same file.
  db.exec('CREATE TABLE IF NOT EXISTS keyv(key VARCHAR(255) PRIMARY KEY, value TEXT )');
  const set = db.prepare<[string, string]>('INSERT INTO keyv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const page = (op: '>=' | '>') => db.prepare<[string, string | Buffer, number], Row>(
    `SELECT key, value FROM keyv WHERE key ${op} ? AND key < ? ORDER BY key LIMIT ?`);
  return {
    get: db.prepare<[string], string>('SELECT value FROM keyv WHERE key = ?').pluck(),
    // Many keys as one JSON array parameter: one statement whatever their number.
    getMany: db.prepare<[string], Row>('SELECT key, value FROM keyv WHERE key IN (SELECT value FROM json_each(?))'),
    set,
    setMany: db.transaction((rows: { key: string; value: string }[]) => { for (const r of rows) set.run(r.key, r.value); }),
    delete: db.prepare('DELETE FROM keyv WHERE key = ?'),
    deleteMany: db.prepare('DELETE FROM keyv WHERE key IN (SELECT value FROM json_each(?))'),
    clear: db.prepare('DELETE FROM keyv WHERE key >= ? AND key < ?'),
    first: page('>='),
    after: page('>'),
  };
}

/**
 * The keys of a namespace as a half-open range [`ns:`, `ns;`) (';' follows ':'), so clear() and the iterator walk
 * the primary key's index and match exactly: @keyv/sqlite used LIKE 'ns:%', which is case-blind and treats `_` as
 * a wildcard. Without a namespace, every key: SQLite orders any TEXT before any BLOB, so an empty blob bounds them all.
 */
function range(namespace: string | undefined): [string, string | Buffer] {
  return namespace ? [`${namespace}:`, `${namespace};`] : ['', Buffer.alloc(0)];
}

/** Rows read per step of the iterator. */
const pageSize = 100;

/**
 * One keyv namespace's adapter (keyv sets `namespace` on the adapter it is given, so each namespace needs its own);
 * every adapter of a connection shares its statements. The calls are synchronous and fast (one indexed row), so each
 * method simply runs its statement inside the promise keyv expects; a failure rejects it.
 *
 * Expiry is keyv's: it writes `expires` into the value and, reading a value past it (get, getMany, its iterator),
 * drops it and deletes the row. The adapter stores values opaquely and ignores the `ttl` argument, as @keyv/sqlite did.
 * There is no `has()` on purpose: keyv would trust it without looking at `expires`, while its own fallback (a get) does.
 * There is no `disconnect()` either: the connection belongs to the store, which closes it once for all namespaces.
 */
export class SqliteKv extends EventEmitter {
  /** keyv builds `Keyv.iterator` only for an adapter whose `opts.dialect` it knows to be iterable. */
  readonly opts = { dialect: 'sqlite' as const };
  namespace?: string;

  constructor(private readonly sql: KvStatements) {
    super();
  }

  async get(key: string): Promise<string | undefined> {
    return this.sql.get.get(key);
  }

  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    const found = new Map(this.sql.getMany.all(JSON.stringify(keys)).map((r) => [r.key, r.value]));
    return keys.map((k) => found.get(k));
  }

  async set(key: string, value: string): Promise<boolean> {
    this.sql.set.run(key, value);
    return true;
  }

  async setMany(entries: { key: string; value: string }[]): Promise<boolean[]> {
    this.sql.setMany(entries);
    return entries.map(() => true);
  }

  /** True when a row was deleted. */
  async delete(key: string): Promise<boolean> {
    return this.sql.delete.run(key).changes > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    return this.sql.deleteMany.run(JSON.stringify(keys)).changes > 0;
  }

  /** Empties this namespace only (every key when there is none). */
  async clear(): Promise<void> {
    this.sql.clear.run(...range(this.namespace));
  }

  /**
   * `[key, serialized value]` for every row of a namespace, in key order, a page at a time. Each page continues after
   * the last key seen rather than at an offset: keyv deletes the expired rows it meets while iterating, and rows
   * deleted (or added) behind the cursor shift no later page. No statement stays open between pages, so the
   * connection serves other calls while a listing is in progress.
   */
  async *iterator(namespace?: string): AsyncGenerator<[string, string], void> {
    const [low, high] = range(namespace);
    let rows = this.sql.first.all(low, high, pageSize);
    while (rows.length > 0) {
      for (const r of rows) yield [r.key, r.value];
      if (rows.length < pageSize) return;
      rows = this.sql.after.all(rows[rows.length - 1].key, high, pageSize);
    }
  }
}
