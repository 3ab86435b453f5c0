// Budget alerts (issue 39): when a level's spending reaches a threshold of its budget (default 50 %, 80 %, 100 %),
// exactly one event per threshold, period and account across every instance sharing the store: one log line, and a
// signed webhook delivered in the background. The settle stage calls observe() after each settle; it returns at once,
// and when no threshold was crossed it costs a map read and a multiplication.
import type { Logger } from 'pino';
import type { Store } from '../store/store.js';
import { AlertDelivery, type WebhookSettings } from './alert-delivery.js';
import { alertEvent, newEventId, type AlertEvent, type BudgetReading } from './alert-event.js';
import { claimAlert } from './alert-claims.js';
import { alertThresholds, reached, reachedUpTo } from './alert-thresholds.js';

export type { BudgetReading, BudgetLevel, AlertEvent } from './alert-event.js';
export type { WebhookSettings } from './alert-delivery.js';

export interface AlertSettings {
  /** Percentages of the budget (default 50, 80, 100). */
  thresholds?: number[];
  /** Without one, alerts are log lines only. */
  webhook?: WebhookSettings;
}

export interface AlertDeps {
  store: Store;
  log: Logger;
  settings: AlertSettings;
  /** Leases the webhook jobs this process delivers (default the store's instance id). */
  instance?: string;
}

/** (account, period) pairs remembered; past this the oldest is forgotten, which costs one lost claim race later. */
const remembered = 10_000;

export class BudgetAlerts {
  private readonly thresholds: number[];
  /** Per account and period: the index of the first threshold this process has neither raised nor seen raised. */
  private readonly next = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();
  private readonly delivery?: AlertDelivery;

  constructor(private readonly deps: AlertDeps) {
    this.thresholds = alertThresholds(deps.settings.thresholds);
    const hook = deps.settings.webhook;
    if (hook) {
      new URL(hook.url); // a bad URL fails the start, not every delivery
      if (!hook.secret) throw new Error('a budget alert webhook needs a secret to sign its bodies with');
      this.delivery = new AlertDelivery(deps.store, deps.log, hook, deps.instance ?? deps.store.instance);
    }
  }

  /** Raises the thresholds this reading has reached that no instance has raised yet, in the background. Never throws. */
  observe(r: BudgetReading): void {
    try {
      if (!(r.budget > 0 && Number.isFinite(r.budget) && Number.isFinite(r.used))) return;
      const key = `${r.account}\n${r.period ?? ''}`;
      const from = this.next.get(key) ?? 0;
      if (from >= this.thresholds.length || !reached(r.used, r.budget, this.thresholds[from])) return;
      const to = reachedUpTo(this.thresholds, from, r.used, r.budget);
      this.remember(key, to);
      const job = this.raise(r, key, from, to).finally(() => this.pending.delete(job));
      this.pending.add(job);
    } catch (err) {
      this.deps.log.warn({ account: r?.account, err: (err as Error).message }, 'budget alert not raised');
    }
  }

  start(): void { this.delivery?.start(); }

  /** Lets the claims in progress end, then stops delivering; each wait lasts `waitMs` at most (a store that is gone must not hold a stop). */
  async stop(waitMs = 1000): Promise<void> {
    let t: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.pending]), new Promise((r) => { t = setTimeout(r, waitMs); })]);
    clearTimeout(t);
    await this.delivery?.stop(waitMs);
  }

  /** Claims thresholds[from..to) in order; each claim won is one event. A failed claim is tried again on a later reading. */
  private async raise(r: BudgetReading, key: string, from: number, to: number): Promise<void> {
    for (let i = from; i < to; i++) {
      const threshold = this.thresholds[i];
      const id = newEventId();
      const now = Date.now();
      let won: boolean;
      try {
        won = await claimAlert(this.deps.store.leases, r, threshold, id, now);
      } catch (err) {
        // A later reading tries again from here. Should another reading be claiming a higher threshold meanwhile,
        // that one is claimed a second time, which loses: a claim is never won twice.
        if ((this.next.get(key) ?? 0) > i) this.remember(key, i);
        this.deps.log.warn({ account: r.account, period: r.period, threshold, err: (err as Error).message }, 'budget alert not claimed');
        return;
      }
      if (won) await this.emit(alertEvent(r, threshold, id, now), r.account);
    }
  }

  private async emit(e: AlertEvent, account: string): Promise<void> {
    // The webhook's fields, renamed where pino's own are the same words (`level` is the line's, `time` its moment).
    const { type, id, level, time: _, ...rest } = e;
    this.deps.log.info({ event: type, event_id: id, budget_level: level, account, ...rest }, 'budget alert');
    try {
      await this.delivery?.enqueue(e);
    } catch (err) {
      // The claim is taken, so no instance raises this event again: its webhook is lost, its log line stands.
      this.deps.log.warn({ event_id: e.id, err: (err as Error).message }, 'budget alert webhook not queued');
    }
  }

  private remember(key: string, next: number): void {
    this.next.delete(key);
    this.next.set(key, next);
    if (this.next.size > remembered) this.next.delete(this.next.keys().next().value!);
  }
}
