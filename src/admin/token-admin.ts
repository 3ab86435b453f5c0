// Managing client tokens: the one code path behind the CLI (`switchyard token …`) and the admin API (/admin/tokens).
// Inputs are checked here, against the running config's groups and models, so both refuse the same things alike.
import { topupRecord } from '../request-log/records.js';
import type { RequestRecord } from '../request-log/log-store.js';
import type { Runtime } from '../config/runtime.js';
import type { Store } from '../store/open-store.js';
import type { TokenChange, TokenRecord, TokenStore } from '../store/token-store.js';

/** A refusal that names what was wrong; `notFound` when the token does not exist. */
export class TokenAdminError extends Error {
  constructor(message: string, readonly field?: string, readonly notFound = false) { super(message); }
}

/** A token as operators see it: never its key or hash. */
export interface TokenView {
  id: string; object: 'token'; name: string | null; user: string; group: string; models: string[] | null;
  expires_at: number | null; tokens_per_minute: number | null; revoked: boolean; created_at: number; balance: number;
}

export interface TokenInput {
  group: string; quota: number; user?: string; models?: string[]; name?: string; expires_at?: number | null; tokens_per_minute?: number | null;
}

/** Where a topup came from, recorded on its ledger entry. */
export type TopupSource = 'cli' | 'admin';

const maxAmount = 1e15; // far beyond any real balance, and exactly representable

export class TokenAdmin {
  /** `journal` records each topup in the request log (the gateway's writer; the CLI writes its own). */
  constructor(private readonly store: Store, private readonly tokens: TokenStore, private readonly runtime: () => Runtime,
    private readonly journal: (r: RequestRecord) => void = () => undefined) {}

  async create(input: TokenInput): Promise<{ key: string; token: TokenView }> {
    this.checkGroup(input.group);
    if (!Number.isSafeInteger(input.quota) || input.quota < 0) throw new TokenAdminError('`quota` must be a whole number of units, 0 or more', 'quota');
    this.checkModels(input.group, input.models);
    checkTokensPerMinute(input.tokens_per_minute);
    const { key, record } = await this.tokens.create({
      group: input.group, quota: input.quota, user: input.user, name: input.name, models: input.models,
      expiresAt: input.expires_at ?? undefined, tokensPerMinute: input.tokens_per_minute ?? undefined,
    });
    return { key, token: await this.view(record) };
  }

  async list(): Promise<TokenView[]> {
    return Promise.all((await this.tokens.list()).map((r) => this.view(r)));
  }

  async get(id: string): Promise<TokenView> {
    return this.view(await this.find(id));
  }

  async update(id: string, change: TokenChange): Promise<TokenView> {
    const rec = await this.find(id);
    const group = change.group ?? rec.group;
    if (change.group !== undefined) this.checkGroup(change.group);
    this.checkModels(group, change.models === undefined ? rec.models : change.models ?? undefined);
    checkTokensPerMinute(change.tokens_per_minute);
    const next = await this.tokens.update(id, change);
    if (!next) throw notFound(id);
    return this.view(next);
  }

  /** `ref` makes a repeated topup (a retried request, an idempotency key) count once. */
  async topup(id: string, amount: number, ref: string, source: TopupSource): Promise<TokenView> {
    const rec = await this.find(id);
    if (!Number.isSafeInteger(amount) || amount < 1 || amount > maxAmount) throw new TokenAdminError(`\`amount\` must be a whole number of units from 1 to ${maxAmount}`, 'amount');
    // A repeated `ref` moves nothing, so it is not recorded again.
    if (await this.store.quota.topup(id, amount, `${source}:${ref}`, { route: source, user: rec.user })) this.journal(topupRecord(`${source}:${ref}`, rec, amount, source));
    return this.view(rec);
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

  private async view(r: TokenRecord): Promise<TokenView> {
    return {
      id: r.id, object: 'token', name: r.name ?? null, user: r.user, group: r.group, models: r.models ?? null,
      expires_at: r.expires_at ?? null, tokens_per_minute: r.tokens_per_minute ?? null, revoked: Boolean(r.revoked), created_at: r.created_at,
      balance: (await this.store.quota.balance(r.id)) ?? 0,
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
    const reachable = new Set(this.runtime().channels.filter((c) => c.groups.has(group)).flatMap((c) => [...c.models]));
    models.forEach((m, i) => {
      if (!reachable.has(m)) throw new TokenAdminError(`model "${m.slice(0, 128)}" is not served to group "${group}"`, `models[${i}]`);
    });
  }
}

/** The API's schema checks this too; the CLI's input comes only through here. */
function checkTokensPerMinute(n: number | null | undefined): void {
  if (n !== undefined && n !== null && !(Number.isSafeInteger(n) && n >= 1)) {
    throw new TokenAdminError('`tokens_per_minute` must be a whole number of tokens, 1 or more', 'tokens_per_minute');
  }
}

const notFound = (id: string) => new TokenAdminError(`no token ${id.slice(0, 80)}`, undefined, true);
