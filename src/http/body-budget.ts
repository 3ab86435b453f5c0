// The memory all request bodies may hold at once: a burst of large uploads is refused with 503 instead of
// growing the process until the kernel kills it.
export class BodyBudget {
  private used = 0;

  constructor(private readonly limit: () => number) {}

  /** Takes `n` bytes; false (nothing taken) when that would pass the limit. */
  take(n: number): boolean {
    if (this.used + n > this.limit()) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }

  get inUse(): number {
    return this.used;
  }
}
