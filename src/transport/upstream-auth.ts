// Upstream auth schemes: how a channel's secret is attached to an outgoing request.
import { createHmac } from 'node:crypto';
import type { Auth } from '../types/generated/channels.js';

/** Adds the channel's credentials to headers or path; returns the (possibly extended) path. */
export function applyAuth(auth: Auth, headers: Record<string, string>, path: string): string {
  const key = auth.key ?? '';
  switch (auth.scheme) {
    case 'bearer':
      headers.authorization = `Bearer ${key}`;
      return path;
    case 'header':
      headers[auth.header!.toLowerCase()] = `${auth.prefix ?? ''}${key}`;
      return path;
    case 'query':
      return `${path}${path.includes('?') ? '&' : '?'}${encodeURIComponent(auth.param!)}=${encodeURIComponent(key)}`;
    case 'jwt_hs256':
      headers.authorization = `Bearer ${mintJwt(key, auth.secret ?? '', auth.ttl_s ?? 1800)}`;
      return path;
    case 'none':
      return path;
  }
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');
const jwtHeader = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
let cached: { key: string; token: string; until: number } | undefined;

/** HS256 JWT with iss=key; reused until a minute before expiry so the hot path signs rarely. */
export function mintJwt(key: string, secret: string, ttlS: number, now = Date.now()): string {
  if (cached && cached.key === `${key}\u0000${secret}` && cached.until > now) return cached.token;
  const iat = Math.floor(now / 1000);
  const payload = b64url(JSON.stringify({ iss: key, exp: iat + ttlS, nbf: iat - 5 }));
  const sig = createHmac('sha256', secret).update(`${jwtHeader}.${payload}`).digest('base64url');
  const token = `${jwtHeader}.${payload}.${sig}`;
  cached = { key: `${key}\u0000${secret}`, token, until: now + (ttlS - 60) * 1000 };
  return token;
}
