// Client tokens: stored by the SHA-256 of the key, cached in memory for a bounded time (shorter when the store
// broadcasts revocations: then a revoked key is dropped from every instance's cache as the message arrives).
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type Keyv from 'keyv';
import type { Store } from './open-store.js';

export interface TokenRecord {
  id: string;
  hash: string;
  name?: string;
  user: string;
  group: string;
  models?: string[];
  expires_at?: number; // unix seconds
  /** Replaces the group's tokens_per_minute. */
  tokens_per_minute?: number;
  revoked?: boolean;
  created_at: number;
  /** Units this token may spend in total (its account's balance is what is left of it); absent: no total cap. */
  cap?: number;
  /** Units this token may spend per `cap_period` (an account per period). */
  period_cap?: number;
  cap_period?: 'day' | 'week' | 'month';
  /** When the key was last replaced (rekey); the record of the key before it, if a race brought it back, loses to this one. */
  rekeyed_at?: number;
}

/**
 * `user`: the owning user's id (the token then spends from that user's wallet; `quota` is 0 unless it is its own
 * account of an earlier release). `cap`: the total the token may spend, which its account then holds.
 */
export interface NewToken {
  user?: string; group: string; quota: number; models?: string[]; expiresAt?: number; name?: string; tokensPerMinute?: number;
  cap?: number; periodCap?: number; capPeriod?: 'day' | 'week' | 'month';
}

/**
 * What an operator may change on a token (null removes a field); its key, user and balance are not among them. A
 * new `cap` is the token's record only: the caller moves its account by the difference (TokenAdmin.update).
 */
export interface TokenChange {
  group?: string; models?: string[] | null; name?: string | null; expires_at?: number | null; tokens_per_minute?: number | null;
  cap?: number | null; period_cap?: number | null; cap_period?: 'day' | 'week' | 'month' | null;
}

// crypto.hash: the one-shot form, half the cost of createHash on every authenticated request.
const hashKey = (key: string) => hash('sha256', key, 'hex');
const maxCached = 50_000;
const newKey = () => `sk-sy-${randomBytes(24).toString('base64url')}`;

export class TokenStore {
  private readonly kv: Keyv;
  private readonly cache = new Map<string, { rec: TokenRecord | undefined; at: number }>();
  /** Bumped on every invalidation: a lookup that started before one must not put its possibly stale answer in the cache. */
  private generation = 0;

  constructor(private readonly store: Store, private readonly cacheMs: number) {
    this.kv = store.kv('tokens');
    // Nothing is cached when cacheMs is 0 (the CLI), so there is nothing to drop.
    if (cacheMs > 0) store.onInvalidate?.((hash) => this.forget(hash));
  }

  async create(t: NewToken): Promise<{ key: string; record: TokenRecord }> {
    const key = newKey();
    const id = `tok_${randomBytes(6).toString('hex')}`;
    const record: TokenRecord = {
      id, hash: hashKey(key), name: t.name, user: t.user ?? id, group: t.group,
      models: t.models?.length ? t.models : undefined, expires_at: t.expiresAt, tokens_per_minute: t.tokensPerMinute,
      created_at: Math.floor(Date.now() / 1000), cap: t.cap, period_cap: t.periodCap, cap_period: t.periodCap === undefined ? undefined : t.capPeriod,
    };
    await this.store.quota.createAccount(id, t.cap ?? t.quota);
    await this.kv.set(`key:${record.hash}`, record);
    await this.kv.set(`id:${id}`, record.hash);
    await this.index(record.user, id);
    return { key, record };
  }

  /** The live record for a presented key, or undefined when unknown, revoked or expired. */
  async authenticate(key: string): Promise<TokenRecord | undefined> {
    const hash = hashKey(key);
    const now = Date.now();
    let hit = this.cache.get(hash);
    if (!hit || now - hit.at > this.cacheMs) {
      const generation = this.generation;
      hit = { rec: await this.kv.get<TokenRecord>(`key:${hash}`), at: now };
      if (generation === this.generation) {
        if (this.cache.size >= maxCached) this.cache.clear();
        this.cache.set(hash, hit);
      }
    }
    const rec = hit.rec;
    if (!rec || rec.revoked) return undefined;
    if (!timingSafeEqual(Buffer.from(rec.hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
    if (rec.expires_at && rec.expires_at * 1000 <= now) return undefined;
    return rec;
  }

  async byId(id: string): Promise<TokenRecord | undefined> {
    const hash = await this.kv.get<string>(`id:${id}`);
    return hash ? this.kv.get<TokenRecord>(`key:${hash}`) : undefined;
  }

  async revoke(id: string): Promise<boolean> {
    const rec = await this.byId(id);
    if (!rec) return false;
    // The mark first: a change written meanwhile (update, rekey) sees it and keeps the token revoked.
    await this.kv.set(`revoked:${id}`, true);
    await this.kv.set(`key:${rec.hash}`, { ...rec, revoked: true });
    await this.invalidate(rec.hash);
    // A rekey that moved the token to a new key meanwhile: that key is revoked too.
    const now = await this.byId(id);
    if (now && now.hash !== rec.hash && !now.revoked) await this.kv.set(`key:${now.hash}`, { ...now, revoked: true });
    return true;
  }

  /**
   * A new key for the token, the old one dropped (on every instance as revocations are): the same id, caps, models
   * and accounts, so spending so far still counts. Undefined when there is no such live token.
   */
  async rekey(id: string): Promise<{ key: string; record: TokenRecord } | undefined> {
    const rec = await this.byId(id);
    if (!rec || rec.revoked) return undefined;
    const key = newKey();
    const record: TokenRecord = { ...rec, hash: hashKey(key), rekeyed_at: Date.now() };
    await this.kv.set(`key:${record.hash}`, record);
    await this.kv.set(`id:${id}`, record.hash);
    await this.kv.delete(`key:${rec.hash}`);
    await this.invalidate(rec.hash);
    if (await this.kv.get(`revoked:${id}`)) {
      record.revoked = true;
      await this.kv.set(`key:${record.hash}`, record);
    }
    return { key, record };
  }

  /** Applies an operator's change; undefined when there is no such token. A revoked token stays revoked. */
  async update(id: string, change: TokenChange): Promise<TokenRecord | undefined> {
    const rec = await this.byId(id);
    if (!rec) return undefined;
    const next: TokenRecord = { ...rec };
    if (change.group !== undefined) next.group = change.group;
    if (change.models !== undefined) next.models = change.models?.length ? change.models : undefined;
    if (change.name !== undefined) next.name = change.name ?? undefined;
    if (change.expires_at !== undefined) next.expires_at = change.expires_at ?? undefined;
    if (change.tokens_per_minute !== undefined) next.tokens_per_minute = change.tokens_per_minute ?? undefined;
    if (change.cap !== undefined) next.cap = change.cap ?? undefined;
    if (change.period_cap !== undefined) next.period_cap = change.period_cap ?? undefined;
    if (change.cap_period !== undefined) next.cap_period = change.cap_period ?? undefined;
    await this.kv.set(`key:${rec.hash}`, next);
    // A revoke that raced this write may have been overwritten by it: its mark says so.
    if (!next.revoked && (await this.kv.get(`revoked:${id}`))) {
      next.revoked = true;
      await this.kv.set(`key:${rec.hash}`, next);
    }
    await this.invalidate(rec.hash);
    return next;
  }

  /** Gives the token to a user (the upgrade from tokens that were their own accounts); undefined when there is no such token. */
  async setUser(id: string, user: string): Promise<TokenRecord | undefined> {
    const rec = await this.byId(id);
    if (!rec) return undefined;
    const next = { ...rec, user };
    await this.index(user, id);
    await this.kv.set(`key:${rec.hash}`, next);
    if (!next.revoked && (await this.kv.get(`revoked:${id}`))) await this.kv.set(`key:${rec.hash}`, { ...next, revoked: true });
    await this.invalidate(rec.hash);
    return next;
  }

  /** The ids of a user's tokens (for reports and balances summed over them), oldest first. */
  async idsOf(user: string): Promise<string[]> {
    return (await this.kv.get<string[]>(`user:${user}`)) ?? [];
  }

  /**
   * Adds a token to its user's list. Two writers of one list may race (read, then write): each checks its id is
   * there after writing and adds it again if the other's write dropped it.
   */
  private async index(user: string, id: string): Promise<void> {
    for (let i = 0; i < 5; i++) {
      const ids = await this.idsOf(user);
      if (ids.includes(id)) return;
      await this.kv.set(`user:${user}`, [...ids, id]);
    }
  }

  /** Drops the record from this instance's cache and, through the store, from every other instance's. */
  private async invalidate(hash: string): Promise<void> {
    this.forget(hash);
    // After the write, so an instance that re-reads on the message sees the new record.
    await this.store.publishInvalidate?.(hash);
  }

  /** Drops one cached key, or all of them when `hash` is undefined. */
  private forget(hash?: string): void {
    this.generation++;
    if (hash === undefined) this.cache.clear();
    else this.cache.delete(hash);
  }

  /** Every token once: where a race with a rekey left the old key's record, the newer one stands for the token. */
  async list(): Promise<TokenRecord[]> {
    const byId = new Map<string, TokenRecord>();
    for await (const [k, v] of this.kv.iterator!(undefined) as AsyncGenerator<[string, unknown]>) {
      if (!String(k).startsWith('key:')) continue;
      const rec = v as TokenRecord;
      const seen = byId.get(rec.id);
      if (!seen || (rec.rekeyed_at ?? 0) > (seen.rekeyed_at ?? 0)) byId.set(rec.id, rec);
    }
    return [...byId.values()].sort((a, b) => a.created_at - b.created_at);
  }
}
