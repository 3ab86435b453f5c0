// Rate windows in the SQLite state file, so every process sharing it counts together: a call is one immediate
// transaction (read the ring, slide it, write it back), and rows whose windows have emptied are swept now and then.
import type { StateDb } from './sqlite-state.js';
import { ringExpiresAt, slideWindow, type RateWindows, type Ring, type WindowOp, type WindowResult } from './rate-window.js';

const schema = `CREATE TABLE IF NOT EXISTS rate_windows (key TEXT PRIMARY KEY, latest INTEGER NOT NULL, total INTEGER NOT NULL,
  slots TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID`;

const sweepEveryMs = 60_000;

export class SqliteRateWindows implements RateWindows {
  private readonly run: (ops: WindowOp[], now: number) => WindowResult[];
  private lastSweep = 0;

  constructor(db: StateDb) {
    db.exec(schema);
    const get = db.prepare('SELECT latest, total, slots FROM rate_windows WHERE key = ?');
    const put = db.prepare(`INSERT INTO rate_windows (key, latest, total, slots, expires_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(key) DO UPDATE SET latest = excluded.latest, total = excluded.total, slots = excluded.slots, expires_at = excluded.expires_at`);
    const sweep = db.prepare('DELETE FROM rate_windows WHERE expires_at < ?');
    const apply = db.transaction((ops: WindowOp[], now: number) => {
      if (now - this.lastSweep > sweepEveryMs) { this.lastSweep = now; sweep.run(now); }
      return ops.map((op) => {
        const row = get.get(op.key) as { latest: number; total: number; slots: string } | undefined;
        const before: Ring | undefined = row && { latest: row.latest, total: row.total, slots: JSON.parse(row.slots) as number[] };
        const { ring, result } = slideWindow(before, op, now);
        put.run(op.key, ring.latest, ring.total, JSON.stringify(ring.slots), ringExpiresAt(ring.latest, op.spec));
        return result;
      });
    });
    // Immediate: the write lock is taken before the read, so two processes never slide from the same ring.
    this.run = (ops, now) => apply.immediate(ops, now);
  }

  async slide(ops: WindowOp[], at = Date.now()): Promise<WindowResult[]> {
    return ops.length ? this.run(ops, at) : [];
  }
}
