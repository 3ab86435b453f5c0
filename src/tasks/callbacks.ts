// Client callbacks: on a task's state change its answer is POSTed to the URL it gave, with retries and backoff.
// Pending deliveries are jobs in the store (one per task, the latest state wins), so they survive a restart and
// any instance may deliver them.
import type { Gateway } from '../pipeline/gateway.js';
import { BackgroundLoop } from './background-loop.js';
import type { Job, JobQueue } from '../store/job-queue.js';
import { safePostJson, UnsafeUrl } from '../transport/safe-fetch.js';
import { taskBody } from './answer.js';

const leaseMs = 60_000;

export class CallbackDelivery {
  private readonly loop: BackgroundLoop;
  private readonly queue: JobQueue;

  constructor(private readonly g: Gateway) {
    this.queue = g.store.jobs('callbacks');
    this.loop = new BackgroundLoop('callback delivery', g.log, () => 1000, () => this.pass());
  }

  start(): void { this.loop.start(); }
  stop(waitMs?: number): Promise<void> { return this.loop.stop(waitMs); }

  /** Queues a delivery of the task's current state, then delivers soon. */
  notify(taskId: string): void {
    this.queue.schedule(taskId, Date.now()).then(() => this.loop.kick(), (err: unknown) => {
      this.g.log.warn({ task_id: taskId, err: (err as Error).message }, 'callback not queued');
    });
  }

  async pass(): Promise<number> {
    const now = Date.now();
    const jobs = await this.queue.claim(this.g.store.instance, now, now + leaseMs, 50);
    await Promise.all(jobs.map((j) => this.deliver(j)));
    return jobs.length;
  }

  private async deliver(job: Job): Promise<void> {
    const rec = await this.g.tasks.get(job.id);
    const cb = rec?.callback;
    if (!rec || !cb) return this.queue.done(job);
    const route = this.g.runtime.routes.find((r) => r.id === cb.route);
    const { allow_private_networks, timeout_ms, max_attempts } = this.g.runtime.callbacks;
    let outcome: string;
    try {
      const body = this.g.redactor.text(JSON.stringify(route ? await taskBody(this.g, route, rec, cb.base_url ?? '') : rec.id));
      const status = await safePostJson(cb.url, body, { allowPrivate: allow_private_networks, timeoutMs: timeout_ms });
      if (status >= 200 && status < 300) return this.queue.done(job);
      outcome = `HTTP ${status}`;
    } catch (err) {
      // A refused address names the setting that allows it (the address itself stays in the operator's log).
      outcome = err instanceof UnsafeUrl && /private address/.test(err.message)
        ? `refused: ${err.message}; callbacks.allow_private_networks allows private addresses`
        : (err as Error).message;
    }
    // Only the host is logged: callback URLs often carry the client's own secrets in the query.
    const host = safeHost(cb.url);
    if (job.attempt >= max_attempts) {
      this.g.log.warn({ task_id: rec.id, host, attempts: job.attempt, outcome }, 'callback abandoned');
      return this.queue.done(job);
    }
    await this.queue.retry(job, Date.now() + Math.min(60_000, 1000 * 2 ** (job.attempt - 1)));
  }
}

const safeHost = (u: string) => { try { return new URL(u).host; } catch { return ''; } };
