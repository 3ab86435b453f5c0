// The console session's cookie: read from a request's Cookie header, written HttpOnly (no script reads it),
// SameSite=Strict (no other site's page sends it) and, when the request came over TLS, Secure under the `__Host-`
// prefix (which browsers accept only Secure, on Path=/ and without Domain, so no subdomain can plant one).
import type { IncomingMessage } from 'node:http';

const baseName = 'sy_session';

/** Whether the client reached us over TLS: our own listener's, or a proxy's that says so. */
export function overTls(req: IncomingMessage): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  return String(req.headers['x-forwarded-proto'] ?? '').split(',')[0].trim() === 'https';
}

export const sessionCookieName = (req: IncomingMessage) => (overTls(req) ? `__Host-${baseName}` : baseName);

/** The session cookie's value, or undefined; a header of many cookies is read only as far as needed. */
export function readSessionCookie(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== 'string' || header.length > 8192) return undefined;
  const name = sessionCookieName(req);
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** `maxAgeS` 0 clears the cookie (signing out). */
export function sessionCookie(req: IncomingMessage, value: string, maxAgeS: number): string {
  return `${sessionCookieName(req)}=${value}; Path=/; Max-Age=${maxAgeS}; HttpOnly; SameSite=Strict${overTls(req) ? '; Secure' : ''}`;
}
