// The usage rollup in SQLite: one row per (account, period, model, route, channel) for hours and for days, added to
// in the same transaction as the ledger entries it sums. A report reads the daily rows of the whole days it spans
// and the hourly rows of its two ends.
import { isBudgetLevel } from './budget-level.js';
import type { StateDb } from './sqlite-state.js';
import { usageClasses } from './quota-ledger.js';
import { countNames, mergeDeltas, noUsage, spansOf, type RollupDelta, type UsageQuery, type UsageRow, type UsageTotals } from './usage.js';

const cells = (table: string, period: string) => `
  CREATE TABLE IF NOT EXISTS ${table} (
    account TEXT NOT NULL, ${period} INTEGER NOT NULL, model TEXT NOT NULL, route TEXT NOT NULL, channel TEXT NOT NULL,
    user TEXT NOT NULL, requests INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
    units INTEGER NOT NULL, charged INTEGER NOT NULL, uncharged INTEGER NOT NULL,
    PRIMARY KEY (account, ${period}, model, route, channel));
  CREATE INDEX IF NOT EXISTS ${table}_${period} ON ${table}(${period});
  CREATE INDEX IF NOT EXISTS ${table}_user ON ${table}(user, ${period});`;

const schema = `${cells('usage_hourly', 'hour')}${cells('usage_daily', 'day')}
  CREATE TABLE IF NOT EXISTS usage_accounts (account TEXT PRIMARY KEY, requests INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL, units INTEGER NOT NULL, charged INTEGER NOT NULL, uncharged INTEGER NOT NULL);`;

/** Adds the token-class columns of later versions (0 in the rows written before), in one transaction. */
function migrate(db: StateDb): void {
  db.transaction(() => {
    for (const table of ['usage_hourly', 'usage_daily', 'usage_accounts']) {
      const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table);
      for (const name of usageClasses) if (!columns.includes(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} INTEGER NOT NULL DEFAULT 0`);
    }
  }).immediate();
}

const totals = countNames.join(', ');
const sums = countNames.map((t) => `SUM(${t}) AS ${t}`).join(', ');
const addUp = countNames.map((t) => `${t} = ${t} + excluded.${t}`).join(', ');
const upsert = (table: string, period: string) => `INSERT INTO ${table} (account, ${period}, model, route, channel, user, ${totals})
  VALUES (${'?, '.repeat(5 + countNames.length)}?)
  ON CONFLICT(account, ${period}, model, route, channel) DO UPDATE SET ${addUp}`;
const counts = (d: RollupDelta) => countNames.map((n) => d[n]);
const cellArgs = (d: RollupDelta, period: number) => [d.account, period, d.model, d.route, d.channel, d.user, ...counts(d)];

/** The report key of a row of either table (`seconds`: the length of its period). */
const keyOf = (by: UsageQuery['groupBy'], period: string, seconds: number): string =>
  by === 'day' ? `strftime('%Y-%m-%d', ${period} * ${seconds}, 'unixepoch')` : by === 'token' ? 'account' : by;

export class SqliteUsage {
  private readonly addHour;
  private readonly addDay;
  private readonly addTotal;
  private readonly total;
  private readonly dropHours;
  private readonly dropDays;

  constructor(private readonly db: StateDb) {
    db.exec(schema);
    migrate(db);
    this.addHour = db.prepare(upsert('usage_hourly', 'hour'));
    this.addDay = db.prepare(upsert('usage_daily', 'day'));
    this.addTotal = db.prepare(`INSERT INTO usage_accounts (account, ${totals}) VALUES (${'?, '.repeat(countNames.length)}?)
      ON CONFLICT(account) DO UPDATE SET ${addUp}`);
    this.total = db.prepare(`SELECT ${totals} FROM usage_accounts WHERE account = ?`);
    // By the period's index, a chunk at a time: each DELETE is short, so writers wait at most that long.
    this.dropHours = db.prepare('DELETE FROM usage_hourly WHERE rowid IN (SELECT rowid FROM usage_hourly WHERE hour < ? LIMIT ?)');
    this.dropDays = db.prepare('DELETE FROM usage_daily WHERE rowid IN (SELECT rowid FROM usage_daily WHERE day < ? LIMIT ?)');
  }

  /** Deletes up to `limit` hourly and `limit` daily cells of the periods before `firstHour` (and its day); `done` when none is left. */
  prune(firstHour: number, limit: number): { deleted: number; done: boolean } {
    const hours = this.dropHours.run(firstHour, limit).changes;
    const days = this.dropDays.run(Math.floor(firstHour / 24), limit).changes;
    return { deleted: hours + days, done: hours < limit && days < limit };
  }

  /** Call inside the transaction that writes the entries these deltas sum. */
  /** Adds what closed requests used; budget levels' closes (no delta, or a `~` account) add nothing. */
  apply(given: (RollupDelta | undefined)[]): void {
    const deltas = given.filter((d): d is RollupDelta => d !== undefined && !isBudgetLevel(d.account));
    if (!deltas.length) return;
    for (const d of deltas) {
      this.addHour.run(cellArgs(d, d.hour));
      this.addTotal.run(d.account, ...counts(d));
    }
    // Cells of one day: the deltas merged again with the day as their period (hour / 24).
    for (const d of mergeDeltas(deltas.map((x) => ({ ...x, hour: Math.floor(x.hour / 24) })))) this.addDay.run(cellArgs(d, d.hour));
  }

  /** An account's totals since it was created. */
  totals(account: string): UsageTotals {
    return (this.total.get(account) as UsageTotals | undefined) ?? noUsage();
  }

  query(q: UsageQuery): UsageRow[] {
    if (q.accounts && !q.accounts.length) return [];
    const { days, hours } = spansOf(q);
    const parts: string[] = [];
    const args: unknown[] = [];
    const part = (table: string, period: string, seconds: number, spans: [number, number][]) => {
      if (!spans.length) return;
      const where = [`(${spans.map(() => `${period} BETWEEN ? AND ?`).join(' OR ')})`];
      args.push(...spans.flat());
      if (q.accounts) { where.push(`account IN (${q.accounts.map(() => '?').join(',')})`); args.push(...q.accounts); }
      if (q.user !== undefined) { where.push('user = ?'); args.push(q.user); }
      const sub = q.thenBy ? `, ${keyOf(q.thenBy, period, seconds)} AS sub` : '';
      parts.push(`SELECT ${keyOf(q.groupBy, period, seconds)} AS key${sub}, ${totals} FROM ${table} WHERE ${where.join(' AND ')}`);
    };
    part('usage_daily', 'day', 86_400, days ? [days] : []);
    part('usage_hourly', 'hour', 3_600, hours);
    const keys = q.thenBy ? 'key, sub' : 'key';
    return this.db.prepare(`SELECT ${keys}, ${sums} FROM (${parts.join(' UNION ALL ')}) GROUP BY ${keys} ORDER BY ${keys}`).all(...args) as UsageRow[];
  }
}
