// Which gateway processes sharing a SQLite file are alive: each beats its row in `quota_owners`; a row whose beat is
// stale, or whose pid is gone on this host, belongs to a dead process whose leftovers a sweep may take back.
import { hostname } from 'node:os';
import type { StateDb } from './sqlite-state.js';
import { pidAlive } from './pid-alive.js';

export const ownersSchema = `
  CREATE TABLE IF NOT EXISTS quota_owners (owner TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, beat_at INTEGER NOT NULL);`;

export class SqliteInstances {
  private readonly s;
  private readonly host = hostname();
  private timer?: NodeJS.Timeout;

  constructor(db: StateDb, readonly id: string, private readonly staleMs: number) {
    db.exec(ownersSchema);
    this.s = {
      register: db.prepare('INSERT INTO quota_owners (owner, host, pid, beat_at) VALUES (?, ?, ?, ?) ON CONFLICT(owner) DO UPDATE SET beat_at = excluded.beat_at'),
      get: db.prepare('SELECT owner, host, pid, beat_at FROM quota_owners WHERE owner = ?'),
      drop: db.prepare('DELETE FROM quota_owners WHERE owner = ?'),
    };
  }

  /**
   * Beats every second. Only for a process whose quota holds do not beat for it (write-through mode): re-registering
   * after being declared dead is safe only when no hold could have been reclaimed meanwhile.
   */
  startBeating(): void {
    const beat = () => this.s.register.run(this.id, this.host, process.pid, Date.now());
    beat();
    this.timer = setInterval(beat, 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    if (this.timer) this.s.drop.run(this.id);
  }

  /** The owners among `owners` that are alive now; an owner with no row (never seen, or reclaimed) is not. */
  alive(owners: string[], now = Date.now()): Set<string> {
    const out = new Set<string>();
    for (const owner of owners) {
      const o = this.s.get.get(owner) as { host: string; pid: number; beat_at: number } | undefined;
      if (o && o.beat_at >= now - this.staleMs && (o.host !== this.host || pidAlive(o.pid))) out.add(owner);
    }
    return out;
  }
}
