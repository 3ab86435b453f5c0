// Managing client tokens: the one code path behind the CLI (`switchyard token …`) and the admin API (/admin/tokens).
// Inputs are checked here, against the running config's groups and models, so both refuse the same things alike.
import { topupRecord } from '../request-log/records.js';
import type { RequestRecord } from '../request-log/log-store.js';
import type { Runtime } from '../config/runtime.js';
import type { Store } from '../store/open-store.js';
import type { TokenChange, TokenRecord, TokenStore } from '../store/token-store.js';
import { randomBytes } from 'node:crypto';
import { openAccounts, type Accounts } from '../accounts/purse.js';
import { isUserId, walletOf, type UserRecord } from '../accounts/user-store.js';
import { checkAmount, checkUserName } from './user-admin.js';
import { capsAfter, capsChanged, checkCaps, moveCaps } from './token-caps.js';

export { TokenAdminError } from './admin-error.js';
import { notFound as noSuch, TokenAdminError } from './admin-error.js';

/** A token as operators see it: never its key or hash. */
/** `balance`: what the token can draw on, its user's wallet (its own account for a token no upgrade has reached). */
export interface TokenView {
  id: string; object: 'token'; name: string | null; user: string; group: string; models: string[] | null;
  expires_at: number | null; tokens_per_minute: number | null; revoked: boolean; created_at: number; balance: number;
  cap: number | null; cap_left: number | null; period_cap: number | null; cap_period: string | null;
}

/**
 * `user`: the owner's id or name. A name no user has yet makes a user of it (how `--user LABEL --quota Q` scripts of
 * the releases before users keep working), and no user at all makes a user of the token's own. `quota` goes into that
 * user's wallet. `cap`: the most the token may spend in total; `period_cap` per `cap_period`.
 */
export interface TokenInput {
  group?: string; quota?: number; user?: string; models?: string[]; name?: string; expires_at?: number | null; tokens_per_minute?: number | null;
  cap?: number | null; period_cap?: number | null; cap_period?: string | null;
}

/** Where a topup came from, recorded on its ledger entry. */
export type TopupSource = 'cli' | 'admin';


export class TokenAdmin {
  /** `journal` records each topup in the request log (the gateway's writer; the CLI writes its own). */
  constructor(private readonly store: Store, private readonly tokens: TokenStore, private readonly runtime: () => Runtime,
    private readonly journal: (r: RequestRecord) => void = () => undefined, private readonly accounts: Accounts = openAccounts(store, 0, () => runtime().timeZone)) {
  }

  async create(input: TokenInput): Promise<{ key: string; token: TokenView }> {
    const quota = checkAmount(input.quota ?? 0, 'quota', 0);
    const caps = checkCaps(input);
    const owner = input.user === undefined ? undefined : await this.ownerNamed(input.user);
    const group = input.group ?? owner?.group;
    if (group === undefined) throw new TokenAdminError('`group` is required for a token of no user', 'group');
    this.checkGroup(group);
    this.checkModels(group, input.models);
    checkTokensPerMinute(input.tokens_per_minute);
    const user = owner ?? await this.accounts.users.create({ name: input.user ?? `token ${randomBytes(6).toString('hex')}`, group }, 0);
    if (quota > 0) await this.store.quota.topup(walletOf(user.id), quota, `create:${randomBytes(8).toString('hex')}`, { route: 'admin', user: user.id });
    const { key, record } = await this.tokens.create({
      group, quota: 0, user: user.id, name: input.name, models: input.models, cap: caps.cap, periodCap: caps.period_cap, capPeriod: caps.cap_period,
      expiresAt: input.expires_at ?? undefined, tokensPerMinute: input.tokens_per_minute ?? undefined,
    });
    return { key, token: await this.view(record) };
  }

  /** Oldest first; `user`: only that user's (by id). */
  async list(user?: string): Promise<TokenView[]> {
    return Promise.all((await this.tokens.list()).filter((r) => user === undefined || r.user === user).map((r) => this.view(r)));
  }

  async get(id: string): Promise<TokenView> {
    return this.view(await this.find(id));
  }

  /** Every field is checked before anything moves: a refused change changes nothing. */
  async update(id: string, change: TokenChange): Promise<TokenView> {
    const rec = await this.find(id);
    const group = change.group ?? rec.group;
    if (change.group !== undefined) this.checkGroup(change.group);
    this.checkModels(group, change.models === undefined ? rec.models : change.models ?? undefined);
    checkTokensPerMinute(change.tokens_per_minute);
    const caps = capsAfter(rec, change);
    if (capsChanged(rec, caps)) {
      // A token no upgrade has reached spends its own account: a cap would add to the money on it.
      if (!(await this.ownerOf(rec))) throw new TokenAdminError('caps are for tokens of a user; this token predates users (a restart upgrades it)', 'cap');
      await moveCaps(this.store, rec, caps, this.accounts.zone);
    }
    const next = await this.tokens.update(id, { ...change, cap: caps.cap ?? null, period_cap: caps.period_cap ?? null, cap_period: caps.cap_period ?? null });
    if (!next) throw notFound(id);
    return this.view(next);
  }

  /** `ref` makes a repeated topup (a retried request, an idempotency key) count once. */
  /** Tops up the wallet of the token's user (the token's own account for a token no upgrade has reached). */
  async topup(id: string, amount: number, ref: string, source: TopupSource): Promise<TokenView> {
    const rec = await this.find(id);
    checkAmount(amount, 'amount', 1);
    const account = (await this.ownerOf(rec)) ? walletOf(rec.user) : id;
    // A repeated `ref` moves nothing, so it is not recorded again.
    if (await this.store.quota.topup(account, amount, `${source}:${ref}`, { route: source, user: rec.user })) this.journal(topupRecord(`${source}:${ref}`, rec, amount, source));
    return this.view(rec);
  }

  /**
   * A new key for a live token, the old key dropped as a revocation is: the same id, caps and models, and what it
   * spent so far still counts against its caps. A revoked token cannot be rotated (a conflict).
   */
  async rotate(id: string): Promise<{ key: string; token: TokenView }> {
    const rec = await this.find(id);
    if (rec.revoked) throw new TokenAdminError(`token ${rec.id} is revoked: create a new one instead`, undefined, false, 'token', true);
    const done = await this.tokens.rekey(id);
    if (!done) throw new TokenAdminError(`token ${rec.id} was revoked meanwhile`, undefined, false, 'token', true);
    return { key: done.key, token: await this.view(done.record) };
  }

  /** Revokes on every instance (at once with Redis, within the token cache time with SQLite); the balance stays. */
  async revoke(id: string): Promise<TokenView> {
    if (!(await this.tokens.revoke(id))) throw notFound(id);
    return this.get(id);
  }

  private async find(id: string): Promise<TokenRecord> {
    const rec = /^tok_[0-9a-f]{1,64}$/.test(id) ? await this.tokens.byId(id) : undefined;
    if (!rec) throw notFound(id);
    return rec;
  }

  /** A user named by id must exist; a name no user has yet is a new user's (checked here, made by create). */
  private async ownerNamed(ref: string): Promise<UserRecord | undefined> {
    const found = typeof ref === 'string' && ref.length <= 128 ? await this.accounts.users.find(ref) : undefined;
    if (found) return found;
    if (typeof ref === 'string' && isUserId(ref)) throw noSuch('user', ref);
    checkUserName(ref, 'user');
    return undefined;
  }

  private ownerOf(r: TokenRecord): Promise<UserRecord | undefined> {
    return isUserId(r.user) ? this.accounts.users.get(r.user) : Promise.resolve(undefined);
  }

  async view(r: TokenRecord): Promise<TokenView> {
    const own = (await this.store.quota.balance(r.id)) ?? 0;
    const owner = await this.ownerOf(r);
    return {
      id: r.id, object: 'token', name: r.name ?? null, user: r.user, group: r.group, models: r.models ?? null,
      expires_at: r.expires_at ?? null, tokens_per_minute: r.tokens_per_minute ?? null, revoked: Boolean(r.revoked), created_at: r.created_at,
      balance: owner ? (await this.store.quota.balance(walletOf(owner.id))) ?? 0 : own,
      cap: r.cap ?? null, cap_left: r.cap === undefined ? null : own, period_cap: r.period_cap ?? null, cap_period: r.cap_period ?? null,
    };
  }

  private checkGroup(group: string): void {
    const groups = this.runtime().groups;
    if (!groups.has(group)) throw new TokenAdminError(`unknown group "${group.slice(0, 64)}" (groups: ${[...groups.keys()].join(', ')})`, 'group');
  }

  /**
   * Every model named must be one of the group's channels' (enabled or not: a key may come later): a token allowed
   * only models it can never use is a mistake.
   */
  private checkModels(group: string, models: string[] | undefined): void {
    if (!models) return;
    const reachable = new Set(groupModels(this.runtime(), group));
    models.forEach((m, i) => {
      if (!reachable.has(m)) throw new TokenAdminError(`model "${m.slice(0, 128)}" is not served to group "${group}"`, `models[${i}]`);
    });
  }
}

/** The models the group's channels serve (enabled or not), sorted: what a token of the group may be allowed. */
export function groupModels(runtime: Runtime, group: string): string[] {
  return [...new Set(runtime.channels.filter((c) => c.groups.has(group)).flatMap((c) => [...c.models]))].sort();
}


/** The API's schema checks this too; the CLI's input comes only through here. */
function checkTokensPerMinute(n: number | null | undefined): void {
  if (n !== undefined && n !== null && !(Number.isSafeInteger(n) && n >= 1)) {
    throw new TokenAdminError('`tokens_per_minute` must be a whole number of tokens, 1 or more', 'tokens_per_minute');
  }
}

const notFound = (id: string) => new TokenAdminError(`no token ${id.slice(0, 80)}`, undefined, true);
