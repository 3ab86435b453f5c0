// Users own the money: each has a wallet (a ledger account, `~<id>`) that every token of theirs spends from, unless
// the user is unlimited (then only their team's budget and their tokens' caps bound them). A user is in at most one team.
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/store.js';
import { CachedRecords } from './cached-records.js';

export interface UserRecord {
  id: string;
  name: string;
  /** The group a token of this user gets when none is asked for. */
  group: string;
  /** No wallet bound: the user's requests are still recorded on the wallet, which then goes below 0. */
  unlimited?: boolean;
  disabled?: boolean;
  team?: string;
  created_at: number;
  /** Set when the user was made from tokens of an earlier release (their `--user` label, or the token id). */
  upgraded_from?: string;
}

export const walletOf = (userId: string) => `~${userId}`;
export const isUserId = (s: string) => /^usr_[0-9a-f]{12}$/.test(s);

export class UserStore {
  readonly records: CachedRecords<UserRecord>;

  constructor(private readonly store: Store, cacheMs: number) {
    this.records = new CachedRecords<UserRecord>(store, store.kv('users'), 'usr:', cacheMs);
  }

  /** `initial` units go into the new wallet (its creation topup, counted once however often it is retried). */
  async create(u: { name: string; group: string; unlimited?: boolean; upgradedFrom?: string; id?: string }, initial: number): Promise<UserRecord> {
    const rec: UserRecord = {
      id: u.id ?? `usr_${randomBytes(6).toString('hex')}`, name: u.name, group: u.group, unlimited: u.unlimited || undefined,
      created_at: Math.floor(Date.now() / 1000), upgraded_from: u.upgradedFrom,
    };
    await this.store.quota.createAccount(walletOf(rec.id), initial);
    await this.records.create(rec);
    return rec;
  }

  get(id: string): Promise<UserRecord | undefined> {
    return this.records.get(id);
  }

  /** The user by id, or by name when `ref` is not an id. */
  find(ref: string): Promise<UserRecord | undefined> {
    return this.records.find(ref, isUserId);
  }

  idOfName(name: string): Promise<string | undefined> {
    return this.records.idOfName(name);
  }

  /** A new name takes the old one's place in the index of names. */
  async update(rec: UserRecord): Promise<void> {
    await this.records.putNamed(rec.id, rec);
  }

  list(): Promise<UserRecord[]> {
    return this.records.sorted();
  }
}
