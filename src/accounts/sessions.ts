// Console sessions of users: a 256-bit id in an HttpOnly cookie, stored as its hash with the user and the session's
// CSRF token. A session ends after `idleMs` without use (each use moves that on, written at most once a minute) and
// after `maxMs` whatever happens, so a stolen cookie is worth a bounded time; signing out deletes it.
import type Keyv from 'keyv';
import type { Store } from '../store/store.js';
import { digestOf, isSecret, newSecret } from './secrets.js';

export const sessionLimits = { idleMs: 12 * 3600_000, maxMs: 7 * 86400_000 };
const touchEveryMs = 60_000;

export interface SessionRecord { user: string; csrf: string; created_at: number; seen_at: number; expires_at: number }

export class Sessions {
  private readonly kv: Keyv;

  constructor(store: Store) {
    this.kv = store.kv('sessions');
  }

  async open(user: string, now = Date.now()): Promise<{ id: string; session: SessionRecord }> {
    const id = newSecret();
    const session: SessionRecord = { user, csrf: newSecret(), created_at: now, seen_at: now, expires_at: now + sessionLimits.idleMs };
    await this.kv.set(digestOf(id), session, sessionLimits.idleMs);
    return { id, session };
  }

  /** The live session of a cookie's id, its idle expiry moved on; undefined when unknown or ended. */
  async get(id: unknown, now = Date.now()): Promise<SessionRecord | undefined> {
    if (!isSecret(id)) return undefined;
    const key = digestOf(id);
    const s = await this.kv.get<SessionRecord>(key);
    if (!s || s.expires_at <= now || s.created_at + sessionLimits.maxMs <= now) return undefined;
    if (now - s.seen_at < touchEveryMs) return s;
    const next = { ...s, seen_at: now, expires_at: Math.min(now + sessionLimits.idleMs, s.created_at + sessionLimits.maxMs) };
    await this.kv.set(key, next, next.expires_at - now);
    return next;
  }

  async close(id: unknown): Promise<void> {
    if (isSecret(id)) await this.kv.delete(digestOf(id));
  }
}
