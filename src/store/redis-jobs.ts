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

// KEYS: job hash, queue zset. ARGV: id, now, lease until, owner. {attempt, version} when the job was still due and
// is now leased, else false. One job per call with its keys declared, so a cluster slot caught mid-move is refused
// before the script runs instead of failing it halfway.
const claimOne = new LuaScript(`${score}
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return false
end
local s = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]) or '')
if not s or s > tonumber(ARGV[2]) then return false end
redis.call('HSET', KEYS[1], 'lease_until', ARGV[3], 'lease_owner', ARGV[4])
rescore(KEYS[1], KEYS[2], ARGV[1])
return redis.call('HMGET', KEYS[1], 'attempt', 'version')`);

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
    const out: Job[] = [];
    // A job another claimer took in between is scored past `now` by then, so reading again skips it.
    while (out.length < limit) {
      const ids = await this.client.zRangeByScore(this.zset, '-inf', now, { LIMIT: { offset: 0, count: limit - out.length } });
      if (!ids.length) break;
      const got = await Promise.all(ids.map((id) => claimOne.run(this.client, [this.prefix + id, this.zset], [id, now, leaseUntil, owner])));
      ids.forEach((id, i) => {
        const f = got[i] as [string, string] | null;
        if (f) out.push({ id, attempt: Number(f[0]), version: Number(f[1]) });
      });
    }
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
