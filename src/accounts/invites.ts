// Invites: the operator mints a link for a user, who opens it and sets a password. A code is a 256-bit secret stored
// as its hash, good for one use within `inviteTtlMs`, and a user has one live invite at a time (a new one voids the
// last). Its record outlives the expiry by a month, so a late click is told "expired" rather than "unknown".
import type Keyv from 'keyv';
import type { Store } from '../store/store.js';
import { digestOf, isSecret, newSecret } from './secrets.js';

export const inviteTtlMs = 72 * 3600_000;
const keptAfterExpiry = 30 * 86400_000;

export interface InviteRecord { user: string; created_at: number; expires_at: number; used_at?: number }

export type Redeemed = { user: string } | { refused: 'unknown' | 'used' | 'expired' };

/** The page that takes an invite: the code rides in the fragment, which browsers never send to a server or a Referer. */
export const inviteLink = (base: string, code: string) => `${base.replace(/\/+$/, '')}/console#invite=${code}`;

export class Invites {
  private readonly kv: Keyv;

  constructor(private readonly store: Store) {
    this.kv = store.kv('invites');
  }

  async mint(userId: string, now = Date.now()): Promise<{ code: string; expires_at: number }> {
    const code = newSecret();
    const digest = digestOf(code);
    const keep = inviteTtlMs + keptAfterExpiry;
    const last = await this.kv.get<string>(`user:${userId}`);
    if (last) await this.kv.delete(`code:${last}`);
    const rec: InviteRecord = { user: userId, created_at: now, expires_at: now + inviteTtlMs };
    await this.kv.set(`code:${digest}`, rec, keep);
    await this.kv.set(`user:${userId}`, digest, keep);
    return { code, expires_at: rec.expires_at };
  }

  /**
   * Uses the invite up. Of instances racing with one code, exactly one wins: the claim is a lease of limit 1 on the
   * code in the shared store, held past the invite's expiry, so it can never be taken twice.
   */
  async redeem(code: unknown, now = Date.now()): Promise<Redeemed> {
    if (!isSecret(code)) return { refused: 'unknown' };
    const digest = digestOf(code);
    const rec = await this.kv.get<InviteRecord>(`code:${digest}`);
    if (!rec) return { refused: 'unknown' };
    if (rec.used_at !== undefined) return { refused: 'used' };
    if (rec.expires_at <= now) return { refused: 'expired' };
    const won = await this.store.leases.acquire(`invite:${digest}`, newSecret(), 1, rec.expires_at - now + 3600_000);
    if (!won) return { refused: 'used' };
    await this.kv.set(`code:${digest}`, { ...rec, used_at: now }, rec.expires_at + keptAfterExpiry - now);
    return { user: rec.user };
  }
}
