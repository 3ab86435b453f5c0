// A throwaway PostgreSQL server for a test file (bench/throwaway-postgres.ts makes it, shared with the
// bench), on a free port, stopped and removed afterwards; and whether the tests can run here, as redis.ts says it.
import { test } from 'node:test';
import pg from 'pg';
import assert from 'node:assert/strict';
import { postgresBinDir, startThrowawayPostgres, type ThrowawayPostgres } from '../../bench/throwaway-postgres.js';
import { serverPort } from './ports.js';

export type PostgresServer = ThrowawayPostgres;

/** Why the PostgreSQL tests cannot run here, or undefined when its server binaries are installed. */
export function postgresMissing(): string | undefined {
  return postgresBinDir() ? undefined : 'PostgreSQL is not installed (apt-get install -y postgresql)';
}

/**
 * The skip reason for a file's PostgreSQL tests (false when they can run). In CI (`CI` set) missing binaries also
 * register a failing test, so the run cannot pass without the PostgreSQL store having been tested.
 */
export function postgresSkip(what: string): string | false {
  const missing = postgresMissing();
  if (!missing) return false;
  if (process.env.CI) {
    test(`PostgreSQL is installed (${what} need it)`, () => assert.fail(missing));
    return `${missing}: failed above`;
  }
  return `${missing}; skipped outside CI`;
}

/** initdb, start and a `switchyard` database: about a second. */
export const startPostgres = (): Promise<PostgresServer> => startThrowawayPostgres(serverPort);

/** A new empty database `name` on `server`: its URI. */
export async function freshDatabase(server: PostgresServer, name: string): Promise<string> {
  const c = new pg.Client(server.uri);
  await c.connect();
  try { await c.query(`CREATE DATABASE ${name}`); } finally { await c.end(); }
  return server.uri.replace(/\/switchyard$/, `/${name}`);
}
