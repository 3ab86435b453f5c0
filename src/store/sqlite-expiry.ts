// keyv drops a record past its expiry only when it is read again; records nobody reads again (a finished task's, a
// kept conversation's) would stay in the SQLite file for good. The retention pass sweeps them: a stretch of the table
// by rowid a call (so no call holds the event loop long), where keyv's serialized `expires` has passed.
import type Database from 'better-sqlite3';

/** Rows looked at in one call. */
const stretch = 20_000;

export class ExpirySweep {
  private from = 0;
  private readonly drop;
  private readonly last;

  constructor(db: Database.Database) {
    this.drop = db.prepare<[number, number, number]>(`DELETE FROM keyv WHERE rowid > ? AND rowid <= ?
      AND json_valid(value) AND json_extract(value, '$.expires') < ?`);
    this.last = db.prepare<[number, number], number>('SELECT max(rowid) FROM (SELECT rowid FROM keyv WHERE rowid > ? ORDER BY rowid LIMIT ?)').pluck();
  }

  /** One stretch, from where the last call stopped; `more` until the end of the table, then it starts over. */
  async run(now: number): Promise<{ dropped: number; more: boolean }> {
    const to = this.last.get(this.from, stretch);
    if (to === null || to === undefined) {
      this.from = 0;
      return { dropped: 0, more: false };
    }
    const dropped = this.drop.run(this.from, to, now).changes;
    this.from = to;
    return { dropped, more: true };
  }
}
