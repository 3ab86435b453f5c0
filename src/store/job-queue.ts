// A durable queue of jobs due at a time (client callbacks), shared by every instance: a job is claimed under a
// lease so one instance runs it at a time, and it survives a restart because it lives in the store.
export interface Job { id: string; attempt: number; version: number }

export interface JobQueue {
  /**
   * Schedules job `id` at `dueAt` (attempt 1). A job already queued is replaced: its due time and attempt are
   * reset and its version bumped, so a run that claimed the older version does not finish the newer one.
   */
  schedule(id: string, dueAt: number): Promise<void>;
  /** Up to `limit` due jobs no other instance holds, leased to `owner` until `leaseUntil`. */
  claim(owner: string, now: number, leaseUntil: number, limit: number): Promise<Job[]>;
  /** Removes the job, unless it was scheduled again since this version was claimed (then only the lease goes). */
  done(job: Job): Promise<void>;
  /** Schedules the next attempt of this version at `dueAt` (a newer version keeps its own schedule). */
  retry(job: Job, dueAt: number): Promise<void>;
  count(): Promise<number>;
}
