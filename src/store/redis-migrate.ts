// Moves a single Redis server's keys from the layout before hash tags (0.1.0) to the tagged one (docs/operators/redis.md, key layout),
// once: one script, so no instance ever sees half of each, and a marker `sy:layout` so later starts skip it. It
// blocks the server while it runs (KEYS over the store's prefixes), once per deployment. A cluster never had the old
// layout (its scripts could not run there), so it is never migrated.
import { LuaScript, type RedisClient } from './redis-client.js';

const layout = '2';

const migrate = new LuaScript(`
if redis.call('GET', 'sy:layout') == '${layout}' then return -1 end
local n = 0
local function A(acct) return 'sy:quota:{a:' .. acct .. '}:' end
local function mv(from, to)
  if redis.call('EXISTS', from) == 1 then redis.call('RENAME', from, to) n = n + 1 end
end
local function each(prefix, fn)
  for _, k in ipairs(redis.call('KEYS', prefix .. '*')) do fn(k, string.sub(k, #prefix + 1)) end
end
each('sy:quota:bal:', function(k, acct)
  redis.call('SADD', 'sy:quota:accounts', acct)
  mv(k, A(acct) .. 'bal')
  mv('sy:quota:log:' .. acct, A(acct) .. 'log')
  mv('sy:quota:usage:acct:' .. acct, A(acct) .. 'usage')
end)
each('sy:quota:entry:', function(k, entry) mv(k, A(cjson.decode(redis.call('GET', k)).account) .. 'entry:' .. entry) end)
each('sy:quota:open:req:', function(k, request)
  local o = cjson.decode(redis.call('GET', k))
  mv(k, A(o.account) .. 'open:' .. request)
  redis.call('HSET', 'sy:quota:{own:' .. o.owner .. '}:open', request, o.account)
  redis.call('SADD', 'sy:quota:owners', o.owner)
end)
each('sy:quota:open:own:', function(k) redis.call('DEL', k) end)
for kind, set in pairs({h = 'hours', d = 'days'}) do
  each('sy:quota:usage:' .. kind .. ':', function(k, period)
    local f = redis.call('HGETALL', k)
    for i = 1, #f, 2 do
      local acct = string.match(f[i], '^([^\\31]*)\\31')
      redis.call('HSET', A(acct) .. 'usage:' .. kind .. ':' .. period, f[i], f[i + 1])
      redis.call('ZADD', A(acct) .. 'usage:' .. set, period, period)
    end
    redis.call('DEL', k)
    n = n + 1
  end)
end
redis.call('DEL', 'sy:quota:open:owners', 'sy:quota:usage:hours', 'sy:quota:usage:days')
each('sy:task:open:', function(k, id)
  local grp = redis.call('HGET', k, 'grp')
  local G = 'sy:task:{g:' .. grp .. '}:'
  local score = redis.call('ZSCORE', 'sy:task:due', id)
  mv(k, G .. 'open:' .. id)
  if score then redis.call('ZADD', G .. 'due', score, id) end
  redis.call('SET', 'sy:task:at:' .. id, grp)
  redis.call('SADD', 'sy:task:groups', grp)
end)
each('sy:task:grp:', function(k, grp)
  redis.call('SADD', 'sy:task:groups', grp)
  mv(k, 'sy:task:{g:' .. grp .. '}:slots')
end)
redis.call('DEL', 'sy:task:due')
each('sy:task:cat:', function(k, rest) mv(k, 'sy:task:{cat}:' .. rest) end)
each('sy:jobs:', function(k, queue)
  if string.sub(queue, 1, 1) == '{' then return end
  for _, id in ipairs(redis.call('ZRANGE', k, 0, -1)) do mv('sy:job:' .. queue .. ':' .. id, 'sy:job:{q:' .. queue .. '}:' .. id) end
  mv(k, 'sy:jobs:{q:' .. queue .. '}')
end)
redis.call('SET', 'sy:layout', '${layout}')
return n`);

/** Migrates once; answers how many keys moved (-1: the server was already on this layout). */
export async function migrateLayout(client: RedisClient): Promise<number> {
  if ((await client.get('sy:layout')) === layout) return -1;
  return Number(await migrate.run(client, [], []));
}
