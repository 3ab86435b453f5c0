// The SQLite file holding the hot counters (quota ledger, open-task index), written synchronously with prepared statements.
// It is a separate file from keyv's: two SQLite libraries must never share one file inside one process (POSIX locks).
import Database from 'better-sqlite3';

export type StateDb = Database.Database;

export function openStateDb(file: string): StateDb {
  const db = new Database(file);
  // WAL: readers never wait for the writer; NORMAL: a commit costs no fsync (a power cut may lose the last ones).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Another instance's write holds the lock for microseconds; waiting briefly beats failing the request.
  db.pragma('busy_timeout = 2000');
  return db;
}

/** `data/switchyard.sqlite` → `data/switchyard.state.sqlite`. */
export function stateFileFor(kvFile: string): string {
  if (kvFile === ':memory:') return ':memory:';
  const dot = kvFile.lastIndexOf('.');
  return dot > kvFile.lastIndexOf('/') ? `${kvFile.slice(0, dot)}.state${kvFile.slice(dot)}` : `${kvFile}.state`;
}
