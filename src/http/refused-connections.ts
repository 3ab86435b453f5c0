// Connections refused before they became a request (over the connection cap, a malformed or too slow request line)
// have no access line. Their reasons are counted and written as one warning every 10 s at most, so a flood of them
// cannot flood the log, and the operator still sees which setting refused them and how often.
import type { Logger } from 'pino';

export class RefusedConnections {
  private counts = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly log: Logger, private readonly periodMs = 10_000) {}

  note(reason: string): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.periodMs);
    this.timer.unref();
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.counts.size) return;
    const refused = Object.fromEntries(this.counts);
    this.counts.clear();
    this.log.warn({ refused }, 'connections refused before a request');
  }
}
