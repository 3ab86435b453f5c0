// Quota ledger in SQLite: each movement is one INSERT whose trigger moves the balance in the same statement.
import type { StateDb } from './sqlite-state.js';
import type { LedgerEntry, QuotaLedger } from './quota-ledger.js';
import { WriteBatch } from './write-batch.js';

const schema = `
  CREATE TABLE IF NOT EXISTS quota_accounts (id TEXT PRIMARY KEY, balance INTEGER NOT NULL, updated_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS quota_ledger (entry TEXT PRIMARY KEY, account TEXT NOT NULL, request TEXT NOT NULL,
    kind TEXT NOT NULL, amount INTEGER NOT NULL, at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS quota_ledger_account ON quota_ledger(account);`;

// Entries written against a process's hold (held_by set) record money that already left the account with the hold.
const trigger = `
  DROP TRIGGER IF EXISTS quota_ledger_apply;
  -- A reservation the balance cannot cover aborts the whole INSERT, so check and debit are one atomic step.
  CREATE TRIGGER quota_ledger_apply AFTER INSERT ON quota_ledger WHEN NEW.held_by IS NULL BEGIN
    SELECT RAISE(ABORT, 'quota_no_account') WHERE NOT EXISTS (SELECT 1 FROM quota_accounts WHERE id = NEW.account);
    SELECT RAISE(ABORT, 'quota_insufficient') WHERE NEW.kind = 'reserve'
      AND (SELECT balance FROM quota_accounts WHERE id = NEW.account) < NEW.amount;
    UPDATE quota_accounts SET balance = balance - NEW.amount, updated_at = NEW.at WHERE id = NEW.account;
  END;`;

/** Adds `held_by` to a ledger from an older version, in one transaction so no insert ever runs without the trigger. */
function migrate(db: StateDb): void {
  db.transaction(() => {
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('quota_ledger');
    if (!columns.includes('held_by')) db.exec('ALTER TABLE quota_ledger ADD COLUMN held_by TEXT');
    const current = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'quota_ledger_apply'").pluck().get() as string | undefined;
    if (!current?.includes('held_by')) db.exec(trigger);
  }).immediate();
}

export class SqliteQuotaLedger implements QuotaLedger {
  private readonly stmt;
  private readonly batch: WriteBatch;

  constructor(db: StateDb) {
    db.exec(schema);
    migrate(db);
    this.batch = new WriteBatch(db);
    this.stmt = {
      // ON CONFLICT DO NOTHING: a repeated entry inserts no row, so its trigger never runs twice.
      insert: db.prepare('INSERT INTO quota_ledger (entry, account, request, kind, amount, at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(entry) DO NOTHING'),
      account: db.prepare('INSERT INTO quota_accounts (id, balance, updated_at) VALUES (?, 0, ?) ON CONFLICT(id) DO NOTHING'),
      balance: db.prepare('SELECT balance FROM quota_accounts WHERE id = ?').pluck(),
      entries: db.prepare('SELECT entry, account, request, kind, amount, at FROM quota_ledger WHERE account = ? ORDER BY at, rowid'),
    };
  }

  async createAccount(account: string, initial: number): Promise<void> {
    this.stmt.account.run(account, Date.now());
    if (initial > 0) await this.topup(account, initial, `create:${account}`);
  }

  async balance(account: string): Promise<number | undefined> {
    return this.stmt.balance.get(account) as number | undefined;
  }

  async reserve(account: string, request: string, amount: number): Promise<boolean> {
    try {
      await this.insert(`${request}:reserve`, account, request, 'reserve', amount);
      return true;
    } catch (err) {
      if (/quota_insufficient|quota_no_account/.test((err as Error).message)) return false;
      throw err;
    }
  }

  async settle(account: string, request: string, reserved: number, actual: number): Promise<void> {
    await this.insert(`${request}:close`, account, request, 'settle', actual - reserved);
  }

  async refund(account: string, request: string, reserved: number): Promise<void> {
    await this.insert(`${request}:close`, account, request, 'refund', -reserved);
  }

  async topup(account: string, amount: number, ref: string): Promise<void> {
    await this.insert(`topup:${ref}`, account, ref, 'topup', -amount);
  }

  async entries(account: string): Promise<LedgerEntry[]> {
    return this.stmt.entries.all(account) as LedgerEntry[];
  }

  private insert(entry: string, account: string, request: string, kind: string, amount: number): Promise<unknown> {
    return this.batch.run(() => this.stmt.insert.run(entry, account, request, kind, Math.round(amount), Date.now()));
  }
}
