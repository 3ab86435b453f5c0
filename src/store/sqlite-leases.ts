// Leases in the SQLite state file, so every process sharing it counts together: one row per (key, member) with its
// expiry in ms. An acquire is one immediate transaction (drop the key's expired rows, refresh the member's or count
// and insert), so two processes never both take the last slot. Rows under keys nobody touches again are deleted by
// prune(), from the retention pass, a bounded batch a call.
import type { StateDb } from './sqlite-state.js';
import { leaseTtl, type Leases } from './leases.js';

const schema = `
  CREATE TABLE IF NOT EXISTS leases (key TEXT NOT NULL, member TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (key, member));
  CREATE INDEX IF NOT EXISTS leases_expiry ON leases (expires_at);`;

/** Rows one prune call deletes at most: one short statement, so a writer waits that long at most. */
const pruneChunk = 5_000;

export class SqliteLeases implements Leases {
  private readonly take: (key: string, member: string, limit: number, ttlMs: number, now: number) => boolean;
  private readonly stmt;

  constructor(db: StateDb) {
    db.exec(schema);
    this.stmt = {
      // Live: expires_at > now. A key holds about `limit` rows (only acquire inserts), so its delete and count are short.
      expire: db.prepare<[string, number]>('DELETE FROM leases WHERE key = ? AND expires_at <= ?'),
      refresh: db.prepare<[number, string, string, number]>('UPDATE leases SET expires_at = ? WHERE key = ? AND member = ? AND expires_at > ?'),
      count: db.prepare<[string, number], number>('SELECT count(*) FROM leases WHERE key = ? AND expires_at > ?').pluck(),
      insert: db.prepare<[string, string, number]>('INSERT INTO leases (key, member, expires_at) VALUES (?, ?, ?)'),
      release: db.prepare<[string, string]>('DELETE FROM leases WHERE key = ? AND member = ?'),
      prune: db.prepare<[number, number]>('DELETE FROM leases WHERE rowid IN (SELECT rowid FROM leases WHERE expires_at <= ? LIMIT ?)'),
    };
    const acquire = db.transaction((key: string, member: string, limit: number, ttlMs: number, now: number) => {
      const s = this.stmt;
      s.expire.run(key, now);
      if (s.refresh.run(now + ttlMs, key, member, now).changes > 0) return true;
      if (s.count.get(key, now)! >= limit) return false;
      s.insert.run(key, member, now + ttlMs);
      return true;
    });
    // Immediate: the write lock is taken before the count, so two processes never both see the last slot free.
    this.take = (key, member, limit, ttlMs, now) => acquire.immediate(key, member, limit, ttlMs, now);
  }

  async acquire(key: string, member: string, limit: number, ttlMs: number): Promise<boolean> {
    const ttl = leaseTtl(ttlMs, limit);
    return this.take(key, member, limit, ttl, Date.now());
  }

  async renew(key: string, member: string, ttlMs: number): Promise<boolean> {
    const ttl = leaseTtl(ttlMs);
    const now = Date.now();
    return this.stmt.refresh.run(now + ttl, key, member, now).changes > 0;
  }

  async release(key: string, member: string): Promise<void> {
    this.stmt.release.run(key, member);
  }

  async count(key: string): Promise<number> {
    return this.stmt.count.get(key, Date.now())!;
  }

  /** Deletes up to pruneChunk leases expired at `now`, whatever their key; `more` when it deleted that many. */
  async prune(now: number): Promise<{ dropped: number; more: boolean }> {
    const dropped = this.stmt.prune.run(now, pruneChunk).changes;
    return { dropped, more: dropped >= pruneChunk };
  }
}
