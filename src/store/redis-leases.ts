// Leases on Redis, shared by every instance: one sorted set per key (member → its expiry in ms, the score), changed
// only by scripts in the server's clock, so instances with skewed clocks agree. Each script touches exactly its one
// key, so it runs as well on a Redis Cluster. Every write sets the key's expiry to its longest lease: once every lease
// has expired (holders crashed, or nobody came back), the key disappears by itself; nothing needs sweeping.
import { LuaScript, type RedisClient } from './redis-client.js';
import { leaseTtl, type Leases } from './leases.js';

/** The server's clock in ms, and the key without its expired leases (a score at or before now). */
const prelude = `
  local key = KEYS[1]
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local expire_by_longest = function()
    local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
    if last[2] then redis.call('PEXPIRE', key, math.max(1, tonumber(last[2]) - now)) end
  end`;

/** ARGV: member, limit, ttl ms. 1 when the member holds the lease now. */
const acquireScript = new LuaScript(`${prelude}
  local member, limit, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
  if not redis.call('ZSCORE', key, member) and redis.call('ZCARD', key) >= limit then return 0 end
  redis.call('ZADD', key, now + ttl, member)
  expire_by_longest()
  return 1`);

/** ARGV: member, ttl ms. 1 when the lease was live and now runs ttl from now. */
const renewScript = new LuaScript(`${prelude}
  local member, ttl = ARGV[1], tonumber(ARGV[2])
  if not redis.call('ZSCORE', key, member) then return 0 end
  redis.call('ZADD', key, now + ttl, member)
  expire_by_longest()
  return 1`);

/** ARGV: member. */
const releaseScript = new LuaScript(`${prelude}
  redis.call('ZREM', key, ARGV[1])
  expire_by_longest()
  return 0`);

const countScript = new LuaScript(`
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')`);

/**
 * The Redis key of a lease key: `sy:lease:` and the key, hash-tagged so the whole set lives on one cluster slot. A key
 * carrying its own tag (`{tok_…}:realtime`) keeps it, so a token's leases sit on the node of its other keys.
 */
export const leaseKey = (key: string) => (/^[^{]*\{[^}]+\}/.test(key) ? `sy:lease:${key}` : `sy:lease:{${key}}`);

export class RedisLeases implements Leases {
  constructor(private readonly client: RedisClient) {}

  async acquire(key: string, member: string, limit: number, ttlMs: number): Promise<boolean> {
    const ttl = leaseTtl(ttlMs, limit);
    return (await acquireScript.run(this.client, [leaseKey(key)], [member, limit, ttl])) === 1;
  }

  async renew(key: string, member: string, ttlMs: number): Promise<boolean> {
    const ttl = leaseTtl(ttlMs);
    return (await renewScript.run(this.client, [leaseKey(key)], [member, ttl])) === 1;
  }

  async release(key: string, member: string): Promise<void> {
    await releaseScript.run(this.client, [leaseKey(key)], [member]);
  }

  async count(key: string): Promise<number> {
    return Number(await countScript.run(this.client, [leaseKey(key)], []));
  }
}
