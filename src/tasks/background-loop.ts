// A background job run again and again (task polls, recovery sweeps, callback deliveries): one pass at a time,
// the next one `intervalMs` after the last ended, and a stop that never waits longer than it is told to.
import type { Logger } from 'pino';

export class BackgroundLoop {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;
  private again = false;

  constructor(private readonly name: string, private readonly log: Logger, private readonly intervalMs: () => number, private readonly pass: () => Promise<unknown>) {}

  start(delayMs = 0): void {
    this.stopped = false;
    this.timer = setTimeout(() => this.run(), delayMs);
  }

  /** Runs a pass soon (now if idle, right after the current one otherwise), e.g. when new work was queued. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) { this.again = true; return; }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), 0);
  }

  /** Stops scheduling and waits for the pass in progress, at most `waitMs`: a hung upstream must not hold a stop. */
  async stop(waitMs = 1000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.running) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise((r) => { timer = setTimeout(r, waitMs); })]);
    clearTimeout(timer);
  }

  private run(): void {
    if (this.stopped) return;
    this.again = false;
    this.running = this.pass().then(() => undefined, (err: unknown) => { this.log.error({ err: (err as Error).message }, `${this.name} pass failed`); })
      .finally(() => {
        this.running = undefined;
        if (!this.stopped) this.timer = setTimeout(() => this.run(), this.again ? 0 : this.intervalMs());
      });
  }
}
