// A request's abort: read like an AbortSignal (`aborted`, `reason`, 'abort' listeners) at a fraction of the cost
// of AbortController and EventTarget, which every request would otherwise pay for several times.
export interface Signal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', fn: () => void, opts?: { once?: boolean }): void;
  removeEventListener(type: 'abort', fn: () => void): void;
}

export class Abort implements Signal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];

  /** The same object: `abort.signal` reads as with an AbortController. */
  get signal(): Signal {
    return this;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const fns = this.listeners;
    this.listeners = [];
    for (const fn of fns) fn();
  }

  /** As with an AbortSignal, a listener added after the abort is never called. Every listener runs once. */
  addEventListener(_type: 'abort', fn: () => void): void {
    if (!this.aborted) this.listeners.push(fn);
  }

  removeEventListener(_type: 'abort', fn: () => void): void {
    const i = this.listeners.indexOf(fn);
    if (i !== -1) this.listeners.splice(i, 1);
  }
}
