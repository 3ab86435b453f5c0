// The console's users signing in and out. Anyone may try (`auth: false`), so every refusal says as little as it can:
// a wrong name, a wrong password, a user without a password and a disabled user all get the same 401, after the same
// work; failures are bounded per account and per address (429 with Retry-After); the page's own origin and a JSON
// body are required, so another site's form or script cannot sign someone in or out.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { clientAddress } from '../http/client-address.js';
import { sessionCookie } from '../http/cookies.js';
import { readJson } from '../pipeline/read-request.js';
import { checkOrigin } from '../pipeline/authenticate-session.js';
import type { Exchange, Matched, Member } from '../pipeline/exchange.js';
import type { Attempt } from '../accounts/sign-in-limits.js';
import { sessionLimits } from '../accounts/sessions.js';

/** POST /console/api/sign-in {name, password}: a session cookie and the session's CSRF token. */
export async function signIn(ex: Exchange, m: Matched): Promise<void> {
  const { accounts } = ex.g;
  const { name, password } = (await readSignedOut(ex, m)) as { name: string; password: string };
  const attempt = await gate(ex, name);
  const id = await accounts.users.idOfName(name);
  const user = id === undefined ? undefined : await accounts.users.get(id);
  const ok = await accounts.credentials.check(user && !user.disabled ? user.id : undefined, password);
  if (!ok || !user) throw new GatewayError('invalid_credentials').because('console sign-in refused (wrong name or password, or a disabled user)');
  await accounts.signIns.forgive(attempt);
  const { id: sessionId, session } = await accounts.sessions.open(user.id);
  sendJson(ex.res, 200, {
    object: 'session', user: { id: user.id, name: user.name }, csrf_token: session.csrf, expires_at: Math.floor(session.expires_at / 1000),
  }, { 'set-cookie': sessionCookie(ex.req, sessionId, sessionLimits.maxMs / 1000), 'cache-control': 'no-store' });
}

/** POST /console/api/sign-out: the session is deleted in the store and its cookie cleared. */
export async function signOut(ex: Exchange, m: Member): Promise<void> {
  await ex.g.accounts.sessions.close(m.sessionId);
  sendJson(ex.res, 200, { object: 'session', signed_out: true }, { 'set-cookie': sessionCookie(ex.req, '', 0) });
}

/** The body of a signed-out call: from this origin (when the browser says), as JSON, checked against its schema. */
export async function readSignedOut(ex: Exchange, m: Matched): Promise<Record<string, unknown>> {
  checkOrigin(ex.req);
  if (!isJson(ex.req)) throw new GatewayError('unsupported_media_type', 'This route takes a JSON body (Content-Type: application/json)');
  return readJson(ex, m.route);
}

/** Takes an attempt from the address's window (and the account's, when one is named), or answers 429. */
export async function gate(ex: Exchange, account?: string): Promise<Attempt> {
  const g = await ex.g.accounts.signIns.take(clientAddress(ex.req), account);
  if ('attempt' in g) return g.attempt;
  throw new GatewayError('too_many_requests', 'Too many failed attempts; retry later', { headers: { 'retry-after': String(g.retryAfterS) } })
    .because('console sign-in attempts over their bound (per account or per address)');
}

const isJson = (req: IncomingMessage) => /^application\/json\s*(;|$)/i.test(String(req.headers['content-type'] ?? ''));
