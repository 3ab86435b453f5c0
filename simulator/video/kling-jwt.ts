// Kling's per-request HS256 JWT (iss = access key, exp, nbf): a signer for tests and the verifier behind codes 1000–1004.
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Access key → secret key pairs the simulator accepts. Mutable on purpose: a test can add its own pair
 * (`KLING_KEYS['my-ak'] = 'my-sk'`) before sending requests.
 */
export const KLING_KEYS: Record<string, string> = { 'sim-ak': 'sim-sk' };

export interface KlingAuthError {
  code: 1000 | 1001 | 1002 | 1003 | 1004;
  message: string;
}

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/** Builds a token exactly like Kling's docs (exp = now+1800, nbf = now-5); overrides let tests forge bad ones. */
export function signKlingJwt(ak: string, sk: string, claims: { exp?: number; nbf?: number; iss?: string } = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ iss: claims.iss ?? ak, exp: claims.exp ?? now + 1800, nbf: claims.nbf ?? now - 5 }));
  const sig = createHmac('sha256', sk).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${sig}`;
}

function decodePart(part: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The `iss` of a well-formed token, unverified: lets scripted faults be keyed by access key. */
export function jwtIssuer(token: string): string | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const iss = decodePart(parts[1])?.iss;
  return typeof iss === 'string' ? iss : undefined;
}

/** Returns the access key on success, or Kling's error: 1001 empty, 1002 malformed, 1000 bad signature/issuer, 1003 nbf, 1004 exp. */
export function verifyKlingAuth(authorization: string | undefined, keys: Record<string, string> = KLING_KEYS): { ak: string } | KlingAuthError {
  if (!authorization?.trim()) return { code: 1001, message: 'Authorization is empty' };
  const m = /^Bearer\s+(\S+)$/.exec(authorization.trim());
  const parts = m ? m[1].split('.') : [];
  const header = parts.length === 3 ? decodePart(parts[0]) : undefined;
  const payload = parts.length === 3 ? decodePart(parts[1]) : undefined;
  if (!header || !payload || header.alg !== 'HS256' || typeof payload.iss !== 'string' || typeof payload.exp !== 'number') {
    return { code: 1002, message: 'Authorization is invalid' };
  }
  const sk = Object.hasOwn(keys, payload.iss) ? keys[payload.iss] : undefined;
  const expected = sk === undefined ? undefined : createHmac('sha256', sk).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (!expected || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { code: 1000, message: 'Auth failed' };
  }
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.nbf === 'number' && payload.nbf > now) return { code: 1003, message: 'Authorization is not active yet' };
  if (payload.exp <= now) return { code: 1004, message: 'Authorization has expired' };
  return { ak: payload.iss };
}
