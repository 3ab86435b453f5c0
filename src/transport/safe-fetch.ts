// The one fetcher for URLs that came from clients: private, loopback, link-local and metadata addresses are refused,
// the vetted address is pinned for the connection (no DNS rebinding), and every redirect hop is checked again.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookup } from 'node:dns/promises';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

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

/**
 * A dns.lookup for agents that connect only to public addresses: every address a name resolves to is checked at
 * connect time, so the address checked is the address used (no second DNS answer can steer the socket).
 */
export function publicOnlyLookup(host: string, opts: LookupOptions, cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void): void {
  dnsLookup(host, { ...opts, all: true }, (err, answers) => {
    if (err) return cb(err, '');
    const list = answers as LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (!list.length || bad) return cb(Object.assign(new UnsafeUrl(`${host} resolves to a private address`), { code: 'EPRIVATE' }), '');
    if (opts.all) cb(null, list);
    else cb(null, list[0].address, list[0].family);
  });
}

export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return blocked.check(mapped[1], 'ipv4');
  return blocked.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

/** Resolves and vets a URL's host; returns the address to connect to. */
export async function vet(url: URL, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeUrl(`scheme ${url.protocol} is not allowed`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const answers = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
  if (!answers.length) throw new UnsafeUrl('host does not resolve');
  // Every answer must be public: otherwise a resolver could hand out a private one on the next lookup.
  if (!allowPrivate && answers.some((a) => isPrivateAddress(a.address))) throw new UnsafeUrl(`${host} resolves to a private address`);
  return answers[0];
}

export interface SafePost { allowPrivate: boolean; timeoutMs: number; maxRedirects?: number }

/** POSTs JSON; follows up to `maxRedirects` redirects, vetting each hop. Resolves with the final status. */
export async function safePostJson(target: string, body: string, opts: SafePost): Promise<number> {
  let url = new URL(target);
  for (let hop = 0; hop <= (opts.maxRedirects ?? 3); hop++) {
    const { address, family } = await vet(url, opts.allowPrivate);
    const res = await postOnce(url, address, family, body, opts.timeoutMs);
    if (res.status < 300 || res.status >= 400 || !res.location) return res.status;
    url = new URL(res.location, url);
  }
  throw new UnsafeUrl('too many redirects');
}

function postOnce(url: URL, address: string, family: number, body: string, timeoutMs: number): Promise<{ status: number; location?: string }> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'switchyard-callback' },
      // Pin the vetted address: the connection cannot be steered elsewhere by a second DNS answer.
      lookup: (_h: string, o: { all?: boolean }, cb: (...args: any[]) => void) => (o?.all ? cb(null, [{ address, family }]) : cb(null, address, family)),
      timeout: timeoutMs,
    });
    req.once('timeout', () => req.destroy(new Error('callback timed out')));
    req.once('error', reject);
    req.once('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: typeof res.headers.location === 'string' ? res.headers.location : undefined });
    });
    req.end(body);
  });
}
