// Stage, for the console's users (`auth: session`): the session cookie resolves to a live session of an enabled user
// whose password was not set anew since; every method but GET also needs the session's CSRF token in X-CSRF-Token
// and, when the browser names one, an Origin of this gateway. SameSite=Strict already keeps other sites' pages from
// sending the cookie; these checks hold where it does not (an old browser, a sibling subdomain).
import { hash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../http/errors.js';
import { baseUrlOf } from '../http/base-url.js';
import { readSessionCookie } from '../http/cookies.js';
import type { Exchange, Matched, Member } from './exchange.js';

/** Throws session_required (401) and csrf_refused (403); the refusal never says which part failed. */
export async function authenticateSession(ex: Exchange, m: Matched): Promise<Member> {
  const { accounts } = ex.g;
  const id = readSessionCookie(ex.req);
  const session = id === undefined ? undefined : await accounts.sessions.get(id);
  const user = session && await accounts.users.get(session.user);
  const credential = user && await accounts.credentials.get(user.id);
  if (!id || !session || !user || user.disabled || !credential || credential.set_at > session.created_at) {
    throw new GatewayError('session_required');
  }
  if (ex.req.method !== 'GET' && ex.req.method !== 'HEAD') {
    checkOrigin(ex.req);
    if (!sameSecret(ex.req.headers['x-csrf-token'], session.csrf)) throw new GatewayError('csrf_refused').because('X-CSRF-Token missing or not this session\'s');
  }
  return { ...m, user, session, sessionId: id };
}

/** A browser's request from another origin (Origin, or Sec-Fetch-Site) is refused; a client that names none passes. */
export function checkOrigin(req: IncomingMessage): void {
  if (req.headers['sec-fetch-site'] === 'cross-site') throw new GatewayError('csrf_refused').because('Sec-Fetch-Site: cross-site');
  const origin = req.headers.origin;
  if (origin === undefined) return;
  if (hostOf(origin) !== hostOf(baseUrlOf(req))) throw new GatewayError('csrf_refused').because('the Origin is not this gateway\'s');
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/** Compared as digests, in constant time, so neither the token nor its length leaks. */
function sameSecret(got: unknown, want: string): boolean {
  return typeof got === 'string' && timingSafeEqual(hash('sha256', got, 'buffer'), hash('sha256', want, 'buffer'));
}
