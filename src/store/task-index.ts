// The index of unfinished tasks: in-flight limits per group, due times, and poller leases across instances.
export interface OpenTask { id: string; channel: string }

export interface TaskIndex {
  /** Registers an unfinished task unless its group already has `limit` of them; false when saturated. */
  open(id: string, group: string, limit: number | undefined, nextPollAt: number): Promise<boolean>;
  setChannel(id: string, channel: string): Promise<void>;
  /** Claims up to `limit` due tasks no other instance holds, leasing them to `owner` until `leaseUntil`. */
  claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<OpenTask[]>;
  /** Takes one task's lease (for an inline refresh); false when another instance holds it. */
  lease(id: string, owner: string, now: number, leaseUntil: number): Promise<boolean>;
  /** Releases the lease and schedules the next poll. */
  reschedule(id: string, nextPollAt: number): Promise<void>;
  close(id: string): Promise<void>;
  count(): Promise<number>;
}
