// Short-lived secrets a token holder mints for a browser (a `client_secret` route), so the page never holds the
// long-lived key. A secret is random, kept only as its hash in the store until it expires, and stands for its token
// on the routes its route names, for its model only; a revoked or expired token makes its secrets worthless at once.
import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../store/open-store.js';
import type { TokenRecord, TokenStore } from '../store/token-store.js';
import type { CompiledClientSecret } from '../config/compile-realtime.js';

/** What a secret grants: its token, where, for which model, with which session settings, until when (unix seconds). */
export interface SecretGrant { token: string; routes: string[]; model?: string; session?: Record<string, unknown>; expires_at: number }

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

export class ClientSecrets {
  constructor(private readonly store: Store, private readonly tokens: TokenStore) {}

  private get kv() {
    return this.store.kv('client_secrets');
  }

  /** A new secret for `token`: its value (shown once) and when it expires. */
  async mint(rule: CompiledClientSecret, token: TokenRecord, ttlS: number, model?: string, session?: Record<string, unknown>): Promise<{ value: string; grant: SecretGrant }> {
    const value = `${rule.prefix}${randomBytes(24).toString('base64url')}`;
    const grant: SecretGrant = { token: token.id, routes: [...rule.for], model, session, expires_at: Math.floor(Date.now() / 1000) + ttlS };
    await this.kv.set(hashOf(value), grant, ttlS * 1000);
    return { value, grant };
  }

  /** The live token and grant a secret stands for on `route`; undefined for anything else (one answer for every case). */
  async open(value: string, route: string): Promise<{ token: TokenRecord; grant: SecretGrant } | undefined> {
    const grant = await this.kv.get<SecretGrant>(hashOf(value));
    if (!grant || grant.expires_at * 1000 <= Date.now() || !grant.routes.includes(route)) return undefined;
    const token = await this.tokens.byId(grant.token);
    if (!token || token.revoked || (token.expires_at && token.expires_at * 1000 <= Date.now())) return undefined;
    return { token, grant };
  }
}
