// The client's address, for bounds per address (console sign-ins). A peer on loopback or a private network is taken
// for a proxy in front of the gateway (the shipped nginx): then the address it appended to X-Forwarded-For is the
// client's. A peer on a public address is the client itself, whatever headers it sends.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

const privateRanges = [/^127\./, /^10\./, /^192\.168\./, /^172\.(1[6-9]|2[0-9]|3[01])\./, /^::1$/, /^f[cd][0-9a-f]{2}:/i, /^fe80:/i];

const plain = (a: string) => a.replace(/^::ffff:/i, '');

export function clientAddress(req: IncomingMessage): string {
  const peer = plain(req.socket.remoteAddress ?? 'unknown');
  if (!privateRanges.some((r) => r.test(peer))) return peer;
  const forwarded = req.headers['x-forwarded-for'];
  const last = typeof forwarded === 'string' ? plain(forwarded.split(',').at(-1)!.trim()) : '';
  return isIP(last) ? last : peer;
}
