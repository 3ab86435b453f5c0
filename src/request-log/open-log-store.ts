// Opens the request log database a URI names: `sqlite://<path>` (relative to the working directory; its directories
// are made) or `postgres://…` / `postgresql://…` (node-postgres's connection URI).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LogStore } from './log-store.js';
import { SqliteLogStore } from './sqlite-log.js';

export async function openLogStore(uri: string): Promise<LogStore> {
  if (uri.startsWith('sqlite://')) {
    const file = uri.slice('sqlite://'.length);
    if (!file) throw new Error('request log store: sqlite:// needs a file path (sqlite://data/switchyard.log.sqlite)');
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    return new SqliteLogStore(file);
  }
  if (/^postgres(ql)?:\/\//.test(uri)) {
    // Loaded only here: a gateway logging to SQLite never loads the PostgreSQL driver.
    const { PostgresLogStore } = await import('./postgres-log.js');
    return PostgresLogStore.open(uri);
  }
  throw new Error(`request log store: unsupported "${uri.split(':')[0]}" (use sqlite://path or postgres://user@host:port/db)`);
}
