// The index of unfinished tasks: in-flight limits per group, due times, and poller leases across instances.
export interface OpenTask { id: string; channel: string }

/** A task whose submit has not been answered yet (no channel): who is submitting it, and since when. */
export interface PendingTask { id: string; owner: string; opened_at: number }

export interface TaskIndex {
  /**
   * Registers an unfinished task, held by this process until its submit is answered, unless its group already
   * has `limit` of them; false when saturated.
   */
  open(id: string, group: string, limit: number | undefined, nextPollAt: number): Promise<boolean>;
  /** Marks the submit as answered by `channel`, so the poller may claim it; false when the task is no longer open. */
  setChannel(id: string, channel: string): Promise<boolean>;
  /** Tasks whose submit has not been answered (their process may have died mid-submit). */
  pending(): Promise<PendingTask[]>;
  /** Tasks whose lease runs past `now`, with the owner holding it (a dead owner's leases are released early). */
  leased(now: number): Promise<{ id: string; owner: string }[]>;
  /** Claims up to `limit` due tasks no other instance holds, leasing them to `owner` until `leaseUntil`. */
  claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<OpenTask[]>;
  /** Takes one task's lease (for an inline refresh or a recovery); false when another instance holds it. */
  lease(id: string, owner: string, now: number, leaseUntil: number): Promise<boolean>;
  /** Releases the lease and schedules the next poll. */
  reschedule(id: string, nextPollAt: number): Promise<void>;
  close(id: string): Promise<void>;
  count(): Promise<number>;
}
