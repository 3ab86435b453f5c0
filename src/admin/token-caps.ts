// A token's caps: its total (its account holds what is left of it) and its cap per period (an account per period).
// Checked alike on create and on change. A change moves the token's accounts by the difference, as a team's new
// budget does, so what the token spent so far still counts against the new figure; an absent cap counts as 0.
import type { Store } from '../store/store.js';
import type { TokenChange, TokenRecord } from '../store/token-store.js';
import { isPeriod, periodAt, type Period } from '../accounts/periods.js';
import { tokenCapAccount } from '../accounts/purse.js';
import { TokenAdminError } from './admin-error.js';
import { checkAmount } from './user-admin.js';

export interface CapInput { cap?: number | null; period_cap?: number | null; cap_period?: string | null }
export interface Caps { cap?: number; period_cap?: number; cap_period?: Period }

/** A total cap, a cap per period, or both; a period needs its cap and a cap its period. */
export function checkCaps(input: CapInput): Caps {
  const cap = input.cap === undefined || input.cap === null ? undefined : checkAmount(input.cap, 'cap', 0);
  const period_cap = input.period_cap === undefined || input.period_cap === null ? undefined : checkAmount(input.period_cap, 'period_cap', 0);
  const cap_period = input.cap_period ?? undefined;
  if (cap_period !== undefined && !isPeriod(cap_period)) throw new TokenAdminError('`cap_period` must be one of day, week, month', 'cap_period');
  if ((cap_period === undefined) !== (period_cap === undefined)) throw new TokenAdminError('`period_cap` and `cap_period` go together', cap_period === undefined ? 'cap_period' : 'period_cap');
  return { cap, period_cap, cap_period };
}

/** The caps a change leaves the token with (a field the change leaves out keeps its value; null removes it). */
export function capsAfter(rec: TokenRecord, change: TokenChange): Caps {
  const keep = <K extends keyof CapInput>(k: K) => (change[k] === undefined ? rec[k] : change[k]);
  return checkCaps({ cap: keep('cap'), period_cap: keep('period_cap'), cap_period: keep('cap_period') });
}

export const capsChanged = (rec: TokenRecord, next: Caps) =>
  rec.cap !== next.cap || rec.period_cap !== next.period_cap || rec.cap_period !== next.cap_period;

/**
 * Moves the token's account by the change of its total cap, and the current period's cap account (where made) by the
 * change of its cap in that period: a period no longer capped goes to 0 − spent, a new one starts at its cap when made.
 */
export async function moveCaps(store: Store, rec: TokenRecord, next: Caps, zone: string, now = Date.now()): Promise<void> {
  const stamp = `${now}:${process.pid}`;
  const tags = { route: 'admin', user: rec.user };
  const total = (next.cap ?? 0) - (rec.cap ?? 0);
  if (total !== 0) await store.quota.topup(rec.id, total, `cap:${rec.id}:${stamp}`, tags);
  for (const period of new Set([rec.cap_period, next.cap_period].filter((p): p is Period => p !== undefined))) {
    const account = tokenCapAccount(rec.id, periodAt(period, now, zone).key);
    const delta = (next.cap_period === period ? next.period_cap ?? 0 : 0) - (rec.cap_period === period ? rec.period_cap ?? 0 : 0);
    if (delta !== 0 && (await store.quota.balance(account)) !== undefined) await store.quota.topup(account, delta, `cap:${account}:${stamp}`, tags);
  }
}
