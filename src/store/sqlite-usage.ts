// The usage rollup in SQLite: one row per (account, hour, model, route, channel), added to in the same transaction
// as the ledger entries it sums. A report over a million entries reads a few hundred rows.
import type { StateDb } from './sqlite-state.js';
import { hoursOf, type RollupDelta, type UsageQuery, type UsageRow, type UsageTotals } from './usage.js';

const schema = `
  CREATE TABLE IF NOT EXISTS usage_hourly (
    account TEXT NOT NULL, hour INTEGER NOT NULL, model TEXT NOT NULL, route TEXT NOT NULL, channel TEXT NOT NULL,
    user TEXT NOT NULL, requests INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
    units INTEGER NOT NULL, charged INTEGER NOT NULL, uncharged INTEGER NOT NULL,
    PRIMARY KEY (account, hour, model, route, channel));
  CREATE INDEX IF NOT EXISTS usage_hourly_hour ON usage_hourly(hour);
  CREATE INDEX IF NOT EXISTS usage_hourly_user ON usage_hourly(user, hour);
  CREATE TABLE IF NOT EXISTS usage_accounts (account TEXT PRIMARY KEY, requests INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL, units INTEGER NOT NULL, charged INTEGER NOT NULL, uncharged INTEGER NOT NULL);`;

const sums = 'SUM(requests) AS requests, SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens, SUM(units) AS units, SUM(charged) AS charged, SUM(uncharged) AS uncharged';

const keys: Record<UsageQuery['groupBy'], string> = {
  model: 'model', route: 'route', channel: 'channel', token: 'account', user: 'user',
  day: "strftime('%Y-%m-%d', hour * 3600, 'unixepoch')",
};

export class SqliteUsage {
  private readonly add;
  private readonly addTotal;
  private readonly total;

  constructor(private readonly db: StateDb) {
    db.exec(schema);
    this.add = db.prepare(`INSERT INTO usage_hourly (account, hour, model, route, channel, user, requests, prompt_tokens, completion_tokens, units, charged, uncharged)
      VALUES (@account, @hour, @model, @route, @channel, @user, @requests, @prompt_tokens, @completion_tokens, @units, @charged, @uncharged)
      ON CONFLICT(account, hour, model, route, channel) DO UPDATE SET requests = requests + excluded.requests,
        prompt_tokens = prompt_tokens + excluded.prompt_tokens, completion_tokens = completion_tokens + excluded.completion_tokens,
        units = units + excluded.units, charged = charged + excluded.charged, uncharged = uncharged + excluded.uncharged`);
    this.addTotal = db.prepare(`INSERT INTO usage_accounts (account, requests, prompt_tokens, completion_tokens, units, charged, uncharged)
      VALUES (@account, @requests, @prompt_tokens, @completion_tokens, @units, @charged, @uncharged)
      ON CONFLICT(account) DO UPDATE SET requests = requests + excluded.requests, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens, units = units + excluded.units,
        charged = charged + excluded.charged, uncharged = uncharged + excluded.uncharged`);
    this.total = db.prepare('SELECT requests, prompt_tokens, completion_tokens, units, charged, uncharged FROM usage_accounts WHERE account = ?');
  }

  /** An account's totals since it was created. */
  totals(account: string): UsageTotals {
    return (this.total.get(account) as UsageTotals | undefined) ?? { requests: 0, prompt_tokens: 0, completion_tokens: 0, units: 0, charged: 0, uncharged: 0 };
  }

  /** Call inside the transaction that writes the entries these deltas sum. */
  apply(deltas: RollupDelta[]): void {
    for (const d of deltas) {
      this.add.run(d);
      const { account, requests, prompt_tokens, completion_tokens, units, charged, uncharged } = d;
      this.addTotal.run({ account, requests, prompt_tokens, completion_tokens, units, charged, uncharged });
    }
  }

  query(q: UsageQuery): UsageRow[] {
    const [first, last] = hoursOf(q);
    const where = ['hour BETWEEN ? AND ?'];
    const args: unknown[] = [first, last];
    if (q.accounts) {
      if (!q.accounts.length) return [];
      where.push(`account IN (${q.accounts.map(() => '?').join(',')})`);
      args.push(...q.accounts);
    }
    if (q.user !== undefined) { where.push('user = ?'); args.push(q.user); }
    const key = keys[q.groupBy];
    // Statements are few (grouping × filters) and cached by better-sqlite3's caller: prepare is cheap next to the scan.
    return this.db.prepare(`SELECT ${key} AS key, ${sums} FROM usage_hourly WHERE ${where.join(' AND ')} GROUP BY 1 ORDER BY 1`).all(...args) as UsageRow[];
  }
}
