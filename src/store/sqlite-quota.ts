// Quota ledger in SQLite: each movement is one INSERT whose trigger moves the balance in the same statement.
// Open reservations are also kept in `quota_open` with the process that holds them, so a sweep can refund the
// reservations of a process that died (see recovery.ts) and a settle never trusts its caller for the amount.
import type { StateDb } from './sqlite-state.js';
import { clampCharge, closeTags, defaultRetention, tagsOf, type CloseTags, type EntryTags, type Level, type LedgerEntry, type OpenReservation, type Pruned, type QuotaLedger, type ReserveScope, type Retention, type Settled } from './quota-ledger.js';
import { WriteBatch } from './write-batch.js';
import { SqliteUsage } from './sqlite-usage.js';
import { closeKinds, hourMs, hourOf, rollupOf, type UsageQuery, type UsageRow, type UsageTotals } from './usage.js';
import { entriesOf, entryArgs, insertEntry, insertUnchecked, laterColumns, ledgerEntries } from './sqlite-ledger-rows.js';

const schema = `
  CREATE TABLE IF NOT EXISTS quota_accounts (id TEXT PRIMARY KEY, balance INTEGER NOT NULL, updated_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS quota_ledger (entry TEXT PRIMARY KEY, account TEXT NOT NULL, request TEXT NOT NULL,
    kind TEXT NOT NULL, amount INTEGER NOT NULL, at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS quota_ledger_account ON quota_ledger(account);
  CREATE TABLE IF NOT EXISTS quota_open (request TEXT PRIMARY KEY, account TEXT NOT NULL, amount INTEGER NOT NULL,
    owner TEXT NOT NULL, scope TEXT NOT NULL, at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS quota_open_owner ON quota_open(owner);`;

// Entries written against a process's hold (held_by set) record money that already left the account with the hold.
const trigger = `
  DROP TRIGGER IF EXISTS quota_ledger_apply;
  -- A reservation the balance cannot cover aborts the whole INSERT, so check and debit are one atomic step.
  CREATE TRIGGER quota_ledger_apply AFTER INSERT ON quota_ledger WHEN NEW.held_by IS NULL BEGIN
    SELECT RAISE(ABORT, 'quota_no_account') WHERE NOT EXISTS (SELECT 1 FROM quota_accounts WHERE id = NEW.account);
    SELECT RAISE(ABORT, 'quota_insufficient') WHERE NEW.kind = 'reserve' AND NEW.unchecked IS NULL
      AND (SELECT balance FROM quota_accounts WHERE id = NEW.account) < NEW.amount;
    UPDATE quota_accounts SET balance = balance - NEW.amount, updated_at = NEW.at WHERE id = NEW.account;
  END;`;

/** Adds the columns of later versions, in one transaction so no insert ever runs without the trigger. */
function migrate(db: StateDb): void {
  db.transaction(() => {
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('quota_ledger');
    if (!columns.includes('held_by')) db.exec('ALTER TABLE quota_ledger ADD COLUMN held_by TEXT');
    if (!columns.includes('unchecked')) db.exec('ALTER TABLE quota_ledger ADD COLUMN unchecked INTEGER');
    if (!columns.includes('uncharged')) db.exec('ALTER TABLE quota_ledger ADD COLUMN uncharged INTEGER NOT NULL DEFAULT 0');
    for (const [name, type] of laterColumns) if (!columns.includes(name)) db.exec(`ALTER TABLE quota_ledger ADD COLUMN ${name} ${type}`);
    const open = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('quota_open');
    for (const [name, type] of [['user', 'TEXT'], ['model', 'TEXT'], ['route', 'TEXT'], ['units', 'INTEGER']]) if (!open.includes(name)) db.exec(`ALTER TABLE quota_open ADD COLUMN ${name} ${type}`);
    const current = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'quota_ledger_apply'").pluck().get() as string | undefined;
    if (!current?.includes('unchecked')) db.exec(trigger);
  }).immediate();
}

const openColumns = 'request, account, amount, owner, scope, at, user, model, route, units';
/** Rows a prune transaction deletes at most (per table), and transactions per prune call. */
const pruneChunk = 2_000;
const pruneChunks = 50;
const dayMs = 24 * hourMs;

/** Thrown inside the reservation's savepoint so it rolls back; carries the level that refused. */
class Refused extends Error {
  constructor(readonly level: number) { super('quota_insufficient'); }
}

/** What a close makes of the amount reserved: its kind and the charge. */
type Outcome = (amount: number) => { kind: string } & Settled;
type Scanned = { id: number; request: string; kind: string; at: number };

export class SqliteQuotaLedger implements QuotaLedger {
  private readonly stmt;
  private readonly batch: WriteBatch;
  private readonly pruneStep;
  private readonly reserveAll;
  private readonly closeAll;
  /** Where prune stopped in the ledger (rowid): every row before it is one prune keeps (a topup, an open reservation). */
  private prunedTo = 0;
  /** The usage rollup, written with the close entries (here and by the holds' flushes). */
  readonly rollup: SqliteUsage;

  /** `owner`: this process's id (Store.instance), recorded on every reservation it opens. `keep`: what prune keeps. */
  constructor(db: StateDb, private readonly owner = '', private readonly keep: Retention = defaultRetention) {
    db.exec(schema);
    migrate(db);
    this.rollup = new SqliteUsage(db);
    this.batch = new WriteBatch(db);
    this.stmt = {
      // ON CONFLICT DO NOTHING: a repeated entry inserts no row, so its trigger never runs twice.
      insert: db.prepare(insertEntry),
      insertUnchecked: db.prepare(insertUnchecked),
      open: db.prepare(`INSERT INTO quota_open (${openColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(request) DO NOTHING`),
      openOne: db.prepare(`SELECT ${openColumns} FROM quota_open WHERE request = ?`),
      openOf: db.prepare(`SELECT ${openColumns} FROM quota_open WHERE owner = ? ORDER BY at`),
      owners: db.prepare('SELECT DISTINCT owner FROM quota_open').pluck(),
      unopen: db.prepare('DELETE FROM quota_open WHERE request = ?'),
      closed: db.prepare('SELECT amount, uncharged FROM quota_ledger WHERE entry = ?'),
      reservedIn: db.prepare('SELECT account, user, model, route, units FROM quota_ledger WHERE entry = ?'),
      account: db.prepare('INSERT INTO quota_accounts (id, balance, updated_at) VALUES (?, 0, ?) ON CONFLICT(id) DO NOTHING'),
      balance: db.prepare('SELECT balance FROM quota_accounts WHERE id = ?').pluck(),
      entries: db.prepare(entriesOf),
      // Rowid order is the order written, and the table's own: no index on `at` for every insert to maintain.
      scan: db.prepare(`SELECT rowid AS id, request, kind, at FROM quota_ledger WHERE rowid > ? ORDER BY rowid LIMIT ${pruneChunk}`),
      dropRow: db.prepare('DELETE FROM quota_ledger WHERE rowid = ?'),
      dropEntry: db.prepare('DELETE FROM quota_ledger WHERE entry = ?'),
    };
    this.pruneStep = db.transaction((closedBefore: number) => this.pruneLedger(closedBefore));
    // A savepoint too: a level that fails takes back the closes written before it, as one script does on Redis.
    this.closeAll = db.transaction((levels: readonly Level[], reserved: number, outcome: Outcome, tags?: CloseTags) =>
      levels.map((l) => this.closeRequest(l.request, reserved, outcome, tags)));
    // A savepoint inside the batch's transaction: a level that refuses takes back the levels written before it.
    this.reserveAll = db.transaction((levels: Level[], amount: number, scope: ReserveScope, t: EntryTags) => {
      for (let i = 0; i < levels.length; i++) {
        try {
          this.reserveOne(levels[i], amount, scope, t);
        } catch (err) {
          if (/quota_insufficient|quota_no_account/.test((err as Error).message)) throw new Refused(i);
          throw err;
        }
      }
    });
  }

  async createAccount(account: string, initial: number): Promise<void> {
    this.stmt.account.run(account, Date.now());
    if (initial > 0) await this.topup(account, initial, `create:${account}`);
  }

  async balance(account: string): Promise<number | undefined> {
    return this.stmt.balance.get(account) as number | undefined;
  }

  async reserve(account: string, request: string, amount: number, scope: ReserveScope = 'durable', tags?: EntryTags): Promise<boolean> {
    return (await this.reserveLevels([{ account, request }], amount, scope, tags)) < 0;
  }

  async reserveLevels(levels: Level[], amount: number, scope: ReserveScope = 'durable', tags?: EntryTags): Promise<number> {
    const t = tagsOf({ user: tags?.user, model: tags?.model, route: tags?.route, units: tags?.units });
    try {
      await this.batch.run(() => this.reserveAll(levels, Math.round(amount), scope, t));
      return -1;
    } catch (err) {
      if (err instanceof Refused) return err.level;
      throw err;
    }
  }

  /** One level's reserve entry and open reservation; a repeated request writes neither. */
  private reserveOne(l: Level, amount: number, scope: ReserveScope, t: EntryTags): void {
    const at = Date.now();
    const args = entryArgs({ ...t, entry: `${l.request}:reserve`, account: l.account, request: l.request, kind: 'reserve', amount, at }, null);
    if ((l.unchecked ? this.stmt.insertUnchecked : this.stmt.insert).run(args).changes) {
      this.stmt.open.run(l.request, l.account, amount, this.owner, scope, at, t.user ?? null, t.model ?? null, t.route ?? null, t.units ?? null);
    }
  }

  async settle(account: string, request: string, reserved: number, actual: number, tags?: CloseTags): Promise<Settled> {
    return this.settleLevels([{ account, request }], reserved, actual, tags);
  }

  async refund(account: string, request: string, reserved: number, tags?: CloseTags): Promise<void> {
    await this.refundLevels([{ account, request }], reserved, tags);
  }

  async settleLevels(levels: readonly Level[], reserved: number, actual: number, tags?: CloseTags): Promise<Settled> {
    const all = await this.batch.run(() => this.closeAll(levels, reserved, (amount: number) => ({ kind: 'settle', ...clampCharge(amount, actual) }), tags));
    return all[0] ?? { charged: 0, uncharged: 0 };
  }

  async refundLevels(levels: readonly Level[], reserved: number, tags?: CloseTags): Promise<void> {
    await this.batch.run(() => this.closeAll(levels, reserved, () => ({ kind: 'refund', charged: 0, uncharged: 0 }), tags));
  }

  async topup(account: string, amount: number, ref: string, tags?: EntryTags): Promise<boolean> {
    const r = await this.batch.run(() => this.stmt.insert.run(entryArgs({ ...tags, entry: `topup:${ref}`, account, request: ref, kind: 'topup', amount: -Math.round(amount), at: Date.now() }, null)));
    return r.changes > 0;
  }

  async usage(q: UsageQuery): Promise<UsageRow[]> {
    return this.rollup.query(q);
  }

  async totals(account: string): Promise<UsageTotals> {
    return this.rollup.totals(account);
  }

  async entries(account: string): Promise<LedgerEntry[]> {
    return ledgerEntries(this.stmt.entries.all(account, account) as Parameters<typeof ledgerEntries>[0]);
  }

  async openOwners(): Promise<string[]> {
    return this.stmt.owners.all() as string[];
  }

  /**
   * Deletes the rows of requests closed before ledgerDays (the close, and the reservation's row when it was written
   * through), the budget levels' spends written before then, and the usage cells past usageDays, in transactions of pruneChunk rows each, so a writer waits for one at
   * most, yielding to the event loop between them; pruneChunks at most per call, then `more`. Open reservations,
   * topups, holds and the all-time totals stay.
   */
  async prune(now: number): Promise<Pruned> {
    const closedBefore = now - this.keep.ledgerDays * dayMs;
    const firstHour = hourOf(now - this.keep.usageDays * dayMs);
    const out: Pruned = { entries: 0, cells: 0, more: true };
    let ledgerDone = false;
    let cellsDone = false;
    for (let i = 0; i < pruneChunks && out.more; i++) {
      if (i > 0) await new Promise((r) => setImmediate(r));
      if (!ledgerDone) {
        const r = this.pruneStep.immediate(closedBefore);
        this.prunedTo = r.last; // after the commit: a failed step leaves the cursor where its rows still are
        out.entries += r.deleted;
        ledgerDone = r.done;
      }
      if (!cellsDone) {
        const r = this.rollup.prune(firstHour, pruneChunk);
        out.cells += r.deleted;
        cellsDone = r.done;
      }
      out.more = !(ledgerDone && cellsDone);
    }
    return out;
  }

  /**
   * One chunk from the cursor on, in the order written: each close older than `closedBefore` goes with its
   * reservation's row. It stops at the first row written at or after that time: rows are written in time order, give
   * or take a flush interval, so a straggler behind it goes at a later call.
   */
  private pruneLedger(closedBefore: number): { deleted: number; done: boolean; last: number } {
    const rows = this.stmt.scan.all(this.prunedTo) as Scanned[];
    let deleted = 0;
    let last = this.prunedTo;
    for (const r of rows) {
      if (r.at >= closedBefore) return { deleted, done: true, last };
      if (r.kind === 'spend') deleted += this.stmt.dropRow.run(r.id).changes; // a budget level's closes of one flush, summed
      else if (closeKinds.has(r.kind)) deleted += this.stmt.dropRow.run(r.id).changes + this.stmt.dropEntry.run(`${r.request}:reserve`).changes;
      last = r.id;
    }
    return { deleted, done: rows.length < pruneChunk, last };
  }

  async openOf(owner: string): Promise<OpenReservation[]> {
    return this.stmt.openOf.all(owner) as OpenReservation[];
  }

  async reservationOf(request: string): Promise<OpenReservation | undefined> {
    return this.stmt.openOne.get(request) as OpenReservation | undefined;
  }

  /**
   * Closes a request against the amount its open reservation holds (the caller's `reserved` only when an older
   * version left no open row). A request closed before answers what that close charged: nothing moves twice.
   */
  private closeRequest(request: string, reserved: number, outcome: Outcome, tags?: CloseTags): Settled {
    const open = this.stmt.openOne.get(request) as OpenReservation | undefined;
    const prior = this.stmt.closed.get(`${request}:close`) as { amount: number; uncharged: number } | undefined;
    const amount = open?.amount ?? Math.round(reserved);
    if (prior) return { charged: amount + prior.amount, uncharged: prior.uncharged };
    const reservedBy = open ?? (this.stmt.reservedIn.get(`${request}:reserve`) as OpenReservation | undefined);
    if (reservedBy === undefined) return { charged: 0, uncharged: 0 }; // never reserved: nothing to close
    const o = outcome(amount);
    const entry: LedgerEntry = {
      ...closeTags(reservedBy, tags, o.charged), entry: `${request}:close`, account: reservedBy.account, request, kind: o.kind,
      amount: o.charged - amount, at: Date.now(), uncharged: o.uncharged,
    };
    this.stmt.insert.run(entryArgs(entry, null));
    this.rollup.apply([rollupOf(entry, o.charged)]);
    this.stmt.unopen.run(request);
    return { charged: o.charged, uncharged: o.uncharged };
  }
}

