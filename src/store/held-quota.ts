// Write-behind quota for proxied requests: no disk write on a request's path, and still no overdraft.
//
// A process moves a slice of an account's balance into its own hold (one short transaction), then reserves and
// settles requests against that hold in memory, which is atomic because one event loop runs them. Every
// `flushMs` one transaction writes the closed requests' ledger entries and takes their charges off the hold: a row per
// request on its first level, the token's, and one per budget level for all of them (held-batch.ts).
// The money is always in exactly one place, the account or one process's hold, so processes sharing the store
// cannot spend the same unit twice, and topups from the CLI land in the account, where the next slice finds them.
//
// A crash loses the hold's memory, not its money: the hold row stays and the next process to notice the owner
// is gone (its pid is dead on this host, or it has not beaten for `staleMs`) returns it to the account. So a
// request in flight at the crash is refunded, and requests closed in the last `flushMs` before it are never
// charged: the gateway can forgive at most one flush interval of charges; a client is never charged twice,
// never charged for a reservation it did not use, and never overdrawn.
//
// A request reserves on several accounts at once (levels: docs/contributors/money-levels.md): the process first makes
// every checked level's hold cover the amount, then takes it from all of them in one synchronous step (held-levels.ts).
// An unchecked level never refuses: its hold's free may go below 0, and the hold row does once those charges are
// written; returned to the account (idle, stop, crash), a hold below 0 takes the debt with it, so money is conserved.
//
// Task reservations outlive a process, so they are `durable`: written through to the ledger at once.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { clampCharge, refundEach, settleEach, type CloseTags, type EntryTags, type LedgerEntry, type Level, type OpenReservation, type Pruned, type QuotaLedger, type ReserveScope, type Settled } from './quota-ledger.js';
import type { UsageQuery, UsageRow, UsageTotals } from './usage.js';
import type { HoldBackend } from './hold-backend.js';
import { closedOf, lateRow } from './held-rows.js';
import { spentOf, Unwritten } from './held-batch.js';
import { closeHeld, takeLevels, unflush, type Held, type Open } from './held-levels.js';

export interface HeldQuotaOptions {
  /** This process's id in the store (Store.instance); a random one when absent (tests). */
  owner?: string;
  flushMs: number;
  /** An owner silent this long is presumed dead and its holds go back to the accounts. */
  staleMs: number;
  /** A hold unused this long goes back to its account. */
  idleMs: number;
  onError(msg: string, err?: unknown): void;
}

const WAITS = 4; // flush intervals a refused reservation waits for other processes to give back their slices

export class HeldQuota implements QuotaLedger {
  private readonly owner: string;
  private registered = false;
  private readonly held = new Map<string, Held>();
  private readonly open = new Map<string, Open>();
  private readonly unwritten: Unwritten;
  private late: LedgerEntry[] = [];
  private timer?: NodeJS.Timeout;
  private lastBeat = 0;
  private lastSweep = 0;

  constructor(private readonly inner: QuotaLedger, private readonly holds: HoldBackend, private readonly o: HeldQuotaOptions) {
    this.owner = o.owner ?? `own_${randomBytes(8).toString('hex')}`;
    this.unwritten = new Unwritten(this.owner);
  }

  createAccount(account: string, initial: number): Promise<void> { return this.inner.createAccount(account, initial); }
  topup(account: string, amount: number, ref: string, tags?: EntryTags): Promise<boolean> { return this.inner.topup(account, amount, ref, tags); }

  // Reads write what is pending first: they see every close of this process.
  async usage(q: UsageQuery): Promise<UsageRow[]> { this.flush(); return this.inner.usage(q); }
  async totals(account: string): Promise<UsageTotals> { this.flush(); return this.inner.totals(account); }
  async entries(account: string): Promise<LedgerEntry[]> { this.flush(); return this.inner.entries(account); }
  storedBalance(account: string): Promise<number | undefined> { return this.inner.balance(account); }
  /** The account plus every hold on it, less what this process has reserved or charged but not yet written. */
  async balance(account: string): Promise<number | undefined> {
    const b = await this.inner.balance(account);
    if (b === undefined) return undefined;
    const h = this.held.get(account);
    return b + this.holds.heldTotal(account) - (h ? h.inflight + h.unflushed : 0);
  }

  async reserve(account: string, request: string, amount: number, scope: ReserveScope = 'durable', tags?: EntryTags): Promise<boolean> {
    const refused = this.take([{ account, request }], amount, scope, tags);
    return (typeof refused === 'number' ? refused : await refused) < 0;
  }

  async reserveLevels(levels: Level[], amount: number, scope: ReserveScope = 'durable', tags?: EntryTags): Promise<number> {
    const refused = this.take(levels, amount, scope, tags);
    return typeof refused === 'number' ? refused : await refused;
  }

  /** Taken, or refused, at once when the holds cover it (a number: no second promise on every request's path). */
  private take(levels: Level[], amount: number, scope: ReserveScope, tags: EntryTags | undefined): number | Promise<number> {
    if (scope === 'durable') return this.reserveDurable(levels, amount, tags);
    amount = Math.round(amount);
    const refused = takeLevels(this.held, this.open, levels, amount, tags);
    return refused < 0 ? refused : this.cover(levels, amount, tags, refused);
  }

  /** Makes the refusing level's hold cover the amount, then tries every level again: nothing is taken until all are covered. */
  private async cover(levels: Level[], amount: number, tags: EntryTags | undefined, refused: number): Promise<number> {
    for (let wait = 0; refused >= 0; refused = takeLevels(this.held, this.open, levels, amount, tags)) {
      const { account } = levels[refused];
      const h = this.held.get(account);
      if (h === undefined) { // no hold here yet (unchecked levels refuse for nothing else): make one, then try again
        if (this.newHold(account) === undefined) return refused; // no such account
        continue;
      }
      const got = this.holds.grab(this.owner, account, amount - h.free, amount - h.free + Math.max(8 * amount, 2 * h.rate), Date.now());
      if (got === undefined) return refused;
      if (got > 0) { h.free += got; continue; }
      if (!(await this.waitForOthers(account, wait++))) return refused;
    }
    return -1;
  }

  async settle(account: string, request: string, reserved: number, actual: number, tags?: CloseTags): Promise<Settled> {
    const o = this.open.get(request);
    if (!o) return this.inner.settle(account, request, reserved, actual, tags);
    const settled = clampCharge(o.amount, actual);
    this.closeRequest(request, o, 'settle', settled, tags);
    return settled;
  }

  async refund(account: string, request: string, reserved: number, tags?: CloseTags): Promise<void> {
    const o = this.open.get(request);
    if (!o) return this.inner.refund(account, request, reserved, tags);
    this.closeRequest(request, o, 'refund', { charged: 0, uncharged: 0 }, tags);
  }

  settleLevels(levels: readonly Level[], reserved: number, actual: number, tags?: CloseTags): Promise<Settled> { return settleEach(this, levels, reserved, actual, tags); }
  refundLevels(levels: readonly Level[], reserved: number, tags?: CloseTags): Promise<void> { return refundEach(this, levels, reserved, tags); }
  openOwners(): Promise<string[]> { return this.inner.openOwners(); }
  openOf(owner: string): Promise<OpenReservation[]> { return this.inner.openOf(owner); }
  reservationOf(request: string): Promise<OpenReservation | undefined> { return this.inner.reservationOf(request); }
  /** The ledger's rows (written first, as every read does); holds are no rows of it and stay. */
  async prune(now: number): Promise<Pruned> { this.flush(); return this.inner.prune(now); }

  /** Registers this process as an owner at once, so other processes see it alive before it holds anything. */
  begin(): void {
    this.start();
  }

  /** Writes what is pending, gives every hold back to its account and leaves (graceful stop). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    if (!this.registered) return;
    this.flush();
    try {
      this.holds.retire(this.owner, Date.now());
    } catch (err) {
      this.o.onError('quota holds not returned at stop; another process will reclaim them', err);
    }
    this.registered = false;
  }

  /**
   * One transaction for everything closed since the last one (two when the last one failed: it goes again first, as
   * it was); also the owner's heartbeat.
   */
  flush(): void {
    if (!this.registered) return;
    const now = Date.now();
    this.chargeLate();
    if (this.unwritten.idle && now - this.lastBeat < 1000) return;
    do {
      const batch = this.unwritten.next();
      let ok: boolean;
      try {
        ok = this.holds.commit(this.owner, batch, now);
      } catch (err) {
        this.o.onError('quota flush failed; retrying at the next interval', err);
        return;
      }
      this.lastBeat = now;
      if (!ok) return this.recover(now);
      this.unwritten.written();
      unflush(this.held, spentOf(batch));
    } while (!this.unwritten.idle);
  }

  private closeRequest(request: string, o: Open, kind: string, settled: Settled, tags?: CloseTags): void {
    this.open.delete(request);
    const at = Date.now();
    if (o.orphan) { this.late.push(lateRow(closedOf(request, o, kind, settled, at, tags))); return; }
    closeHeld(this.held.get(o.account)!, o.amount, settled.charged, at);
    this.unwritten.add(request, o, kind, settled, at, tags);
    if (this.unwritten.waiting >= 2048) this.flush(); // bounds memory under a burst
  }

  /** This process's hold on an account it has not used lately; undefined when there is no such account. */
  private newHold(account: string): Held | undefined {
    this.start();
    if (!this.holds.hasAccount(account)) return undefined;
    const h: Held = { free: 0, inflight: 0, unflushed: 0, spent: 0, rate: 0, usedAt: Date.now() };
    this.held.set(account, h);
    return h;
  }

  /** First use: become an owner, and take back what dead predecessors held before competing with them. */
  private start(): void {
    if (this.registered) return;
    const now = Date.now();
    this.holds.register(this.owner, now);
    this.registered = true;
    this.lastBeat = now;
    this.sweep(now);
    this.timer = setInterval(() => this.tick(), this.o.flushMs);
    this.timer.unref();
  }

  private tick(): void {
    try {
      this.flush();
      if (!this.registered) return;
      const now = Date.now();
      this.serveWants(now);
      if (now - this.lastSweep >= 1000) this.sweep(now);
    } catch (err) {
      this.o.onError('quota tick failed', err);
    }
  }

  /** Once a second: spending rates for slice sizes, idle holds back to their accounts, dead owners reclaimed. */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [account, h] of this.held) {
      h.rate = h.spent;
      h.spent = 0;
      if (h.inflight === 0 && h.unflushed === 0 && now - h.usedAt > this.o.idleMs) {
        this.holds.release(this.owner, account, 'all', now);
        this.held.delete(account);
      }
    }
    if (this.holds.reclaimDead(this.owner, now - this.o.staleMs, now)) this.o.onError('reclaimed the quota holds of a gateway process that is gone');
  }

  /** Another process was refused for want of money this one holds: give back the unreserved part. */
  private serveWants(now: number): void {
    for (const account of this.holds.wanted(now - 2000)) {
      const h = this.held.get(account);
      if (h && h.free > 0) {
        this.holds.release(this.owner, account, h.free, now);
        h.free = 0;
      }
    }
  }

  /** Written through at once; a refusing level's account may have money in this process's own free slice: that goes back first. */
  private async reserveDurable(levels: Level[], amount: number, tags?: EntryTags): Promise<number> {
    for (let wait = 0; ;) {
      const refused = await this.inner.reserveLevels(levels, amount, 'durable', tags);
      if (refused < 0) return refused;
      const { account } = levels[refused];
      const h = this.held.get(account);
      if (h && h.free > 0) {
        this.holds.release(this.owner, account, h.free, Date.now());
        h.free = 0;
        continue;
      }
      if (!(await this.waitForOthers(account, wait++))) return refused;
    }
  }

  /** True after waiting one interval for other processes to release their slices; false when waiting cannot help. */
  private async waitForOthers(account: string, wait: number): Promise<boolean> {
    if (wait >= WAITS || this.holds.heldByOthers(account, this.owner) <= 0) {
      if (wait > 0) this.holds.unwant(account);
      return false;
    }
    this.holds.want(account, Date.now());
    await sleep(this.o.flushMs);
    return true;
  }

  /**
   * Our owner row was reclaimed while we lived (the process stalled longer than `staleMs`): our holds, in-flight
   * reservations included, went back to the accounts. Charges not yet written are taken from the accounts
   * directly, capped by what is there, and requests still open are charged the same way when they close.
   */
  private recover(now: number): void {
    this.o.onError('quota holds were reclaimed while this process was alive; charging its pending work from the accounts');
    this.late.push(...this.unwritten.drain());
    for (const o of this.open.values()) o.orphan = true;
    this.held.clear();
    this.holds.register(this.owner, now);
    this.chargeLate();
  }

  private chargeLate(): void {
    if (!this.late.length) return;
    try {
      this.holds.chargeLate(this.late);
      this.late = [];
    } catch (err) {
      this.o.onError('late quota charges not written; retrying', err);
    }
  }
}
