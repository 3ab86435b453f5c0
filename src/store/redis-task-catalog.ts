// TaskCatalog in Redis: a hash per entry and one sorted set per filter combination (everyone, an owner, a family,
// an owner's family), scored by creation time; equal scores sort by id, as SQLite's (created_ms, id) order does.
// Every change and every page is one Lua script. Scripts name the sets of an entry inside, so every key carries the
// one hash tag `{cat}`: on a Redis Cluster the whole catalog is one slot (one master), written once per task
// submit and per removal, which a listing index can afford for the atomic four-set update it buys.
import { LuaScript, type RedisClient } from './redis-client.js';
import type { CatalogEntry, CatalogPage, CatalogQuery, TaskCatalog } from './task-catalog.js';

const prefix = 'sy:task:{cat}:';
const all = `${prefix}all`;

// The four sets an entry is in. The owner's name is length-prefixed (in bytes, as Lua counts) so no owner and family
// pair can spell another's key.
const setsOf = `
local function sets(p, user, family)
  return { p .. 'all', p .. 'u:' .. user, p .. 'f:' .. family, p .. 'uf:' .. string.len(user) .. ':' .. user .. ':' .. family }
end
local function drop(p, id)
  local f = redis.call('HMGET', p .. 'e:' .. id, 'user', 'family')
  if not f[1] then return 0 end
  for _, k in ipairs(sets(p, f[1], f[2])) do redis.call('ZREM', k, id) end
  redis.call('DEL', p .. 'e:' .. id)
  return 1
end
`;

// ARGV: prefix, id, user, family, model, created_ms.
const add = new LuaScript(`${setsOf}
local h = ARGV[1] .. 'e:' .. ARGV[2]
if redis.call('EXISTS', h) == 1 then return 0 end
redis.call('HSET', h, 'user', ARGV[3], 'family', ARGV[4], 'model', ARGV[5], 'created_ms', ARGV[6])
for _, k in ipairs(sets(ARGV[1], ARGV[3], ARGV[4])) do redis.call('ZADD', k, ARGV[6], ARGV[2]) end
return 1`);

// ARGV: prefix, id.
const remove = new LuaScript(`${setsOf}
return drop(ARGV[1], ARGV[2])`);

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

// ARGV: prefix, before (ms, exclusive), limit.
const prune = new LuaScript(`${setsOf}
local n = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', ARGV[1] .. 'all', '-inf', '(' .. ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))) do
  n = n + drop(ARGV[1], id)
end
return n`);

/** The set that lists exactly the query's filters. */
function setFor(q: CatalogQuery): string {
  if (q.user !== undefined && q.family !== undefined) return `${prefix}uf:${Buffer.byteLength(q.user)}:${q.user}:${q.family}`;
  if (q.user !== undefined) return `${prefix}u:${q.user}`;
  if (q.family !== undefined) return `${prefix}f:${q.family}`;
  return all;
}

export class RedisTaskCatalog implements TaskCatalog {
  constructor(private readonly client: RedisClient) {}

  async add(e: CatalogEntry): Promise<void> {
    await add.run(this.client, [all], [prefix, e.id, e.user, e.family, e.model, e.created_ms]);
  }

  async remove(id: string): Promise<void> {
    await remove.run(this.client, [all], [prefix, id]);
  }

  async page(q: CatalogQuery): Promise<CatalogPage | undefined> {
    const args = [q.limit + 1, q.order, ...(q.after === undefined ? [] : [q.after])];
    const ids = (await page.run(this.client, [setFor(q)], args)) as string[] | null;
    if (!ids) return undefined;
    return { ids: ids.slice(0, q.limit), more: ids.length > q.limit };
  }

  async prune(beforeMs: number, limit: number): Promise<number> {
    return Number(await prune.run(this.client, [all], [prefix, beforeMs, limit]));
  }
}
