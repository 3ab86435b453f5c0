// Fetching URLs the gateway did not choose (a client's callback, a vendor's result URL): private, loopback,
// link-local and metadata addresses are refused. The check runs in the pool's DNS lookup, at connect time, so the
// address checked is the address used (no DNS rebinding), and every redirect hop is checked the same way.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { newPool, send, type Pool, type Target } from './http-client.js';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, bits, 'ipv4');
// ::/96 holds the IPv4-compatible addresses (::127.0.0.1), 2002::/16 (6to4) and 2001::/32 (Teredo) embed IPv4 ones.
for (const [net, bits] of [['::', 96], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2002::', 16], ['2001::', 32]] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

export class UnsafeUrl extends Error {}

export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return blocked.check(mapped[1], 'ipv4');
  return blocked.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

/** A dns.lookup that fails (EPRIVATE, a connect failure) when any address of the name is not public. */
function publicOnlyLookup(host: string, opts: LookupOptions, cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void): void {
  dnsLookup(host, { ...opts, all: true }, (err, answers) => {
    if (err) return cb(err, '');
    const list = answers as LookupAddress[];
    const inner = list.find((a) => isPrivateAddress(a.address));
    if (!list.length || inner) {
      // The address goes to the operator's log (the caller's reason), never to a client.
      return cb(Object.assign(new UnsafeUrl(`${host} resolves to a private address${inner ? ` (${inner.address})` : ''}`), { code: 'EPRIVATE' }), '');
    }
    if (opts.all) cb(null, list);
    else cb(null, list[0].address, list[0].family);
  });
}

/**
 * Pools for foreign URLs: public addresses only, or any address where the operator trusts the network. A pool's
 * connect timeout is its own, so there is one per timeout the config names (a handful).
 */
const pools = new Map<string, Pool>();
function foreignPool(allowPrivate: boolean, connectMs: number): Pool {
  const key = `${allowPrivate}:${connectMs}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = newPool({ connectMs, lookup: allowPrivate ? undefined : publicOnlyLookup });
    pools.set(key, pool);
  }
  return pool;
}

/** A target for a foreign URL; an IP literal (never looked up) is checked here. Throws UnsafeUrl. */
export function foreignTarget(url: URL, allowPrivate: boolean, t: Omit<Target, 'url' | 'pool'>): Target {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeUrl(`scheme ${url.protocol} is not allowed`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) && isPrivateAddress(host)) throw new UnsafeUrl(`${host} is a private address`);
  return { ...t, url, pool: foreignPool(allowPrivate, t.connectMs) };
}

export interface SafePost {
  allowPrivate: boolean;
  timeoutMs: number;
  maxRedirects?: number;
  /** Sent on every hop, over the defaults (a webhook's signature, its own user-agent). */
  headers?: Record<string, string>;
}

/**
 * POSTs JSON to a client's URL; follows up to `maxRedirects` redirects, each hop vetted. Resolves with the final
 * status. A refused address rejects with an UnsafeUrl saying which hop (the first URL, or a redirect) went where.
 */
export async function safePostJson(target: string, body: string, opts: SafePost): Promise<number> {
  let url = new URL(target);
  for (let hop = 0; hop <= (opts.maxRedirects ?? 3); hop++) {
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'switchyard-callback', ...opts.headers };
    const res = await send(foreignTarget(url, opts.allowPrivate, { method: 'POST', headers, body: Buffer.from(body), connectMs: opts.timeoutMs, firstByteMs: opts.timeoutMs })).catch((err: Error) => {
      const unsafe = err instanceof UnsafeUrl ? err : err.cause instanceof UnsafeUrl ? err.cause : undefined;
      throw unsafe && hop > 0 ? new UnsafeUrl(`redirect ${hop} to ${url.host.slice(0, 100)}: ${unsafe.message}`) : unsafe ?? err;
    });
    res.resume();
    const location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
    const status = res.statusCode ?? 0;
    if (status < 300 || status >= 400 || !location) return status;
    url = new URL(location, url);
  }
  throw new UnsafeUrl('too many redirects');
}
