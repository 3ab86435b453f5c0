// Managing users: the one code path behind `switchyard user …`, /admin/users and the console. A user's wallet is a
// ledger account; a topup moves money into it, once per `ref`.
import type { Runtime } from '../config/runtime.js';
import type { Store } from '../store/store.js';
import { isUserId, walletOf, type UserRecord } from '../accounts/user-store.js';
import type { Accounts } from '../accounts/purse.js';
import { conflict, notFound, TokenAdminError } from './admin-error.js';
import type { RequestRecord } from '../request-log/log-store.js';
import { topupRecord } from '../request-log/records.js';

export interface UserView {
  id: string; object: 'user'; name: string; group: string; team: string | null; unlimited: boolean; disabled: boolean;
  balance: number; created_at: number;
}

export interface UserInput { name: string; group?: string; quota?: number; unlimited?: boolean }

/** What an operator may change on a user; the wallet moves only by topups. */
export interface UserChange { name?: string; group?: string; unlimited?: boolean; disabled?: boolean }

/** A listing's filters: the members of a team (its id or name), disabled users or active ones. */
export interface UserFilter { team?: string; disabled?: boolean }

export const maxAmount = 1e15; // far beyond any real balance, and exactly representable
const namePattern = /^[^\u0000-\u001f\u007f]{1,128}$/;

export class UserAdmin {
  constructor(private readonly store: Store, private readonly accounts: Accounts, private readonly runtime: () => Runtime,
    private readonly journal: (r: RequestRecord) => void = () => undefined) {}

  async create(input: UserInput): Promise<UserView> {
    const name = checkUserName(input.name);
    const group = input.group ?? defaultGroup(this.runtime());
    checkGroup(this.runtime(), group);
    const quota = checkAmount(input.quota ?? 0, 'quota', 0);
    const unlimited = checkFlag(input.unlimited, 'unlimited');
    await this.checkNameFree(name);
    return this.view(await this.accounts.users.create({ name, group, unlimited }, quota));
  }

  /** Oldest first. An unknown team is not found rather than an empty list, so a typo does not pass for "no members". */
  async list(filter: UserFilter = {}): Promise<UserView[]> {
    const team = filter.team === undefined ? undefined : await this.teamOf(filter.team);
    const users = (await this.accounts.users.list()).filter((u) =>
      (team === undefined || u.team === team) && (filter.disabled === undefined || Boolean(u.disabled) === filter.disabled));
    return Promise.all(users.map((u) => this.view(u)));
  }

  /** Every field is checked before anything is written: a refused change changes nothing. */
  async update(ref: string, change: UserChange): Promise<UserView> {
    const u = await this.find(ref);
    const next: UserRecord = { ...u };
    if (change.name !== undefined && change.name !== u.name) {
      next.name = checkUserName(change.name);
      await this.checkNameFree(next.name);
    }
    if (change.group !== undefined) {
      checkGroup(this.runtime(), change.group);
      next.group = change.group;
    }
    if (change.unlimited !== undefined) next.unlimited = checkFlag(change.unlimited, 'unlimited');
    if (change.disabled !== undefined) next.disabled = checkFlag(change.disabled, 'disabled');
    await this.accounts.users.update(next);
    return this.view(next);
  }

  async get(ref: string): Promise<UserView> {
    return this.view(await this.find(ref));
  }

  async find(ref: string): Promise<UserRecord> {
    const u = typeof ref === 'string' && ref.length <= 128 ? await this.accounts.users.find(ref) : undefined;
    if (!u) throw notFound('user', ref);
    return u;
  }

  private async teamOf(ref: string): Promise<string> {
    const t = typeof ref === 'string' && ref.length <= 128 ? await this.accounts.teams.find(ref) : undefined;
    if (!t) throw notFound('team', ref);
    return t.id;
  }

  private async checkNameFree(name: string): Promise<void> {
    if (await this.accounts.users.idOfName(name)) throw conflict(`a user named "${name}" exists`, 'name', 'user');
  }

  /** `ref` makes a repeated topup (a retried request, an idempotency key) count once. */
  async topup(ref: string, amount: number, idem: string, source: 'cli' | 'admin'): Promise<UserView> {
    const u = await this.find(ref);
    checkAmount(amount, 'amount', 1);
    const moved = await this.store.quota.topup(walletOf(u.id), amount, `${source}:${idem}`, { route: source, user: u.id });
    if (moved) this.journal(topupRecord(`${source}:${idem}`, { id: null, user: u.id, group: u.group }, amount, source));
    return this.view(u);
  }

  /** A disabled user's tokens are refused on every instance (within the token cache time); the wallet stays. */
  setDisabled(ref: string, disabled: boolean): Promise<UserView> {
    return this.update(ref, { disabled });
  }

  /**
   * A one-time invite for the user to set a console password (the console's `#invite=` link): it voids the user's
   * previous invite, and setting a password with it signs the user out of every session opened before.
   */
  async invite(ref: string): Promise<{ user: UserView; code: string; expires_at: number }> {
    const u = await this.find(ref);
    if (u.disabled) throw new TokenAdminError(`user ${u.id} is disabled: enable them first`, 'user', false, 'user', true);
    const { code, expires_at } = await this.accounts.invites.mint(u.id);
    return { user: await this.view(u), code, expires_at };
  }

  async view(u: UserRecord): Promise<UserView> {
    return {
      id: u.id, object: 'user', name: u.name, group: u.group, team: u.team ?? null, unlimited: Boolean(u.unlimited),
      disabled: Boolean(u.disabled), balance: (await this.store.quota.balance(walletOf(u.id))) ?? 0, created_at: u.created_at,
    };
  }
}

export function checkName(v: unknown, field: string): string {
  if (typeof v !== 'string' || !namePattern.test(v) || v.trim() !== v) throw new TokenAdminError(`\`${field}\` must be 1 to 128 printable characters, without spaces at either end`, field);
  return v;
}

/** A user's name: also not of the form of a user id, which a lookup by id or name would take for an id. */
export function checkUserName(v: unknown, field = 'name'): string {
  const name = checkName(v, field);
  if (isUserId(name)) throw new TokenAdminError(`\`${field}\` must not have the form of a user id (usr_ and 12 hex digits)`, field);
  return name;
}

/** true, false, or absent (undefined: the record keeps no flag). */
function checkFlag(v: unknown, field: string): true | undefined {
  if (v !== undefined && typeof v !== 'boolean') throw new TokenAdminError(`\`${field}\` must be true or false`, field);
  return v || undefined;
}

/** A whole number of units from `min` to maxAmount. */
export function checkAmount(v: unknown, field: string, min: number): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > maxAmount) {
    throw new TokenAdminError(`\`${field}\` must be a whole number of units from ${min} to ${maxAmount}`, field);
  }
  return v;
}

export function checkGroup(runtime: Runtime, group: unknown): void {
  const groups = runtime.groups;
  if (typeof group !== 'string' || !groups.has(group)) {
    throw new TokenAdminError(`unknown group "${String(group).slice(0, 64)}" (groups: ${[...groups.keys()].join(', ')})`, 'group');
  }
}

/** `default` when the config has it, else its only group; otherwise a group must be named. */
function defaultGroup(runtime: Runtime): string {
  const groups = [...runtime.groups.keys()];
  if (groups.includes('default')) return 'default';
  if (groups.length === 1) return groups[0];
  throw new TokenAdminError(`\`group\` is required (groups: ${groups.join(', ')})`, 'group');
}
