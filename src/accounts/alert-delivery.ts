// Budget alert webhooks, delivered off the request path as client callbacks are (src/tasks/callbacks.ts): each event
// is a job in the store's durable queue, so any instance may deliver it and it survives a restart; a failed attempt
// is retried with exponential back-off up to a cap of attempts, and a receiver that stalls is cut by a timeout. The
// body waits in a keyv record under the event's id, written once, so every attempt sends (and signs) the same bytes.
import type { Logger } from 'pino';
import type Keyv from 'keyv';
import type { Store } from '../store/store.js';
import type { Job, JobQueue } from '../store/job-queue.js';
import { safePostJson } from '../transport/safe-fetch.js';
import { signatureHeader, signBody, type AlertEvent } from './alert-event.js';

export interface WebhookSettings {
  url: string;
  /** Signs each body; never logged, never sent. */
  secret: string;
  /** A delivery attempt's connect and first-byte bound (default 5000). */
  timeoutMs?: number;
  /** Attempts before an event is abandoned (default 5). */
  maxAttempts?: number;
  /** The first retry's delay, doubled for each next one up to a minute (default 1000). */
  backoffMs?: number;
}

/** A body kept this long outlives any schedule of retries, even one every instance was down through. */
const bodyTtlMs = 2 * 86_400_000;
const maxBackoffMs = 60_000;

export class AlertDelivery {
  private readonly queue: JobQueue;
  private readonly bodies: Keyv;
  private readonly hook: Required<WebhookSettings>;
  private readonly host: string;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;

  constructor(store: Store, private readonly log: Logger, hook: WebhookSettings, private readonly owner: string) {
    this.queue = store.jobs('budget-alerts');
    this.bodies = store.kv('budget-alerts');
    this.hook = { timeoutMs: 5000, maxAttempts: 5, backoffMs: 1000, ...hook };
    // Only the host is logged: a webhook URL may carry a token of the receiver's in its path or query.
    this.host = safeHost(hook.url);
  }

  /** Queues the event's delivery; rejects when the store does. */
  async enqueue(e: AlertEvent): Promise<void> {
    await this.bodies.set(e.id, { body: JSON.stringify(e) }, bodyTtlMs);
    await this.queue.schedule(e.id, Date.now());
    this.kick();
  }

  start(): void {
    this.stopped = false;
    this.next(0);
  }

  /** Stops passing; waits for the pass in progress at most `waitMs` (a stalled receiver must not hold a stop). */
  async stop(waitMs = 1000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    let t: NodeJS.Timeout | undefined;
    if (this.running) await Promise.race([this.running, new Promise((r) => { t = setTimeout(r, waitMs); })]);
    clearTimeout(t);
  }

  /** Delivers the due events, at most 50 a pass; answers how many it took. */
  async pass(): Promise<number> {
    const now = Date.now();
    // A job's lease covers an attempt and its redirects (safePostJson follows 3), each bound by the timeout.
    const jobs = await this.queue.claim(this.owner, now, now + Math.max(60_000, 5 * this.hook.timeoutMs), 50);
    await Promise.all(jobs.map((j) => this.deliver(j)));
    return jobs.length;
  }

  private kick(): void {
    if (!this.stopped && !this.running) this.next(0);
  }

  private next(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), delayMs);
  }

  private run(): void {
    if (this.stopped || this.running) return;
    this.running = this.pass().then(() => undefined, (err: unknown) => { this.log.error({ err: (err as Error).message }, 'budget alert delivery pass failed'); })
      .finally(() => {
        this.running = undefined;
        // Polled no slower than the first retry is due, so back-off delays are kept (and a test's short ones too).
        if (!this.stopped) this.next(Math.min(1000, this.hook.backoffMs));
      });
  }

  private async deliver(job: Job): Promise<void> {
    const rec = await this.bodies.get(job.id) as { body: string } | undefined;
    if (!rec) return this.queue.done(job);
    const { url, secret, timeoutMs, maxAttempts, backoffMs } = this.hook;
    let outcome: string;
    try {
      const headers = { [signatureHeader]: signBody(secret, rec.body), 'user-agent': 'switchyard-budget-alert' };
      const status = await safePostJson(url, rec.body, { allowPrivate: true, timeoutMs, headers });
      if (status >= 200 && status < 300) return this.finish(job);
      outcome = `HTTP ${status}`;
    } catch (err) {
      outcome = this.masked((err as Error).message);
    }
    if (job.attempt >= maxAttempts) {
      this.log.warn({ event_id: job.id, host: this.host, attempts: job.attempt, outcome }, 'budget alert webhook abandoned');
      return this.finish(job);
    }
    await this.queue.retry(job, Date.now() + Math.min(maxBackoffMs, backoffMs * 2 ** (job.attempt - 1)));
  }

  private async finish(job: Job): Promise<void> {
    await this.queue.done(job);
    await this.bodies.delete(job.id);
  }

  /** An error's text without the URL's path and query or the secret, should a layer below ever quote them. */
  private masked(msg: string): string {
    return msg.split(this.hook.url).join(this.host).split(this.hook.secret).join('***');
  }
}

const safeHost = (u: string) => { try { return new URL(u).host; } catch { return ''; } };
