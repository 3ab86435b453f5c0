// Managing users: the one code path behind `switchyard user …`, /admin/users and the console. A user's wallet is a
// ledger account; a topup moves money into it, once per `ref`.
import type { Runtime } from '../config/runtime.js';
import type { Store } from '../store/store.js';
import { walletOf, type UserRecord } from '../accounts/user-store.js';
import type { Accounts } from '../accounts/purse.js';
import { TokenAdminError } from './admin-error.js';
import type { RequestRecord } from '../request-log/log-store.js';
import { topupRecord } from '../request-log/records.js';

export interface UserView {
  id: string; object: 'user'; name: string; group: string; team: string | null; unlimited: boolean; disabled: boolean;
  balance: number; created_at: number;
}

export interface UserInput { name: string; group?: string; quota?: number; unlimited?: boolean }

export const maxAmount = 1e15; // far beyond any real balance, and exactly representable
const namePattern = /^[^\u0000-\u001f\u007f]{1,128}$/;

export class UserAdmin {
  constructor(private readonly store: Store, private readonly accounts: Accounts, private readonly runtime: () => Runtime,
    private readonly journal: (r: RequestRecord) => void = () => undefined) {}

  async create(input: UserInput): Promise<UserView> {
    const name = checkName(input.name, 'name');
    const group = input.group ?? defaultGroup(this.runtime());
    checkGroup(this.runtime(), group);
    const quota = checkAmount(input.quota ?? 0, 'quota', 0);
    if (await this.accounts.users.idOfName(name)) throw new TokenAdminError(`a user named "${name}" exists`, 'name', false, 'user', true);
    return this.view(await this.accounts.users.create({ name, group, unlimited: input.unlimited }, quota));
  }

  async list(): Promise<UserView[]> {
    return Promise.all((await this.accounts.users.list()).map((u) => this.view(u)));
  }

  async get(ref: string): Promise<UserView> {
    return this.view(await this.find(ref));
  }

  async find(ref: string): Promise<UserRecord> {
    const u = typeof ref === 'string' && ref.length <= 128 ? await this.accounts.users.find(ref) : undefined;
    if (!u) throw new TokenAdminError(`no user ${String(ref).slice(0, 80)}`, undefined, true, 'user');
    return u;
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
  async setDisabled(ref: string, disabled: boolean): Promise<UserView> {
    const u = await this.find(ref);
    const next = { ...u, disabled: disabled || undefined };
    await this.accounts.users.update(next);
    return this.view(next);
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
