// Upstream auth schemes: how a channel's secret is attached to an outgoing request.
import { createHash, createHmac } from 'node:crypto';
import type { Auth } from '../types/generated/channels.js';

export interface Outgoing { method: string; host: string; path: string; headers: Record<string, string>; body?: Buffer }

/** Adds the channel's credentials to the outgoing headers; returns the path to send. */
export function applyAuth(auth: Auth, out: Outgoing): string {
  const key = auth.key ?? '';
  const { headers, path } = out;
  switch (auth.scheme) {
    case 'bearer':
      headers.authorization = `Bearer ${key}`;
      return path;
    case 'header':
      headers[auth.header!.toLowerCase()] = `${auth.prefix ?? ''}${key}`;
      return path;
    case 'jwt_hs256':
      headers.authorization = `Bearer ${mintJwt(key, auth.secret ?? '', auth.ttl_s ?? 1800)}`;
      return path;
    case 'hmac_v4':
      signV4(auth, out);
      return path;
    case 'none':
      return path;
  }
  return path;
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');
const jwtHeader = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
// One token per key pair, reused until a minute before expiry so the hot path signs rarely.
const minted = new Map<string, { token: string; until: number }>();
let mintVersion = 0;

/** HS256 JWT with iss=key, cached per key pair. */
export function mintJwt(key: string, secret: string, ttlS: number, now = Date.now()): string {
  const slot = `${key}\u0000${secret}`;
  const cached = minted.get(slot);
  if (cached && cached.until > now) return cached.token;
  const iat = Math.floor(now / 1000);
  const payload = b64url(JSON.stringify({ iss: key, exp: iat + ttlS, nbf: iat - 5 }));
  const sig = createHmac('sha256', secret).update(`${jwtHeader}.${payload}`).digest('base64url');
  const token = `${jwtHeader}.${payload}.${sig}`;
  minted.set(slot, { token, until: now + (ttlS - 60) * 1000 });
  mintVersion++;
  return token;
}

/** Tokens minted from channel secrets are credentials too: the redactor masks the live ones. */
export const mintedSecrets = {
  version: () => mintVersion,
  current: (now: number) => [...minted.values()].filter((m) => m.until + 60_000 > now).map((m) => m.token),
};

const sha256 = (v: string | Buffer) => createHash('sha256').update(v).digest('hex');
const hmac = (k: string | Buffer, v: string) => createHmac('sha256', k).update(v).digest();
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * V4 request signing (HMAC-SHA256 over the canonical request, key chain secret → date → region → service →
 * "request"), as the visual-API family of vendors requires.
 */
export function signV4(auth: Auth, out: Outgoing, now = new Date()): void {
  const xDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const date = xDate.slice(0, 8);
  const [pathname, search = ''] = out.path.split('?');
  const query = search.split('&').filter(Boolean).map((kv) => kv.split('=').map((p) => rfc3986(decodeURIComponent(p ?? ''))))
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, v = '']) => `${k}=${v}`).join('&');
  out.headers['content-type'] ??= 'application/json';
  out.headers['x-date'] = xDate;
  out.headers['x-content-sha256'] = sha256(out.body ?? '');
  const signed: Record<string, string> = {
    'content-type': out.headers['content-type'], host: out.host, 'x-content-sha256': out.headers['x-content-sha256'], 'x-date': xDate,
  };
  const names = Object.keys(signed).sort();
  const canonical = [out.method, pathname || '/', query, names.map((n) => `${n}:${signed[n].trim()}\n`).join(''), names.join(';'), signed['x-content-sha256']].join('\n');
  const scope = `${date}/${auth.region ?? 'cn-north-1'}/${auth.service ?? 'cv'}/request`;
  const toSign = ['HMAC-SHA256', xDate, scope, sha256(canonical)].join('\n');
  const kSigning = ['request'].reduce((k, part) => hmac(k, part),
    hmac(hmac(hmac(auth.secret ?? '', date), auth.region ?? 'cn-north-1'), auth.service ?? 'cv'));
  const signature = createHmac('sha256', kSigning).update(toSign).digest('hex');
  out.headers.authorization = `HMAC-SHA256 Credential=${auth.key}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
}
