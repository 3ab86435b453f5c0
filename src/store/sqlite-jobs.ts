// JobQueue in SQLite: each claim is one statement, so instances sharing the file never run a job twice at once.
import type { StateDb } from './sqlite-state.js';
import type { Job, JobQueue } from './job-queue.js';

const schema = `
  CREATE TABLE IF NOT EXISTS jobs (queue TEXT NOT NULL, id TEXT NOT NULL, due_at INTEGER NOT NULL, attempt INTEGER NOT NULL,
    version INTEGER NOT NULL, lease_until INTEGER NOT NULL DEFAULT 0, lease_owner TEXT NOT NULL DEFAULT '', PRIMARY KEY (queue, id));
  CREATE INDEX IF NOT EXISTS jobs_due ON jobs(queue, due_at);`;

export class SqliteJobs implements JobQueue {
  private readonly s;

  constructor(db: StateDb, private readonly queue: string) {
    db.exec(schema);
    this.s = {
      schedule: db.prepare(`INSERT INTO jobs (queue, id, due_at, attempt, version) VALUES (?, ?, ?, 1, 1)
        ON CONFLICT(queue, id) DO UPDATE SET due_at = excluded.due_at, attempt = 1, version = version + 1`),
      claim: db.prepare(`UPDATE jobs SET lease_until = ?, lease_owner = ? WHERE rowid IN (
        SELECT rowid FROM jobs WHERE queue = ? AND due_at <= ? AND lease_until < ? ORDER BY due_at LIMIT ?) RETURNING id, attempt, version`),
      done: db.prepare('DELETE FROM jobs WHERE queue = ? AND id = ? AND version = ?'),
      retry: db.prepare('UPDATE jobs SET attempt = attempt + 1, due_at = ?, lease_until = 0 WHERE queue = ? AND id = ? AND version = ?'),
      release: db.prepare('UPDATE jobs SET lease_until = 0 WHERE queue = ? AND id = ?'),
      count: db.prepare('SELECT COUNT(*) FROM jobs WHERE queue = ?').pluck(),
    };
  }

  async schedule(id: string, dueAt: number): Promise<void> {
    this.s.schedule.run(this.queue, id, dueAt);
  }

  async claim(owner: string, now: number, leaseUntil: number, limit: number): Promise<Job[]> {
    return this.s.claim.all(leaseUntil, owner, this.queue, now, now, limit) as Job[];
  }

  async done(job: Job): Promise<void> {
    if (!this.s.done.run(this.queue, job.id, job.version).changes) this.s.release.run(this.queue, job.id);
  }

  async retry(job: Job, dueAt: number): Promise<void> {
    if (!this.s.retry.run(dueAt, this.queue, job.id, job.version).changes) this.s.release.run(this.queue, job.id);
  }

  async count(): Promise<number> {
    return this.s.count.get(this.queue) as number;
  }
}
