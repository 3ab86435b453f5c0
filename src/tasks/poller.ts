// The background poller: claims due tasks under a lease, refreshes them per channel, and stops cleanly.
import type { Gateway } from '../gateway.js';
import { instanceId } from './query.js';
import { refreshTasks } from './refresh.js';
import type { TaskRecord } from './task-record.js';

export class TaskPoller {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly g: Gateway) {}

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.running = this.pass().then(() => undefined, (err: unknown) => this.g.log.error({ err: (err as Error).message }, 'task poller pass failed'))
        .finally(() => { if (!this.stopped) this.timer = setTimeout(loop, this.g.runtime.tasks.poll_interval_ms); });
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: claim, group by channel, refresh channels in parallel and each channel's tasks in order. */
  async pass(): Promise<number> {
    const { lease_ms, batch_size } = this.g.runtime.tasks;
    const now = Date.now();
    const claimed = await this.g.store.tasks.claimDue(instanceId, now, now + lease_ms, batch_size);
    if (!claimed.length) return 0;
    const byChannel = new Map<string, TaskRecord[]>();
    for (const c of claimed) {
      const rec = await this.g.tasks.get(c.id);
      // A claimed id without a record is an orphan of a crash between submit steps: drop it.
      if (!rec) { await this.g.store.tasks.close(c.id); continue; }
      const key = `${rec.channel}\u0000${rec.operation}`;
      byChannel.set(key, [...(byChannel.get(key) ?? []), rec]);
    }
    await Promise.all([...byChannel.values()].map((tasks) => refreshTasks(this.g, tasks).catch((err) => {
      this.g.log.warn({ err: (err as Error).message }, 'task refresh failed');
    })));
    return claimed.length;
  }
}
