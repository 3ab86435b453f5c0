// The background poller: claims due tasks under a lease, refreshes them per channel, and stops cleanly.
import type { Gateway } from '../pipeline/gateway.js';
import { BackgroundLoop } from './background-loop.js';
import { refreshTasks } from './refresh.js';
import { dropOrphan } from './recovery.js';
import type { TaskRecord } from '../records/task-record.js';

export class TaskPoller {
  private readonly loop: BackgroundLoop;

  constructor(private readonly g: Gateway) {
    this.loop = new BackgroundLoop('task poller', g.log, () => g.runtime.tasks.poll_interval_ms, () => this.pass());
  }

  start(): void { this.loop.start(); }
  stop(waitMs?: number): Promise<void> { return this.loop.stop(waitMs); }

  /** One pass: claim, group by channel, refresh channels in parallel and each channel's tasks in order. */
  async pass(): Promise<number> {
    const { lease_ms, batch_size } = this.g.runtime.tasks;
    const now = Date.now();
    const claimed = await this.g.store.tasks.claimDue(this.g.store.instance, now, now + lease_ms, batch_size);
    if (!claimed.length) return 0;
    const byChannel = new Map<string, TaskRecord[]>();
    for (const c of claimed) {
      const rec = await this.g.tasks.get(c.id);
      // A claimed id without a record (expired, or an older version's crash between submit steps): refund and drop it.
      if (!rec) { await dropOrphan(this.g, c.id); continue; }
      const key = `${rec.channel}\u0000${rec.operation}`;
      byChannel.set(key, [...(byChannel.get(key) ?? []), rec]);
    }
    await Promise.all([...byChannel.values()].map((tasks) => refreshTasks(this.g, tasks).catch((err) => {
      this.g.log.warn({ err: (err as Error).message }, 'task refresh failed');
    })));
    return claimed.length;
  }
}
