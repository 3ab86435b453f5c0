// Managing teams: the one code path behind `switchyard team …`, /admin/teams and the console. A team's budget for a
// period is an account made at the period's first request; changing the budget moves the current period's account by
// the difference, so what was spent in the period still counts against the new figure.
import type { Store } from '../store/store.js';
import type { Accounts } from '../accounts/purse.js';
import { isPeriod, periodAt, type Period } from '../accounts/periods.js';
import { isTeamId, memberCapAccount, teamBudgetAccount, type TeamRecord } from '../accounts/team-store.js';
import type { UserRecord } from '../accounts/user-store.js';
import { conflict, notFound, TokenAdminError } from './admin-error.js';
import { checkAmount, checkName, type UserAdmin } from './user-admin.js';

export interface TeamPeriodView { key: string; starts_at: number; resets_at: number; budget: number | null; used: number | null; remaining: number | null }

export interface TeamView {
  id: string; object: 'team'; name: string; budget: number | null; period: Period | null; member_cap: number | null;
  members: { id: string; name: string; used: number | null }[]; current: TeamPeriodView; created_at: number;
}

export interface TeamInput { name: string; budget?: number | null; period?: string | null; member_cap?: number | null }

export class TeamAdmin {
  constructor(private readonly store: Store, private readonly accounts: Accounts, private readonly users: UserAdmin) {}

  async create(input: TeamInput): Promise<TeamView> {
    const name = checkTeamName(input.name);
    const t = checkBudget(input);
    await this.checkNameFree(name);
    return this.view(await this.accounts.teams.create({ name, ...t }));
  }

  async list(): Promise<TeamView[]> {
    const users = await this.accounts.users.list();
    return Promise.all((await this.accounts.teams.list()).map((t) => this.view(t, users)));
  }

  async get(ref: string): Promise<TeamView> {
    return this.view(await this.find(ref));
  }

  /** A user is in at most one team: adding one who is in another is a conflict; adding a member again changes nothing. */
  async add(teamRef: string, userRef: string): Promise<TeamView> {
    const team = await this.find(teamRef);
    const user = await this.users.find(userRef);
    if (user.team && user.team !== team.id) throw conflict(`user ${user.id} is in another team (${user.team}); remove them from it first`, 'user', 'user');
    if (user.team !== team.id) await this.accounts.users.update({ ...user, team: team.id });
    return this.view(team);
  }

  async remove(teamRef: string, userRef: string): Promise<TeamView> {
    const team = await this.find(teamRef);
    const user = await this.users.find(userRef);
    if (user.team !== team.id) throw conflict(`user ${user.id} is not a member of team ${team.id}`, 'user', 'user');
    await this.accounts.users.update({ ...user, team: undefined });
    return this.view(team);
  }

  /**
   * New budget, period or member cap. The current period's accounts (when made) move by the difference, so spending
   * so far still counts; a new period takes effect from the next boundary for the accounts already made.
   */
  async update(ref: string, input: Partial<TeamInput>): Promise<TeamView> {
    const team = await this.find(ref);
    const t = budgetAfter(team, input);
    const name = input.name === undefined || input.name === team.name ? team.name : checkTeamName(input.name);
    if (name !== team.name) await this.checkNameFree(name);
    await this.moveBudgets(team, t);
    const next: TeamRecord = { id: team.id, name, ...t, created_at: team.created_at };
    await this.accounts.teams.update(next);
    return this.view(next);
  }

  /** The current period's team and member accounts, by the difference (when the period stays). */
  private async moveBudgets(team: TeamRecord, t: Budget): Promise<void> {
    if (t.period !== (team.period ?? 'month')) return;
    const key = this.span(team).key;
    const stamp = `${Date.now()}:${process.pid}`;
    await this.adjust(teamBudgetAccount(team.id, key), (t.budget ?? 0) - (team.budget ?? 0), stamp);
    for (const u of await this.members(team.id)) await this.adjust(memberCapAccount(team.id, key, u.id), (t.member_cap ?? 0) - (team.member_cap ?? 0), stamp);
  }

  async find(ref: string): Promise<TeamRecord> {
    const t = typeof ref === 'string' && ref.length <= 128 ? await this.accounts.teams.find(ref) : undefined;
    if (!t) throw notFound('team', ref);
    return t;
  }

  private async checkNameFree(name: string): Promise<void> {
    if (await this.accounts.teams.find(name)) throw conflict(`a team named "${name}" exists`, 'name', 'team');
  }

  async members(teamId: string, users?: UserRecord[]): Promise<UserRecord[]> {
    return (users ?? await this.accounts.users.list()).filter((u) => u.team === teamId);
  }

  private span(team: TeamRecord, at = Date.now()) {
    return periodAt(team.period ?? 'month', at, this.accounts.zone);
  }

  /**
   * Moves an account made for the current period; one not made yet starts from the new figure when it is. The ref
   * names the account: a topup's ref is its entry's id, unique across accounts in some stores.
   */
  private async adjust(account: string, delta: number, stamp: string): Promise<void> {
    if (delta === 0 || (await this.store.quota.balance(account)) === undefined) return;
    await this.store.quota.topup(account, delta, `budget:${account}:${stamp}`, { route: 'admin' });
  }

  /** The team as one member sees it: its budget for the period and their own cap, nothing about other members. */
  async memberView(t: TeamRecord, member: UserRecord): Promise<Omit<TeamView, 'members'> & { member_used: number | null }> {
    const { members, ...team } = await this.view(t, [member]);
    return { ...team, member_used: members.find((m) => m.id === member.id)?.used ?? null };
  }

  async view(t: TeamRecord, users?: UserRecord[]): Promise<TeamView> {
    const span = this.span(t);
    const left = async (account: string, of: number | undefined) => {
      if (of === undefined) return null;
      const b = await this.store.quota.balance(account);
      return b === undefined ? 0 : of - b;
    };
    const used = await left(teamBudgetAccount(t.id, span.key), t.budget);
    const members = await Promise.all((await this.members(t.id, users)).map(async (u) => ({
      id: u.id, name: u.name, used: await left(memberCapAccount(t.id, span.key, u.id), t.member_cap),
    })));
    return {
      id: t.id, object: 'team', name: t.name, budget: t.budget ?? null, period: t.period ?? null, member_cap: t.member_cap ?? null, members,
      current: { key: span.key, starts_at: span.start, resets_at: span.end, budget: t.budget ?? null, used, remaining: used === null ? null : t.budget! - used },
      created_at: t.created_at,
    };
  }
}

/** A team's name: also not of the form of a team id, which a lookup by id or name would take for an id. */
function checkTeamName(v: unknown): string {
  const name = checkName(v, 'name');
  if (isTeamId(name)) throw new TokenAdminError('`name` must not have the form of a team id (team_ and 12 hex digits)', 'name');
  return name;
}

type Budget = Pick<TeamRecord, 'budget' | 'period' | 'member_cap'>;

/** What a change leaves: a field left out keeps its value; the period goes with the last budget or cap removed. */
function budgetAfter(team: TeamRecord, input: Partial<TeamInput>): Budget {
  const budget = input.budget === undefined ? team.budget ?? null : input.budget;
  const member_cap = input.member_cap === undefined ? team.member_cap ?? null : input.member_cap;
  const period = input.period !== undefined ? input.period : budget !== null || member_cap !== null ? team.period ?? null : null;
  return checkBudget({ budget, member_cap, period });
}

function checkBudget(input: Partial<TeamInput>): Budget {
  const budget = input.budget === undefined || input.budget === null ? undefined : checkAmount(input.budget, 'budget', 0);
  const member_cap = input.member_cap === undefined || input.member_cap === null ? undefined : checkAmount(input.member_cap, 'member_cap', 0);
  if (input.period !== undefined && input.period !== null && !isPeriod(input.period)) throw new TokenAdminError('`period` must be one of day, week, month', 'period');
  const period = (input.period ?? undefined) as Period | undefined;
  if (period && budget === undefined && member_cap === undefined) throw new TokenAdminError('`period` needs a `budget` or a `member_cap`', 'period');
  return { budget, member_cap, period: budget !== undefined || member_cap !== undefined ? period ?? 'month' : undefined };
}
