// TaskIndex in Redis: every check-and-change is one Lua script, so instances never race on a slot or a lease.
import { LuaScript, type RedisClient } from './redis-client.js';
import type { OpenTask, PendingTask, TaskIndex } from './task-index.js';

// Layout: a hash per open task (grp, channel, next, lease_until, lease_owner), a set of open ids per group (its
// size is the in-flight count), and one sorted set `due` holding every open id. A task's score in `due` is the
// first moment it may be claimed: +inf while it has no channel, else max(next, lease_until + 1). Every script
// that changes those fields recomputes the score, so "score <= now" is exactly SQLite's claim condition
// (next_poll_at <= now AND lease_until < now AND channel != '') and a claim reads only tasks it will take.
// claimDue and close reach task hashes and group sets named inside the script: this needs one Redis node
// (or a primary with replicas), not Redis Cluster.
const score = `
local function score(h)
  local f = redis.call('HMGET', h, 'channel', 'next', 'lease_until')
  if f[1] == '' then return '+inf' end
  return string.format('%d', math.max(tonumber(f[2]), tonumber(f[3]) + 1))
end
`;

// KEYS: task, group set, due. ARGV: id, group, limit, next, owner, now. The count and the insert happen in one
// script, so two submits racing for the group's last slot cannot both see room.
const open = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], 'grp', ARGV[2], 'channel', '', 'next', ARGV[4], 'lease_until', '0', 'lease_owner', '',
  'owner', ARGV[5], 'opened_at', ARGV[6])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], '+inf', ARGV[1])
return 1`);

// KEYS: task, due. ARGV: id, channel.
const setChannel = new LuaScript(`${score}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'channel', ARGV[2])
redis.call('ZADD', KEYS[2], score(KEYS[1]), ARGV[1])
return 1`);

// KEYS: due. ARGV: now, lease until, owner, limit, task key prefix. Returns id, channel, id, channel, ...
// Taking the lease moves the score past the lease, so another instance's claim no longer sees the task.
const claim = new LuaScript(`${score}
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[4]))) do
  local h = ARGV[5] .. id
  local channel = redis.call('HGET', h, 'channel')
  if not channel then
    redis.call('ZREM', KEYS[1], id)
  else
    redis.call('HSET', h, 'lease_until', ARGV[2], 'lease_owner', ARGV[3])
    redis.call('ZADD', KEYS[1], score(h), id)
    out[#out + 1] = id
    out[#out + 1] = channel
  end
end
return out`);

// KEYS: task, due. ARGV: id, owner, now, lease until. Free (lease expired) or already ours → take it.
const lease = new LuaScript(`${score}
local f = redis.call('HMGET', KEYS[1], 'lease_until', 'lease_owner')
if not f[1] then return 0 end
if not (tonumber(f[1]) < tonumber(ARGV[3]) or f[2] == ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'lease_until', ARGV[4], 'lease_owner', ARGV[2])
redis.call('ZADD', KEYS[2], score(KEYS[1]), ARGV[1])
return 1`);

// KEYS: task, due. ARGV: id, next.
const reschedule = new LuaScript(`${score}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'next', ARGV[2], 'lease_until', '0', 'lease_owner', '')
redis.call('ZADD', KEYS[2], score(KEYS[1]), ARGV[1])
return 1`);

// KEYS: task, due. ARGV: id, group key prefix. Frees the group's slot in the same step as the task goes.
const close = new LuaScript(`
local grp = redis.call('HGET', KEYS[1], 'grp')
if grp then redis.call('SREM', ARGV[2] .. grp, ARGV[1]) end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`);

const prefix = { task: 'sy:task:open:', group: 'sy:task:grp:' };
const due = 'sy:task:due';
const task = (id: string) => `${prefix.task}${id}`;

export class RedisTaskIndex implements TaskIndex {
  /** `owner`: this process's id (Store.instance), recorded on the tasks it opens. */
  constructor(private readonly client: RedisClient, private readonly owner = '') {}

  async open(id: string, group: string, limit: number | undefined, nextPollAt: number): Promise<boolean> {
    const r = await open.run(this.client, [task(id), `${prefix.group}${group}`, due],
      [id, group, limit ?? Number.MAX_SAFE_INTEGER, nextPollAt, this.owner, Date.now()]);
    return Number(r) === 1;
  }

  async setChannel(id: string, channel: string): Promise<boolean> {
    return Number(await setChannel.run(this.client, [task(id), due], [id, channel])) === 1;
  }

  /** A leased task is scored past its lease end, so only tasks scored after `now` (and before +inf) can be. */
  async leased(now: number): Promise<{ id: string; owner: string }[]> {
    const ids = await this.client.zRangeByScore(due, `(${now}`, '(+inf');
    const rows = await Promise.all(ids.map((id) => this.client.hmGet(task(id), ['lease_until', 'lease_owner'])));
    return ids.flatMap((id, i) => (Number(rows[i][0] ?? 0) >= now ? [{ id, owner: rows[i][1] ?? '' }] : []));
  }

  /** Channel-less tasks are exactly those scored +inf in `due`. */
  async pending(): Promise<PendingTask[]> {
    const ids = await this.client.zRangeByScore(due, '+inf', '+inf');
    const rows = await Promise.all(ids.map((id) => this.client.hmGet(task(id), ['owner', 'opened_at'])));
    return ids.flatMap((id, i) => (rows[i][0] === null && rows[i][1] === null ? [] : [{ id, owner: rows[i][0] ?? '', opened_at: Number(rows[i][1] ?? 0) }]));
  }

  async claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<OpenTask[]> {
    if (limit <= 0) return [];
    const flat = (await claim.run(this.client, [due], [now, leaseUntil, owner, limit, prefix.task])) as string[];
    const out: OpenTask[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ id: flat[i], channel: flat[i + 1] });
    return out;
  }

  async lease(id: string, owner: string, now: number, leaseUntil: number): Promise<boolean> {
    return Number(await lease.run(this.client, [task(id), due], [id, owner, now, leaseUntil])) === 1;
  }

  async reschedule(id: string, nextPollAt: number): Promise<void> {
    await reschedule.run(this.client, [task(id), due], [id, nextPollAt]);
  }

  async close(id: string): Promise<void> {
    await close.run(this.client, [task(id), due], [id, prefix.group]);
  }

  async count(): Promise<number> {
    return this.client.zCard(due);
  }
}
