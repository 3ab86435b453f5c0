// The embedded store's two SQLite files, both opened with better-sqlite3: `switchyard.sqlite` holds the keyv records
// (sqlite-kv.ts), `switchyard.state.sqlite` the hot counters (quota ledger, open-task index), written synchronously
// with prepared statements. They stay two files because deployments already have both (no migration). With one driver
// they could also be one: two SQLite libraries in a process must never open the same file (each keeps its own POSIX
// locks, and closing one's descriptor drops the other's), but connections of one library share a file safely.
import Database from 'better-sqlite3';

export type StateDb = Database.Database;

/** A connection to `file` set up for several processes sharing it. */
export function openSqliteDb(file: string, busyTimeoutMs: number): Database.Database {
  const db = new Database(file);
  // WAL: readers never wait for the writer; NORMAL: a commit costs no fsync (a power cut may lose the last ones).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Another instance's write holds the lock for microseconds; waiting briefly beats failing the request.
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return db;
}

export function openStateDb(file: string): StateDb {
  return openSqliteDb(file, 2000);
}

/** `data/switchyard.sqlite` → `data/switchyard.state.sqlite`. */
export function stateFileFor(kvFile: string): string {
  if (kvFile === ':memory:') return ':memory:';
  const dot = kvFile.lastIndexOf('.');
  return dot > kvFile.lastIndexOf('/') ? `${kvFile.slice(0, dot)}.state${kvFile.slice(dot)}` : `${kvFile}.state`;
}
