// Quota holds in SQLite: money a gateway process moved out of an account to spend from memory (see held-quota.ts).
// Every statement here is one short transaction; the money is always in exactly one place: the account or a hold.
import { hostname } from 'node:os';
import type { StateDb } from './sqlite-state.js';
import type { LedgerEntry } from './quota-ledger.js';
import { entryArgs, insertEntry, insertHeldClose, insertSpend } from './sqlite-ledger-rows.js';
import type { SqliteUsage } from './sqlite-usage.js';
import { rollupOf, type RollupDelta } from './usage.js';
import { addToRollup, closeArgs } from './held-rows.js';
import { spendArgs, type Batch } from './held-batch.js';
import type { HoldBackend } from './hold-backend.js';
import { ownersSchema } from './sqlite-instances.js';
import { pidAlive } from './pid-alive.js';

const schema = `${ownersSchema}
  CREATE TABLE IF NOT EXISTS quota_holds (owner TEXT NOT NULL, account TEXT NOT NULL, amount INTEGER NOT NULL, PRIMARY KEY (owner, account));
  CREATE INDEX IF NOT EXISTS quota_holds_account ON quota_holds(account);
  CREATE TABLE IF NOT EXISTS quota_wants (account TEXT PRIMARY KEY, at INTEGER NOT NULL);`;

export class SqliteHolds implements HoldBackend {
  private readonly s;
  private readonly tx;
  private readonly host = hostname();

  /** `rollup`: the ledger's usage rollup, written in the same transaction as the entries it sums. */
  constructor(db: StateDb, private readonly rollup: SqliteUsage) {
    db.exec(schema);
    this.s = {
      register: db.prepare('INSERT INTO quota_owners (owner, host, pid, beat_at) VALUES (?, ?, ?, ?) ON CONFLICT(owner) DO UPDATE SET beat_at = excluded.beat_at'),
      beat: db.prepare('UPDATE quota_owners SET beat_at = ? WHERE owner = ?'),
      owners: db.prepare('SELECT owner, host, pid, beat_at FROM quota_owners WHERE owner != ?'),
      balance: db.prepare('SELECT balance FROM quota_accounts WHERE id = ?').pluck(),
      debit: db.prepare('UPDATE quota_accounts SET balance = balance - ?, updated_at = ? WHERE id = ?'),
      credit: db.prepare('UPDATE quota_accounts SET balance = balance + ?, updated_at = ? WHERE id = ?'),
      addHold: db.prepare('INSERT INTO quota_holds (owner, account, amount) VALUES (?, ?, ?) ON CONFLICT(owner, account) DO UPDATE SET amount = amount + excluded.amount'),
      spendHold: db.prepare('UPDATE quota_holds SET amount = amount - ? WHERE owner = ? AND account = ?'),
      holdsOf: db.prepare('SELECT account, amount FROM quota_holds WHERE owner = ?'),
      holdOf: db.prepare('SELECT amount FROM quota_holds WHERE owner = ? AND account = ?').pluck(),
      dropHold: db.prepare('DELETE FROM quota_holds WHERE owner = ? AND account = ?'),
      dropOwner: db.prepare('DELETE FROM quota_owners WHERE owner = ?'),
      heldTotal: db.prepare('SELECT COALESCE(SUM(amount), 0) FROM quota_holds WHERE account = ?').pluck(),
      heldByOthers: db.prepare('SELECT COALESCE(SUM(amount), 0) FROM quota_holds WHERE account = ? AND owner != ?').pluck(),
      insert: db.prepare(insertEntry),
      insertClose: db.prepare(insertHeldClose),
      insertSpend: db.prepare(insertSpend),
      want: db.prepare('INSERT INTO quota_wants (account, at) VALUES (?, ?) ON CONFLICT(account) DO UPDATE SET at = excluded.at'),
      unwant: db.prepare('DELETE FROM quota_wants WHERE account = ?'),
      wanted: db.prepare('SELECT account FROM quota_wants WHERE at >= ?').pluck(),
      dropStaleWants: db.prepare('DELETE FROM quota_wants WHERE at < ?'),
    };
    this.tx = {
      grab: db.transaction((owner: string, account: string, need: number, want: number, now: number): number | undefined => {
        const balance = this.s.balance.get(account) as number | undefined;
        if (balance === undefined) return undefined;
        if (balance < need) return 0;
        // Never more than half of what would remain: other processes may need a slice of the rest.
        const take = need + Math.max(0, Math.min(want - need, Math.floor((balance - need) / 2)));
        this.s.debit.run(take, now, account);
        this.s.addHold.run(owner, account, take);
        return take;
      }),
      release: db.transaction((owner: string, account: string, amount: number | 'all', now: number) => this.releaseIn(owner, account, amount, now)),
      commit: db.transaction((owner: string, b: Batch, now: number): boolean => {
        if (!this.s.beat.run(now, owner).changes) return false; // reclaimed by another process: write nothing
        const cells = new Map<string, RollupDelta>();
        // Only what this write adds leaves the holds: a row written before (a close is keyed by its request, a spend by
        // its batch) was taken off then, and its usage counted.
        const spent = new Map<string, number>();
        const take = (account: string, amount: number) => spent.set(account, (spent.get(account) ?? 0) + amount);
        for (const c of b.closed) {
          if (this.s.insertClose.run(closeArgs(c, owner)).changes > 0) { addToRollup(cells, c); take(c.account, c.charged); }
        }
        for (const [account, s] of b.spends) if (this.s.insertSpend.run(spendArgs(b.key, account, s, owner)).changes > 0) take(account, s.charged);
        this.rollup.apply([...cells.values()]);
        // An upsert: an unchecked level may charge a hold it never took a slice into, which then holds less than nothing.
        for (const [account, amount] of spent) this.s.addHold.run(owner, account, -amount);
        return true;
      }),
      reclaim: db.transaction((owner: string, now: number) => {
        for (const h of this.s.holdsOf.all(owner) as { account: string }[]) this.releaseIn(owner, h.account, 'all', now);
        this.s.dropOwner.run(owner);
      }),
      late: db.transaction((rows: LedgerEntry[]) => {
        // A charge that outlived its hold (see HeldQuota.recover) takes only what the account still has.
        for (const r of rows) {
          const balance = (this.s.balance.get(r.account) as number | undefined) ?? 0;
          const amount = Math.max(0, Math.min(r.amount, balance));
          const row = { ...r, kind: 'late_charge', amount, uncharged: 0 };
          // The ledger trigger debits it.
          if (this.s.insert.run(entryArgs(row, null)).changes) this.rollup.apply([rollupOf(row, amount)]);
        }
      }),
    };
  }

  register(owner: string, now: number): void { this.s.register.run(owner, this.host, process.pid, now); }

  grab(owner: string, account: string, need: number, want: number, now: number): number | undefined {
    return this.tx.grab.immediate(owner, account, need, want, now);
  }

  release(owner: string, account: string, amount: number | 'all', now: number): void { this.tx.release.immediate(owner, account, amount, now); }

  commit(owner: string, batch: Batch, now: number): boolean {
    return this.tx.commit.immediate(owner, batch, now);
  }

  chargeLate(rows: LedgerEntry[]): void { this.tx.late.immediate(rows); }

  beat(owner: string, now: number): boolean { return this.s.beat.run(now, owner).changes > 0; }

  /** Returns the holds of owners that stopped beating, or whose process on this host is gone, to their accounts. */
  reclaimDead(self: string, staleBefore: number, now: number): number {
    let n = 0;
    for (const o of this.s.owners.all(self) as { owner: string; host: string; pid: number; beat_at: number }[]) {
      if (o.beat_at < staleBefore || (o.host === this.host && !pidAlive(o.pid))) { this.tx.reclaim.immediate(o.owner, now); n++; }
    }
    return n;
  }

  retire(owner: string, now: number): void { this.tx.reclaim.immediate(owner, now); }

  hasAccount(account: string): boolean { return this.s.balance.get(account) !== undefined; }

  heldTotal(account: string): number { return this.s.heldTotal.get(account) as number; }
  heldByOthers(account: string, owner: string): number { return this.s.heldByOthers.get(account, owner) as number; }

  want(account: string, now: number): void { this.s.want.run(account, now); }
  unwant(account: string): void { this.s.unwant.run(account); }
  wanted(since: number): string[] {
    this.s.dropStaleWants.run(since);
    return this.s.wanted.all(since) as string[];
  }

  /** A hold below 0 (an unchecked level's debt) credits a negative amount: the account pays what was spent. */
  private releaseIn(owner: string, account: string, amount: number | 'all', now: number): void {
    const held = this.s.holdOf.get(owner, account) as number | undefined;
    if (held === undefined) return;
    const give = amount === 'all' ? held : Math.min(amount, held);
    this.s.credit.run(give, now, account);
    if (amount === 'all' || give === held) this.s.dropHold.run(owner, account);
    else this.s.spendHold.run(give, owner, account);
  }
}
