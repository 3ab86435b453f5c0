// The levels a request of a token reserves on (docs/contributors/money-levels.md): the token's own account, its cap
// for the period, its user's wallet, the member's cap and the team's budget for the period. Period accounts are made
// at their first use in a period (once per process, then remembered), with the cap or budget as their balance.
import { levelRequest, type Level } from '../store/quota-ledger.js';
import type { Store } from '../store/store.js';
import type { TokenRecord } from '../store/token-store.js';
import { periodAt, type Period } from './periods.js';
import { memberCapAccount, teamBudgetAccount, TeamStore, type TeamRecord } from './team-store.js';
import { walletOf, UserStore, type UserRecord } from './user-store.js';
import { Credentials } from './credentials.js';
import { Invites } from './invites.js';
import { Sessions } from './sessions.js';
import { SignInLimits } from './sign-in-limits.js';

/** A token's account for its cap in the period of key `periodKey` (`~tok_…@m2026-11`). */
export const tokenCapAccount = (token: string, periodKey: string) => `~${token}@${periodKey}`;

/**
 * What a level is, for a refusal's message (which level, when its period ends) and for budget alerts (its budget,
 * whose it is, the period's key).
 */
export interface LevelName {
  kind: 'token' | 'token_period' | 'wallet' | 'member' | 'team'; period?: Period; resetsAt?: number; team?: string;
  budget?: number; subject?: string; key?: string;
}

export interface Purse { levels: Level[]; names: LevelName[]; user?: UserRecord; team?: TeamRecord }

export interface Accounts {
  users: UserStore;
  teams: TeamStore;
  /** The time zone whose calendar budget periods follow. */
  zone: string;
  periodAccounts: PeriodAccounts;
  /** The console's users: their passwords, the invites that set them, their sessions and the bound on sign-ins. */
  credentials: Credentials;
  invites: Invites;
  sessions: Sessions;
  signIns: SignInLimits;
}

/** Makes each period's account once: creating is idempotent in every store, so a race between instances is harmless. */
export class PeriodAccounts {
  private readonly made = new Set<string>();
  constructor(private readonly store: Store) {}

  async ensure(account: string, initial: number): Promise<void> {
    if (this.made.has(account)) return;
    await this.store.quota.createAccount(account, initial);
    if (this.made.size >= 100_000) this.made.clear();
    this.made.add(account);
  }
}

/** The accounts of a store; `zone` is read at each request, so a reload that changes it applies at once. */
export function openAccounts(store: Store, cacheMs: number, zone: () => string): Accounts {
  const users = new UserStore(store, cacheMs);
  const teams = new TeamStore(store, cacheMs);
  const periodAccounts = new PeriodAccounts(store);
  return {
    users, teams, periodAccounts, get zone() { return zone(); },
    credentials: new Credentials(store), invites: new Invites(store), sessions: new Sessions(store), signIns: new SignInLimits(store),
  };
}

/** The token's levels for a reservation under `request` at `now`; the caller checks the user is not disabled. */
export async function purseOf(a: Accounts, token: TokenRecord, request: string, now: number): Promise<Purse> {
  const levels: Level[] = [{ account: token.id, request, unchecked: token.cap === undefined }];
  const names: LevelName[] = [{ kind: 'token', budget: token.cap, subject: token.id }];
  const user = token.user.startsWith('usr_') ? await a.users.get(token.user) : undefined;
  // A token of an earlier release that no upgrade has reached yet spends its own balance, as it did.
  if (!user) return { levels: [{ account: token.id, request }], names };
  const add = (account: string, name: LevelName, unchecked?: boolean) => {
    levels.push({ account, request: levelRequest(request, account, false), unchecked });
    names.push(name);
  };
  if (token.period_cap !== undefined && token.cap_period) {
    const span = periodAt(token.cap_period, now, a.zone);
    const account = tokenCapAccount(token.id, span.key);
    await a.periodAccounts.ensure(account, token.period_cap);
    add(account, { kind: 'token_period', period: token.cap_period, resetsAt: span.end, budget: token.period_cap, subject: token.id, key: span.key });
  }
  add(walletOf(user.id), { kind: 'wallet' }, user.unlimited);
  const team = user.team ? await a.teams.get(user.team) : undefined;
  if (team && (team.budget !== undefined || team.member_cap !== undefined)) {
    const period = team.period ?? 'month';
    const span = periodAt(period, now, a.zone);
    if (team.member_cap !== undefined) {
      const account = memberCapAccount(team.id, span.key, user.id);
      await a.periodAccounts.ensure(account, team.member_cap);
      add(account, { kind: 'member', period, resetsAt: span.end, team: team.name, budget: team.member_cap, subject: user.id, key: span.key });
    }
    if (team.budget !== undefined) {
      const account = teamBudgetAccount(team.id, span.key);
      await a.periodAccounts.ensure(account, team.budget);
      add(account, { kind: 'team', period, resetsAt: span.end, team: team.name, budget: team.budget, subject: team.id, key: span.key });
    }
  }
  return { levels, names, user, team };
}

const periodWord: Record<Period, string> = { day: 'day', week: 'week', month: 'month' };

/** The refusal's words: the level, and when a period's budget resets; nothing about balances. */
export function refusalOf(n: LevelName, amount: number): string {
  const resets = n.resetsAt === undefined ? '' : `; it resets at ${new Date(n.resetsAt).toISOString()}`;
  const what = {
    token: 'this token\'s cap is used up',
    token_period: `this token's cap for the ${periodWord[n.period ?? 'month']} is used up`,
    wallet: 'the user\'s wallet cannot cover it',
    member: `your cap as a member of team "${n.team}" for the ${periodWord[n.period ?? 'month']} is used up`,
    team: `team "${n.team}"'s budget for the ${periodWord[n.period ?? 'month']} is used up`,
  }[n.kind];
  return `Insufficient quota: this request may cost up to ${amount} units and ${what}${resets}`;
}

/**
 * What a token can still spend: the least that any bounded level has left (its caps, its user's wallet, its
 * member's cap and team's budget for the period); undefined when no level bounds it (an unlimited user with no caps).
 */
export async function spendableOf(a: Accounts, store: Store, token: TokenRecord, now: number): Promise<number | undefined> {
  const purse = await purseOf(a, token, 'spendable', now);
  const bounded = purse.levels.filter((l) => !l.unchecked);
  const left = await Promise.all(bounded.map(async (l) => (await store.quota.balance(l.account)) ?? 0));
  return left.length ? Math.max(0, Math.min(...left)) : undefined;
}
