// The pace a request body must keep while it arrives: no pause longer than `idleMs`, and, once `graceMs` has passed,
// an average of at least `minRate` bytes a second (Apache mod_reqtimeout's MinRate): a body must be complete by
// start + grace + its size ÷ the rate, so one byte every few seconds is cut however short each pause is.
import { GatewayError } from './errors.js';

export interface Pace {
  /** Longest pause between two chunks of the body. */
  idleMs: number;
  /** Slowest average pace after the grace, in bytes a second; 0: none. */
  minRate: number;
  graceMs: number;
}

export class PaceWatch {
  private bytes = 0;
  private last: number;
  private readonly start: number;
  private timer?: NodeJS.Timeout;

  /** `onSlow` is called once, with the 408 to answer, when the body falls behind. */
  constructor(private readonly pace: Pace, private readonly onSlow: (err: GatewayError) => void) {
    this.start = this.last = Date.now();
    this.timer = setTimeout(this.check, Math.min(pace.idleMs, this.rateDeadline() - this.start));
  }

  /** A chunk arrived. One timer per body, pushed back only when it fires early: re-arming it per chunk would cost more than the chunk. */
  data(n: number): void {
    this.bytes += n;
    this.last = Date.now();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private rateDeadline(): number {
    return this.pace.minRate > 0 ? this.start + this.pace.graceMs + (this.bytes * 1000) / this.pace.minRate : Infinity;
  }

  private readonly check = (): void => {
    const now = Date.now();
    const idleAt = this.last + this.pace.idleMs;
    const rateAt = this.rateDeadline();
    if (now < idleAt && now < rateAt) { this.timer = setTimeout(this.check, Math.min(idleAt, rateAt) - now); return; }
    this.timer = undefined;
    const message = now >= idleAt ? `No request body bytes for ${this.pace.idleMs} ms`
      : `The request body arrived slower than ${this.pace.minRate} bytes per second`;
    this.onSlow(new GatewayError('request_timeout', message, { headers: { connection: 'close' } }));
  };
}
