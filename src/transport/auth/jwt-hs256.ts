// `jwt_hs256`: Authorization: Bearer <HS256 JWT with iss = key, exp, nbf>, signed with the channel's secret.
import { createHmac } from 'node:crypto';
import type { Auth } from '../../types/generated/channels.js';
import type { Outgoing } from './outgoing.js';

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');
const jwtHeader = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
// One token per key pair, reused until a minute before expiry so the hot path signs rarely.
const minted = new Map<string, { token: string; until: number }>();
let mintVersion = 0;

/** The JWS HS256 signature (RFC 7515 §3.1, RFC 7518 §3.2): base64url(HMAC-SHA256(secret, signing input)). */
export function hs256(signingInput: string, secret: string | Buffer): string {
  return createHmac('sha256', secret).update(signingInput).digest('base64url');
}

/** HS256 JWT with iss = key, exp = now + ttl, nbf = now - 5 s, cached per key pair until a minute before it expires. */
export function mintJwt(key: string, secret: string, ttlS: number, now = Date.now()): string {
  const slot = `${key}\u0000${secret}`;
  const cached = minted.get(slot);
  if (cached && cached.until > now) return cached.token;
  const iat = Math.floor(now / 1000);
  const payload = b64url(JSON.stringify({ iss: key, exp: iat + ttlS, nbf: iat - 5 }));
  const token = `${jwtHeader}.${payload}.${hs256(`${jwtHeader}.${payload}`, secret)}`;
  minted.set(slot, { token, until: now + (ttlS - 60) * 1000 });
  mintVersion++;
  return token;
}

/** Tokens minted from channel secrets are credentials too: the redactor masks the live ones. */
export const mintedSecrets = {
  version: () => mintVersion,
  current: (now: number) => [...minted.values()].filter((m) => m.until + 60_000 > now).map((m) => m.token),
};

export function jwtHs256(auth: Auth, out: Outgoing): void {
  out.headers.authorization = `Bearer ${mintJwt(auth.key ?? '', auth.secret ?? '', auth.ttl_s ?? 1800)}`;
}
