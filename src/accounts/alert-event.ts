// A budget alert as its webhook receives it and as its log line shows it, and the body's signature: HMAC-SHA256 of
// the exact body bytes under the webhook's secret, hex, in `X-Switchyard-Signature: sha256=<hex>`. The body carries
// its own time and a unique id, so a receiver can reject stale deliveries and drop a retried one it already has.
import { createHmac, randomBytes } from 'node:crypto';

export type BudgetLevel = 'team' | 'member' | 'token' | 'wallet';

/** What the settle stage knows of one level after a settle. */
export interface BudgetReading {
  level: BudgetLevel;
  /** The team, user or token id the level belongs to. */
  subject: string;
  /** The ledger account (docs/contributors/money-levels.md), e.g. `~team_x@m2026-11`. */
  account: string;
  /** The period's key (`d2026-11-29`, `w2026-11-23`, `m2026-11`); absent for a level without periods. */
  period?: string;
  /** When the period ends, ISO 8601. */
  resetsAt?: string;
  /** In units, as the ledger counts. */
  budget: number;
  used: number;
}

export interface AlertEvent {
  type: 'budget.threshold';
  id: string;
  level: BudgetLevel;
  subject: string;
  period: string | null;
  /** Percent. */
  threshold: number;
  budget: number;
  used: number;
  resets_at: string | null;
  time: string;
}

export const newEventId = (): string => `balert_${randomBytes(12).toString('hex')}`;

export function alertEvent(r: BudgetReading, threshold: number, id: string, now: number): AlertEvent {
  return {
    type: 'budget.threshold', id, level: r.level, subject: r.subject, period: r.period ?? null, threshold,
    budget: r.budget, used: r.used, resets_at: r.resetsAt ?? null, time: new Date(now).toISOString(),
  };
}

export const signatureHeader = 'x-switchyard-signature';

export const signBody = (secret: string, body: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
