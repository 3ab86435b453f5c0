// TaskCatalog in Redis: a hash per entry and one sorted set per filter combination (everyone, an owner, a family,
// an owner's family), scored by creation time; equal scores sort by id, as SQLite's (created_ms, id) order does.
// Every change and every page is one Lua script. Scripts name the sets of an entry inside, so every key carries the
// one hash tag `{cat}`: on a Redis Cluster the whole catalog is one slot (one master), written once per task
// submit and per removal, which a listing index can afford for the atomic four-set update it buys.
import { LuaScript, type RedisClient } from './redis-client.js';
import type { CatalogEntry, CatalogPage, CatalogQuery, TaskCatalog } from './task-catalog.js';

/** The tasks' catalog; another listing of the same shape (the files') has a prefix of its own. */
export const taskCatalogPrefix = 'sy:task:{cat}:';

// KEYS: the entry's hash and its four sets (everyone, the owner, the family, the owner's family), all declared so a
// cluster slot caught mid-move is refused before a script runs, never halfway. The owner's name is length-prefixed
// (in bytes) so no owner and family pair can spell another's key.

// ARGV: id, user, family, model, created_ms.
const add = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'user', ARGV[2], 'family', ARGV[3], 'model', ARGV[4], 'created_ms', ARGV[5])
for i = 2, 5 do redis.call('ZADD', KEYS[i], ARGV[5], ARGV[1]) end
return 1`);

// ARGV: id, user, family as read before. 1 removed, 0 absent, -1 the entry is not the one read (read again).
const remove = new LuaScript(`
local f = redis.call('HMGET', KEYS[1], 'user', 'family')
if not f[1] then return 0 end
if f[1] ~= ARGV[2] or f[2] ~= ARGV[3] then return -1 end
for i = 2, 5 do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('DEL', KEYS[1])
return 1`);

// KEYS: the filter's set. ARGV: limit + 1, 'asc' | 'desc', and the cursor when there is one. Ids of the page, or
// false (nil) when the cursor is not in the set.
const page = new LuaScript(`
local desc = ARGV[2] == 'desc'
local start = 0
if ARGV[3] then
  local r = desc and redis.call('ZREVRANK', KEYS[1], ARGV[3]) or redis.call('ZRANK', KEYS[1], ARGV[3])
  if not r then return false end
  start = r + 1
end
local stop = start + tonumber(ARGV[1]) - 1
if desc then return redis.call('ZREVRANGE', KEYS[1], start, stop) end
return redis.call('ZRANGE', KEYS[1], start, stop)`);

const keysOf = (prefix: string, id: string, user: string, family: string) =>
  [`${prefix}e:${id}`, `${prefix}all`, `${prefix}u:${user}`, `${prefix}f:${family}`, `${prefix}uf:${Buffer.byteLength(user)}:${user}:${family}`];

/** The set that lists exactly the query's filters. */
function setFor(prefix: string, q: CatalogQuery): string {
  if (q.user !== undefined && q.family !== undefined) return `${prefix}uf:${Buffer.byteLength(q.user)}:${q.user}:${q.family}`;
  if (q.user !== undefined) return `${prefix}u:${q.user}`;
  if (q.family !== undefined) return `${prefix}f:${q.family}`;
  return `${prefix}all`;
}

export class RedisTaskCatalog implements TaskCatalog {
  /** `prefix` ends with `{…}:` so one listing's keys share a cluster slot. */
  constructor(private readonly client: RedisClient, private readonly prefix = taskCatalogPrefix) {}

  async add(e: CatalogEntry): Promise<void> {
    await add.run(this.client, keysOf(this.prefix, e.id, e.user, e.family), [e.id, e.user, e.family, e.model, e.created_ms]);
  }

  async remove(id: string): Promise<void> {
    await this.drop(id);
  }

  /** Reads the entry's owner and family (its keys), then removes it where it was read; again if it changed between. */
  private async drop(id: string): Promise<number> {
    for (;;) {
      const [user, family] = await this.client.hmGet(`${this.prefix}e:${id}`, ['user', 'family']);
      if (user === null || family === null) return 0;
      const r = Number(await remove.run(this.client, keysOf(this.prefix, id, user, family), [id, user, family]));
      if (r !== -1) return r;
    }
  }

  async page(q: CatalogQuery): Promise<CatalogPage | undefined> {
    const args = [q.limit + 1, q.order, ...(q.after === undefined ? [] : [q.after])];
    const ids = (await page.run(this.client, [setFor(this.prefix, q)], args)) as string[] | null;
    if (!ids) return undefined;
    return { ids: ids.slice(0, q.limit), more: ids.length > q.limit };
  }

  async prune(beforeMs: number, limit: number): Promise<number> {
    const ids = await this.client.zRangeByScore(`${this.prefix}all`, '-inf', `(${beforeMs}`, { LIMIT: { offset: 0, count: limit } });
    let n = 0;
    for (const id of ids) n += await this.drop(id);
    return n;
  }
}
