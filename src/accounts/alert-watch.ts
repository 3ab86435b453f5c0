// Feeds budget alerts from settles without reading anything on a request's path: a settle marks the budgeted levels it
// moved, and once a second the marked accounts' balances are read (one read each, however many requests moved them)
// and handed to BudgetAlerts as budget and use. A threshold is seen at most a second late, and still raised once.
import type { Level } from '../store/quota-ledger.js';
import type { Store } from '../store/store.js';
import type { BudgetAlerts, BudgetLevel } from './budget-alerts.js';
import type { LevelName } from './purse.js';

const levelOf: Partial<Record<LevelName['kind'], BudgetLevel>> = { token: 'token', token_period: 'token', member: 'member', team: 'team' };
/** Accounts waiting for their next read; past this, the oldest marks are read at the next tick anyway. */
const maxMarked = 50_000;

export class AlertWatch {
  private marked = new Map<string, LevelName>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly store: Store, private readonly alerts: BudgetAlerts, private readonly everyMs = 1000) {}

  /** After a settle: the levels with a budget are read at the next tick. */
  note(levels: readonly Level[], names: readonly LevelName[] | undefined): void {
    if (!names) return;
    for (let i = 0; i < levels.length; i++) {
      const n = names[i];
      if (n?.budget !== undefined && levelOf[n.kind] && this.marked.size < maxMarked) this.marked.set(levels[i].account, n);
    }
  }

  start(): void {
    this.alerts.start();
    this.timer = setInterval(() => { this.running ??= this.tick().finally(() => { this.running = undefined; }); }, this.everyMs);
    this.timer.unref();
  }

  async stop(waitMs = 1000): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.alerts.stop(waitMs);
  }

  private async tick(): Promise<void> {
    const batch = this.marked;
    this.marked = new Map();
    for (const [account, n] of batch) {
      const balance = await this.store.quota.balance(account).catch(() => undefined);
      if (balance === undefined) continue;
      this.alerts.observe({
        level: levelOf[n.kind]!, subject: n.subject ?? account, account, period: n.key, resetsAt: n.resetsAt === undefined ? undefined : new Date(n.resetsAt).toISOString(),
        budget: n.budget!, used: n.budget! - balance,
      });
    }
  }
}
