// JobQueue in Redis: a hash per job and one sorted set per queue scored by the first moment a job may be claimed
// (max of its due time and lease end), so a claim reads only jobs it will take; each change is one script.
import { LuaScript, type RedisClient } from './redis-client.js';
import type { Job, JobQueue } from './job-queue.js';

const score = `
local function rescore(h, zset, id)
  local f = redis.call('HMGET', h, 'due', 'lease_until')
  redis.call('ZADD', zset, math.max(tonumber(f[1]), tonumber(f[2]) + 1), id)
end
`;

// KEYS: job hash, queue zset. ARGV: id, due.
const schedule = new LuaScript(`${score}
redis.call('HSET', KEYS[1], 'due', ARGV[2], 'attempt', 1)
redis.call('HINCRBY', KEYS[1], 'version', 1)
if redis.call('HEXISTS', KEYS[1], 'lease_until') == 0 then redis.call('HSET', KEYS[1], 'lease_until', 0) end
rescore(KEYS[1], KEYS[2], ARGV[1])
return 1`);

// KEYS: queue zset. ARGV: now, lease until, owner, limit, hash prefix. Returns id, attempt, version, ...
const claim = new LuaScript(`${score}
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[4]))) do
  local h = ARGV[5] .. id
  if redis.call('EXISTS', h) == 0 then
    redis.call('ZREM', KEYS[1], id)
  else
    redis.call('HSET', h, 'lease_until', ARGV[2], 'lease_owner', ARGV[3])
    rescore(h, KEYS[1], id)
    local f = redis.call('HMGET', h, 'attempt', 'version')
    out[#out + 1] = id
    out[#out + 1] = f[1]
    out[#out + 1] = f[2]
  end
end
return out`);

// KEYS: job hash, queue zset. ARGV: id, version, 'done' | 'retry', next due.
const finish = new LuaScript(`${score}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then
  redis.call('HSET', KEYS[1], 'lease_until', 0)
  rescore(KEYS[1], KEYS[2], ARGV[1])
  return 0
end
if ARGV[3] == 'done' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('HINCRBY', KEYS[1], 'attempt', 1)
  redis.call('HSET', KEYS[1], 'due', ARGV[4], 'lease_until', 0)
  rescore(KEYS[1], KEYS[2], ARGV[1])
end
return 1`);

export class RedisJobs implements JobQueue {
  private readonly zset: string;
  private readonly prefix: string;

  constructor(private readonly client: RedisClient, queue: string) {
    // One hash tag per queue: a claim's script reads the set and the jobs it takes on one Redis Cluster slot.
    this.zset = `sy:jobs:{q:${queue}}`;
    this.prefix = `sy:job:{q:${queue}}:`;
  }

  async schedule(id: string, dueAt: number): Promise<void> {
    await schedule.run(this.client, [this.prefix + id, this.zset], [id, dueAt]);
  }

  async claim(owner: string, now: number, leaseUntil: number, limit: number): Promise<Job[]> {
    const flat = (await claim.run(this.client, [this.zset], [now, leaseUntil, owner, limit, this.prefix])) as string[];
    const out: Job[] = [];
    for (let i = 0; i < flat.length; i += 3) out.push({ id: flat[i], attempt: Number(flat[i + 1]), version: Number(flat[i + 2]) });
    return out;
  }

  async done(job: Job): Promise<void> {
    await finish.run(this.client, [this.prefix + job.id, this.zset], [job.id, job.version, 'done', 0]);
  }

  async retry(job: Job, dueAt: number): Promise<void> {
    await finish.run(this.client, [this.prefix + job.id, this.zset], [job.id, job.version, 'retry', dueAt]);
  }

  async count(): Promise<number> {
    return this.client.zCard(this.zset);
  }
}
