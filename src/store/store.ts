// What every store backend gives the gateway (SQLite, Redis, a Redis Cluster): apart from the code that opens one,
// so that each backend imports the contract downward.
import type Keyv from 'keyv';
import type { QuotaLedger } from './quota-ledger.js';
import type { TaskIndex } from './task-index.js';
import type { TaskCatalog } from './task-catalog.js';
import type { JobQueue } from './job-queue.js';
import type { RateWindows } from './rate-window.js';
import type { Leases } from './leases.js';

export interface Store {
  /** A keyv namespace ('tokens', 'tasks', ...); records are JSON. */
  kv(namespace: string): Keyv;
  quota: QuotaLedger;
  tasks: TaskIndex;
  /** Every task by owner, family and creation, for listings. */
  catalog: TaskCatalog;
  /** Every file by owner, purpose (its `family`) and creation, for listings (src/files/). */
  files: TaskCatalog;
  /** A durable queue of due jobs shared by every instance (client callbacks). */
  jobs(queue: string): JobQueue;
  /** This process's id in the store: the owner of the reservations and submits it opens. */
  instance: string;
  /** The owners among these that are alive; the others are gone and a sweep may take back what they left. */
  alive(owners: string[]): Promise<Set<string>>;
  /** Sliding windows of rate limits, counted by every process and instance sharing the store. */
  rates: RateWindows;
  /** Live members of a key (e.g. open sessions of a token), counted by every process and instance sharing the store. */
  leases: Leases;
  describe: string;
  /**
   * Cache invalidation across instances sharing the store: `publishInvalidate(tokenHash)` reaches every
   * instance's `onInvalidate` listeners (an undefined hash means "drop everything", e.g. after messages may
   * have been missed). Absent for a store only one host uses (SQLite): there `token_cache_ms` is the bound.
   */
  onInvalidate?(cb: (hash?: string) => void): void;
  publishInvalidate?(hash: string): Promise<void>;
  /**
   * Drops keyv records past their expiry that nobody read again (finished tasks, kept conversations), a bounded
   * stretch of the table a call; `more` when it stopped at its bound. Absent where records expire by themselves (Redis).
   */
  sweepExpired?(now: number): Promise<{ dropped: number; more: boolean }>;
  close(): Promise<void>;
}
