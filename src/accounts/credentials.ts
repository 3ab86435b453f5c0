// A user's console password, beside the user rather than in the UserRecord (which the request path reads and caches
// on every instance): the `credentials` namespace, one record per user id. `set_at` ends every session opened before
// it, so setting a password anew (a new invite) signs the user out everywhere.
import type Keyv from 'keyv';
import type { Store } from '../store/store.js';
import { hashPassword, verifyPassword, type PasswordHash } from './passwords.js';

export interface Credential extends PasswordHash { set_at: number }

export class Credentials {
  private readonly kv: Keyv;
  /** Verified against when there is no user or no password, so a refusal takes as long whichever it was. */
  private decoy?: Promise<PasswordHash>;

  constructor(store: Store) {
    this.kv = store.kv('credentials');
  }

  /** `hashed`: a hash made beforehand (hashPassword), so the caller can do the slow part before anything else. */
  async set(userId: string, hashed: PasswordHash): Promise<Credential> {
    const rec: Credential = { ...hashed, set_at: Date.now() };
    await this.kv.set(userId, rec);
    return rec;
  }

  get(userId: string): Promise<Credential | undefined> {
    return this.kv.get<Credential>(userId);
  }

  /** Whether `password` is the user's; the same work whether the user exists, has a password, or neither. */
  async check(userId: string | undefined, password: string): Promise<boolean> {
    const rec = userId === undefined ? undefined : await this.get(userId);
    this.decoy ??= hashPassword('a password nobody has');
    const ok = await verifyPassword(password, rec ?? await this.decoy);
    return ok && rec !== undefined;
  }
}
