// TaskIndex in Redis: every check-and-change is one Lua script, so instances never race on a slot or a lease.
import { LuaScript, type RedisClient } from './redis-client.js';
import type { OpenTask, PendingTask, TaskIndex } from './task-index.js';

// Layout: a hash per open task (grp, channel, next, lease_until, lease_owner), a set of open ids per group (its
// size is the in-flight count), and a sorted set `due` per group holding its open ids. A task's score in `due` is the
// first moment it may be claimed: +inf while it has no channel, else max(next, lease_until + 1). Every script
// that changes those fields recomputes the score, so "score <= now" is exactly SQLite's claim condition
// (next_poll_at <= now AND lease_until < now AND channel != '') and a claim reads only tasks it will take, then
// leases each in a script of its own that checks the score again (another instance may have taken it meanwhile).
// All of a group's keys carry its hash tag `{g:<group>}` (sy:task:{g:<group>}:open:<id>, …:slots, …:due), so every
// script runs on one Redis Cluster slot and declares every key it touches; a claim visits the groups in turn. Two
// indexes in slots of their own, written before the task they name: sy:task:groups (every group) and
// sy:task:at:<id> (its group).
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

// KEYS: task, due. ARGV: id, now, lease until, owner. The task's channel when it was still due and is now leased,
// else false. Taking the lease moves the score past the lease, so another instance's claim no longer sees the task.
// One task per call, its keys declared: on a cluster a slot caught mid-move is refused before the script runs.
const claimOne = new LuaScript(`${score}
local channel = redis.call('HGET', KEYS[1], 'channel')
if not channel then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return false
end
local s = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]) or '')
if not s or s > tonumber(ARGV[2]) then return false end
redis.call('HSET', KEYS[1], 'lease_until', ARGV[3], 'lease_owner', ARGV[4])
redis.call('ZADD', KEYS[2], score(KEYS[1]), ARGV[1])
return channel`);

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

// KEYS: task, due, group set. ARGV: id. Frees the group's slot in the same step as the task goes.
const close = new LuaScript(`
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`);

const groupKeys = (group: string) => {
  const g = `sy:task:{g:${group}}:`;
  return { task: (id: string) => `${g}open:${id}`, slots: `${g}slots`, due: `${g}due` };
};
const groupsKey = 'sy:task:groups';
const groupOf = (id: string) => `sy:task:at:${id}`;

export class RedisTaskIndex implements TaskIndex {
  /** Groups this process has put in the groups index (groups are never taken out: they are few and come from config). */
  private readonly listed = new Set<string>();

  /** `owner`: this process's id (Store.instance), recorded on the tasks it opens. */
  constructor(private readonly client: RedisClient, private readonly owner = '') {}

  async open(id: string, group: string, limit: number | undefined, nextPollAt: number): Promise<boolean> {
    const k = groupKeys(group);
    const [pointed] = await Promise.all([
      this.client.set(groupOf(id), group, { condition: 'NX' }),
      this.listed.has(group) ? undefined : this.client.sAdd(groupsKey, group).then(() => { this.listed.add(group); }),
    ]);
    // The id is already open (in this group the script says so; in another one, its pointer does).
    if (pointed === null && (await this.client.get(groupOf(id))) !== group) return false;
    const r = Number(await open.run(this.client, [k.task(id), k.slots, k.due],
      [id, group, limit ?? Number.MAX_SAFE_INTEGER, nextPollAt, this.owner, Date.now()]));
    // The group is full: the pointer this call wrote goes.
    if (r !== 1 && pointed !== null) await this.client.del(groupOf(id));
    return r === 1;
  }

  /** The keys of a task's group, or undefined when the task is not open. */
  private async keysOf(id: string) {
    const group = await this.client.get(groupOf(id));
    return group === null ? undefined : groupKeys(group);
  }

  private async groups(): Promise<string[]> {
    return this.client.sMembers(groupsKey);
  }

  async setChannel(id: string, channel: string): Promise<boolean> {
    const k = await this.keysOf(id);
    return k !== undefined && Number(await setChannel.run(this.client, [k.task(id), k.due], [id, channel])) === 1;
  }

  /** A leased task is scored past its lease end, so only tasks scored after `now` (and before +inf) can be. */
  async leased(now: number): Promise<{ id: string; owner: string }[]> {
    const perGroup = await Promise.all((await this.groups()).map(async (group) => {
      const k = groupKeys(group);
      const ids = await this.client.zRangeByScore(k.due, `(${now}`, '(+inf');
      const rows = await Promise.all(ids.map((id) => this.client.hmGet(k.task(id), ['lease_until', 'lease_owner'])));
      return ids.flatMap((id, i) => (Number(rows[i][0] ?? 0) >= now ? [{ id, owner: rows[i][1] ?? '' }] : []));
    }));
    return perGroup.flat();
  }

  /** Channel-less tasks are exactly those scored +inf in their group's `due`. */
  async pending(): Promise<PendingTask[]> {
    const perGroup = await Promise.all((await this.groups()).map(async (group) => {
      const k = groupKeys(group);
      const ids = await this.client.zRangeByScore(k.due, '+inf', '+inf');
      const rows = await Promise.all(ids.map((id) => this.client.hmGet(k.task(id), ['owner', 'opened_at'])));
      return ids.flatMap((id, i) => (rows[i][0] === null && rows[i][1] === null ? [] : [{ id, owner: rows[i][0] ?? '', opened_at: Number(rows[i][1] ?? 0) }]));
    }));
    return perGroup.flat();
  }

  /** Group by group, starting at a random one so a busy group cannot keep the others' due tasks waiting. */
  async claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<OpenTask[]> {
    const groups = await this.groups();
    const from = Math.floor(Math.random() * groups.length);
    const out: OpenTask[] = [];
    for (let i = 0; i < groups.length && out.length < limit; i++) {
      const k = groupKeys(groups[(from + i) % groups.length]);
      // A task another claimer took in between is scored past `now` by then, so reading again skips it.
      for (;;) {
        const ids = await this.client.zRangeByScore(k.due, '-inf', now, { LIMIT: { offset: 0, count: limit - out.length } });
        if (!ids.length) break;
        const channels = await Promise.all(ids.map((id) => claimOne.run(this.client, [k.task(id), k.due], [id, now, leaseUntil, owner])));
        ids.forEach((id, j) => { if (typeof channels[j] === 'string') out.push({ id, channel: channels[j] as string }); });
        if (out.length >= limit) break;
      }
    }
    return out;
  }

  async lease(id: string, owner: string, now: number, leaseUntil: number): Promise<boolean> {
    const k = await this.keysOf(id);
    return k !== undefined && Number(await lease.run(this.client, [k.task(id), k.due], [id, owner, now, leaseUntil])) === 1;
  }

  async reschedule(id: string, nextPollAt: number): Promise<void> {
    const k = await this.keysOf(id);
    if (k) await reschedule.run(this.client, [k.task(id), k.due], [id, nextPollAt]);
  }

  async close(id: string): Promise<void> {
    const k = await this.keysOf(id);
    if (!k) return;
    await close.run(this.client, [k.task(id), k.due, k.slots], [id]);
    await this.client.del(groupOf(id));
  }

  async count(): Promise<number> {
    const counts = await Promise.all((await this.groups()).map((g) => this.client.zCard(groupKeys(g).due)));
    return counts.reduce((a, b) => a + b, 0);
  }
}
