// TaskIndex in SQLite: each claim and each in-flight check is one statement, so instances never race.
import type { StateDb } from './sqlite-state.js';
import type { OpenTask, PendingTask, TaskIndex } from './task-index.js';

const schema = `
  CREATE TABLE IF NOT EXISTS task_open (id TEXT PRIMARY KEY, grp TEXT NOT NULL, channel TEXT NOT NULL DEFAULT '',
    next_poll_at INTEGER NOT NULL, lease_until INTEGER NOT NULL DEFAULT 0, lease_owner TEXT NOT NULL DEFAULT '');
  CREATE INDEX IF NOT EXISTS task_open_due ON task_open(next_poll_at);
  CREATE INDEX IF NOT EXISTS task_open_grp ON task_open(grp);`;

/** Columns of later versions: who is submitting a task and since when (rows of an older version count as orphans). */
function migrate(db: StateDb): void {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('task_open');
  if (!columns.includes('owner')) db.exec("ALTER TABLE task_open ADD COLUMN owner TEXT NOT NULL DEFAULT ''");
  if (!columns.includes('opened_at')) db.exec('ALTER TABLE task_open ADD COLUMN opened_at INTEGER NOT NULL DEFAULT 0');
}

export class SqliteTaskIndex implements TaskIndex {
  private readonly stmt;

  /** `owner`: this process's id (Store.instance), recorded on the tasks it opens. */
  constructor(db: StateDb, private readonly owner = '') {
    db.exec(schema);
    migrate(db);
    this.stmt = {
      open: db.prepare(`INSERT INTO task_open (id, grp, next_poll_at, owner, opened_at) SELECT ?, ?, ?, ?, ?
        WHERE (SELECT COUNT(*) FROM task_open WHERE grp = ?) < ? ON CONFLICT(id) DO NOTHING RETURNING id`),
      setChannel: db.prepare('UPDATE task_open SET channel = ? WHERE id = ?'),
      pending: db.prepare("SELECT id, owner, opened_at FROM task_open WHERE channel = ''"),
      leased: db.prepare('SELECT id, lease_owner AS owner FROM task_open WHERE lease_until >= ?'),
      claim: db.prepare(`UPDATE task_open SET lease_until = ?, lease_owner = ? WHERE id IN (
        SELECT id FROM task_open WHERE next_poll_at <= ? AND lease_until < ? AND channel != '' ORDER BY next_poll_at LIMIT ?)
        RETURNING id, channel`),
      lease: db.prepare('UPDATE task_open SET lease_until = ?, lease_owner = ? WHERE id = ? AND (lease_until < ? OR lease_owner = ?) RETURNING id'),
      reschedule: db.prepare("UPDATE task_open SET next_poll_at = ?, lease_until = 0, lease_owner = '' WHERE id = ?"),
      close: db.prepare('DELETE FROM task_open WHERE id = ?'),
      count: db.prepare('SELECT COUNT(*) FROM task_open').pluck(),
    };
  }

  async open(id: string, group: string, limit: number | undefined, nextPollAt: number): Promise<boolean> {
    return this.stmt.open.all(id, group, nextPollAt, this.owner, Date.now(), group, limit ?? Number.MAX_SAFE_INTEGER).length === 1;
  }

  async setChannel(id: string, channel: string): Promise<boolean> {
    return this.stmt.setChannel.run(channel, id).changes === 1;
  }

  async pending(): Promise<PendingTask[]> {
    return this.stmt.pending.all() as PendingTask[];
  }

  async leased(now: number): Promise<{ id: string; owner: string }[]> {
    return this.stmt.leased.all(now) as { id: string; owner: string }[];
  }

  async claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<OpenTask[]> {
    return this.stmt.claim.all(leaseUntil, owner, now, now, limit) as OpenTask[];
  }

  async lease(id: string, owner: string, now: number, leaseUntil: number): Promise<boolean> {
    return this.stmt.lease.all(leaseUntil, owner, id, now, owner).length === 1;
  }

  async reschedule(id: string, nextPollAt: number): Promise<void> {
    this.stmt.reschedule.run(nextPollAt, id);
  }

  async close(id: string): Promise<void> {
    this.stmt.close.run(id);
  }

  async count(): Promise<number> {
    return this.stmt.count.get() as number;
  }
}
