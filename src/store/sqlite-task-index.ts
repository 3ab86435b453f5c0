// TaskIndex in SQLite: each claim and each in-flight check is one statement, so instances never race.
import type { OpenTask, TaskIndex } from './task-index.js';

type Query = (sql: string, ...params: unknown[]) => Promise<any[]>;

const schema = [
  `CREATE TABLE IF NOT EXISTS task_open (id TEXT PRIMARY KEY, grp TEXT NOT NULL, channel TEXT NOT NULL DEFAULT '',
     next_poll_at INTEGER NOT NULL, lease_until INTEGER NOT NULL DEFAULT 0, lease_owner TEXT NOT NULL DEFAULT '')`,
  `CREATE INDEX IF NOT EXISTS task_open_due ON task_open(next_poll_at)`,
  `CREATE INDEX IF NOT EXISTS task_open_grp ON task_open(grp)`,
];

export class SqliteTaskIndex implements TaskIndex {
  constructor(private readonly query: Query) {}

  async init(): Promise<void> {
    for (const sql of schema) await this.query(sql);
  }

  async open(id: string, group: string, limit: number | undefined, nextPollAt: number): Promise<boolean> {
    const rows = await this.query(
      `INSERT INTO task_open (id, grp, next_poll_at) SELECT ?, ?, ?
         WHERE (SELECT COUNT(*) FROM task_open WHERE grp = ?) < ? ON CONFLICT(id) DO NOTHING RETURNING id`,
      id, group, nextPollAt, group, limit ?? Number.MAX_SAFE_INTEGER,
    );
    return rows.length === 1;
  }

  async setChannel(id: string, channel: string): Promise<void> {
    await this.query('UPDATE task_open SET channel = ? WHERE id = ?', channel, id);
  }

  async claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<OpenTask[]> {
    return this.query(
      `UPDATE task_open SET lease_until = ?, lease_owner = ? WHERE id IN (
         SELECT id FROM task_open WHERE next_poll_at <= ? AND lease_until < ? AND channel != '' ORDER BY next_poll_at LIMIT ?)
       RETURNING id, channel`,
      leaseUntil, owner, now, now, limit,
    );
  }

  async lease(id: string, owner: string, now: number, leaseUntil: number): Promise<boolean> {
    const rows = await this.query(
      'UPDATE task_open SET lease_until = ?, lease_owner = ? WHERE id = ? AND (lease_until < ? OR lease_owner = ?) RETURNING id',
      leaseUntil, owner, id, now, owner,
    );
    return rows.length === 1;
  }

  async reschedule(id: string, nextPollAt: number): Promise<void> {
    await this.query("UPDATE task_open SET next_poll_at = ?, lease_until = 0, lease_owner = '' WHERE id = ?", nextPollAt, id);
  }

  async close(id: string): Promise<void> {
    await this.query('DELETE FROM task_open WHERE id = ?', id);
  }

  async count(): Promise<number> {
    const rows = await this.query('SELECT COUNT(*) AS n FROM task_open');
    return rows[0]?.n ?? 0;
  }
}
