// Where the request log lives and how long it keeps records, from the environment:
//   SWITCHYARD_LOG_STORE           sqlite://<path> or postgres://…; `off` keeps no log. Default: beside a SQLite store
//                                  (`<store>.log.sqlite`), else sqlite://data/switchyard.log.sqlite.
//   SWITCHYARD_LOG_RETENTION_DAYS  days a record is kept (default 30).
//   SWITCHYARD_LOG_SPOOL_DIR       where records wait while the database is away (default beside the log or the store).
//   SWITCHYARD_LOG_SPOOL_MAX_MB    the spool's bound (default 256).
//   SWITCHYARD_LOG_FLUSH_MS        how often buffered records are written (default 200).
import { dirname, join } from 'node:path';

export interface LogSettings { uri: string; spoolDir: string; spoolMaxBytes: number; retentionDays: number; flushMs: number }

const day = 86_400_000;

/** Undefined when the log is off. Throws on a setting that is not a positive number. */
export function logSettings(env: NodeJS.ProcessEnv, storeUri: string): LogSettings | undefined {
  const set = env.SWITCHYARD_LOG_STORE;
  if (set === 'off') return undefined;
  const beside = storeUri.startsWith('sqlite://') ? storeUri.slice('sqlite://'.length).replace(/\.sqlite$/, '') : join('data', 'switchyard');
  const uri = set || `sqlite://${beside}.log.sqlite`;
  const spoolBase = uri.startsWith('sqlite://') ? uri.slice('sqlite://'.length).replace(/\.sqlite$/, '') : `${beside}.log`;
  return {
    uri,
    spoolDir: env.SWITCHYARD_LOG_SPOOL_DIR || join(dirname(spoolBase), `${spoolBase.split('/').at(-1)}-spool`),
    spoolMaxBytes: positive(env, 'SWITCHYARD_LOG_SPOOL_MAX_MB', 256) * 1024 * 1024,
    retentionDays: positive(env, 'SWITCHYARD_LOG_RETENTION_DAYS', 30),
    flushMs: positive(env, 'SWITCHYARD_LOG_FLUSH_MS', 200),
  };
}

/** When a record is old enough to drop. */
export const retentionCutoff = (s: LogSettings, now = Date.now()) => now - s.retentionDays * day;

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!(n > 0) || !Number.isFinite(n)) throw new Error(`${name} must be a positive number (got ${raw.slice(0, 40)})`);
  return n;
}
