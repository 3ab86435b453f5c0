// `hmac_v4`: V4 request signing (HMAC-SHA256 over the canonical request), as the visual-API family of vendors requires.
import { createHash, createHmac } from 'node:crypto';
import type { Auth } from '../../types/generated/channels.js';
import type { Outgoing } from './outgoing.js';

const sha256 = (v: string | Buffer) => createHash('sha256').update(v).digest('hex');
const hmac = (k: string | Buffer, v: string) => createHmac('sha256', k).update(v).digest();
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The query as the vendor reads it (form-urlencoded: split at the first '=', '+' is a space, a '%' that starts no escape
 * stays literal), sorted by decoded name (repeated names keep their order), then each name and value RFC 3986-encoded.
 */
export function canonicalQuery(search: string): string {
  return [...new URLSearchParams(search)]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&');
}

/** The signing key: HMAC-SHA256 applied down a chain, each step keyed by the previous result (secret → date → region → service → "request"). */
export function hmacChain(secret: string | Buffer, parts: string[]): Buffer {
  return parts.reduce<Buffer>((k, part) => hmac(k, part), Buffer.from(secret));
}

/**
 * Signs the request in place: sets content-type (if unset), x-date, x-content-sha256 and authorization. Region and service
 * (credential scope and key chain) come from the channel's auth config.
 */
export function signV4(auth: Auth, out: Outgoing, now = new Date()): void {
  const { region, service } = auth;
  // The config schema requires both with hmac_v4; there is deliberately no vendor default here.
  if (!region || !service) throw new Error('hmac_v4 needs auth.region and auth.service in the channel config');
  const xDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const date = xDate.slice(0, 8);
  const q = out.path.indexOf('?');
  const [pathname, search] = q < 0 ? [out.path, ''] : [out.path.slice(0, q), out.path.slice(q + 1)];
  const query = canonicalQuery(search);
  out.headers['content-type'] ??= 'application/json';
  out.headers['x-date'] = xDate;
  out.headers['x-content-sha256'] = sha256(out.body ?? '');
  const signed: Record<string, string> = {
    'content-type': out.headers['content-type'], host: out.host, 'x-content-sha256': out.headers['x-content-sha256'], 'x-date': xDate,
  };
  const names = Object.keys(signed).sort();
  const canonical = [out.method, pathname || '/', query, names.map((n) => `${n}:${signed[n].trim()}\n`).join(''), names.join(';'), signed['x-content-sha256']].join('\n');
  const scope = `${date}/${region}/${service}/request`;
  const toSign = ['HMAC-SHA256', xDate, scope, sha256(canonical)].join('\n');
  const kSigning = hmacChain(auth.secret ?? '', [date, region, service, 'request']);
  const signature = createHmac('sha256', kSigning).update(toSign).digest('hex');
  out.headers.authorization = `HMAC-SHA256 Credential=${auth.key}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
}

export function hmacV4(auth: Auth, out: Outgoing): void {
  signV4(auth, out);
}
