// Console passwords: scrypt (node:crypto) with a salt per password, compared in constant time. The parameters are
// stored with each hash, so raising them later leaves the passwords set before still verifiable.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface PasswordHash { algo: 'scrypt'; n: number; r: number; p: number; salt: string; hash: string }

/** Characters (code points): 12 at least, the length guessing needs to be hopeless; 256 at most, to bound the work. */
export const passwordLength = { min: 12, max: 256 } as const;

// N = 2^15, r = 8: 32 MiB and some 50-100 ms a hash, off the event loop (libuv's pool).
const cost = { n: 1 << 15, r: 8, p: 1 };
const keyLength = 32;

const derive = (password: string, salt: Buffer, c: { n: number; r: number; p: number }) => new Promise<Buffer>((resolve, reject) => {
  const opts: ScryptOptions = { N: c.n, r: c.r, p: c.p, maxmem: 256 * c.n * c.r };
  scrypt(password.normalize('NFC'), salt, keyLength, opts, (err, key) => (err ? reject(err) : resolve(key)));
});

/** What is wrong with a password (for a 400 naming the field), or undefined when it will do. */
export function passwordProblem(v: unknown): string | undefined {
  if (typeof v !== 'string') return 'must be a string';
  const length = [...v].length;
  if (length < passwordLength.min) return `must be at least ${passwordLength.min} characters`;
  if (length > passwordLength.max) return `must be at most ${passwordLength.max} characters`;
  if (!v.trim()) return 'must not be only spaces';
  return undefined;
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return { algo: 'scrypt', ...cost, salt: salt.toString('base64'), hash: key.toString('base64') };
}

export async function verifyPassword(password: string, h: PasswordHash): Promise<boolean> {
  const want = Buffer.from(h.hash, 'base64');
  const got = await derive(password, Buffer.from(h.salt, 'base64'), h);
  return got.length === want.length && timingSafeEqual(got, want);
}
