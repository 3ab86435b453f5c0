// The secrets the console hands out (invite codes, session ids): 256 random bits each, and kept in the store only as
// their SHA-256, so a copy of the store (a backup, a replica) opens no session and redeems no invite.
import { hash, randomBytes } from 'node:crypto';

export const newSecret = () => randomBytes(32).toString('base64url');

export const digestOf = (secret: string) => hash('sha256', secret, 'hex');

/** A value shaped like a secret of ours: anything else is refused before the store is asked. */
export const isSecret = (v: unknown): v is string => typeof v === 'string' && /^[A-Za-z0-9_-]{43}$/.test(v);
