// The requests being served, for a stop to wait for and cut. Slots in an array with a free list, not a Set: a Set
// gives each request context an identity hash, and an object hashed before its fields are filled in takes slow
// property paths from then on (measured: about a fifth of the CPU a proxied request costs).
export interface Slotted { slot: number }

export class InFlight<T extends Slotted> {
  private readonly slots: (T | undefined)[] = [];
  private readonly free: number[] = [];
  private count = 0;

  add(item: T): void {
    const i = this.free.pop() ?? this.slots.length;
    this.slots[i] = item;
    item.slot = i;
    this.count++;
  }

  delete(item: T): void {
    if (item.slot < 0 || this.slots[item.slot] !== item) return;
    this.slots[item.slot] = undefined;
    this.free.push(item.slot);
    item.slot = -1;
    this.count--;
  }

  get size(): number {
    return this.count;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (const item of this.slots) if (item) yield item;
  }
}
