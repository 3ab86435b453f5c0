// Rate windows on Redis, shared by every instance: one hash per window (fields `l` newest sub-window, `s` count,
// `z` slots, and one field per slot), slid by one script in the server's clock, so instances with skewed clocks
// still agree. The script touches exactly its one key, so it runs as well on a Redis Cluster; callers tag keys with
// the token (`{tok_…}`) so one token's windows live on one node. Mirrors slideWindow() (rate-window.ts).
import { LuaScript, type RedisClient } from './redis-client.js';
import type { RateWindows, WindowOp, WindowResult } from './rate-window.js';

const slideScript = new LuaScript(`
  local key = KEYS[1]
  local bucket_ms, buckets = tonumber(ARGV[1]), tonumber(ARGV[2])
  local give, give_bucket, add, take, limit = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  local size = buckets + 1
  local now = tonumber(ARGV[8])
  if now == nil then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  local c = math.floor(now / bucket_ms)
  local h = redis.call('HMGET', key, 'l', 's', 'z')
  local latest, total = tonumber(h[1]), tonumber(h[2])
  local slot = function(i) return tostring(i % size) end
  local count = function(i) return tonumber(redis.call('HGET', key, slot(i))) or 0 end
  if latest == nil or tonumber(h[3]) ~= size or c - latest > buckets then
    redis.call('DEL', key)
    latest, total = c, 0
  elseif c > latest then
    for i = latest + 1, c do
      total = total - count(i)
      redis.call('HDEL', key, slot(i))
    end
    latest = c
  else
    c = latest
  end
  if give > 0 and give_bucket <= c and give_bucket >= c - buckets then
    local d = math.min(give, count(give_bucket))
    if d > 0 then redis.call('HINCRBY', key, slot(give_bucket), -d) end
    total = total - d
  end
  local granted = math.max(0, math.min(take, limit - total - add))
  if add + granted > 0 then redis.call('HINCRBY', key, slot(c), add + granted) end
  total = total + add + granted
  redis.call('HSET', key, 'l', latest, 's', total, 'z', size)
  redis.call('PEXPIRE', key, (latest + size) * bucket_ms - now)
  local retry = 0
  if total >= limit then
    local left = total
    for j = c - buckets, c do
      left = left - count(j)
      if left < limit then retry = (j + size) * bucket_ms - now break end
    end
    if retry == 0 then retry = (c + size) * bucket_ms - now end
  end
  local reset = 0
  for j = c, c - buckets, -1 do
    if count(j) > 0 then reset = (j + size) * bucket_ms - now break end
  end
  return { granted, total, c, (c + 1) * bucket_ms - now, retry, reset }`);

export class RedisRateWindows implements RateWindows {
  constructor(private readonly client: RedisClient) {}

  /** One script call per window; node-redis sends calls made together in one write, so it is one round trip. */
  slide(ops: WindowOp[], at?: number): Promise<WindowResult[]> {
    const args = (op: WindowOp) => [op.spec.bucketMs, op.spec.buckets, op.give, op.giveBucket, op.add, op.take, op.limit, ...(at === undefined ? [] : [at])];
    return Promise.all(ops.map(async (op) => {
      const r = await slideScript.run(this.client, [`sy:rate:${op.key}`], args(op)) as number[];
      return { granted: r[0], total: r[1], bucket: r[2], bucketLeftMs: r[3], retryMs: r[4], resetMs: r[5] };
    }));
  }
}
