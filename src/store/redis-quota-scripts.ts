// The Redis quota ledger's keys and Lua scripts (redis-quota.ts runs them): each movement is one script that checks and
// moves an account's balance atomically, on the one Redis Cluster slot of the account's hash tag.
import { isBudgetLevel } from './budget-level.js';
import { usageClasses } from './quota-ledger.js';
import { LuaScript } from './redis-client.js';
import { hourMs } from './usage.js';

// Keys. Everything a movement touches belongs to one account and carries its hash tag `{a:<account>}`, so every
// script runs on one Redis Cluster slot (on one node it is just a name). A budget level `~X…` (budget-level.ts; X its
// id up to the first `@` or `/`) is `sy:quota:~{a:X}<the rest of its id>:`: on X's slot, so a reservation's levels that
// belong to one team, user or token are taken by one script on a cluster; the `~` before the tag keeps its keys apart
// from those of an account named X, and two budget levels of X differ in what follows the tag.
//   sy:quota:{a:<acct>}:bal  balance · …:open:<request>  the open reservation, until closed
//   …:entry:<entry>  marker holding the entry as JSON. A reservation's (`<request>:reserve`) is kept while it is open;
//     at its close it and the close's (`<request>:close`) expire together, markerTtlMs[scope] later. A topup's
//     (`topup:<ref>`) expires markerTtlMs.topup after it; an account's creation topup stays with the account.
//   …:entries  the markers, scored by expiry (+inf while kept), for entries(); each write drops the expired ones
//   …:usage  the account's totals since created
//   …:usage:h:<hour>, …:usage:d:<day>  its usage rollup per hour and per day, expiring usageDays after the period:
//     field <account>␟<model>␟<route>␟<channel>␟<user>␟<total> → number · …:usage:hours, …:usage:days  the periods it
//     has (prune drops those past retention)
//   …:log  entries as JSON, written before the markers expired (no expiry): prune moves them under `entries`
// Indexes across accounts, each in a slot of its own and written before the movement they point to (a pointer
// to a closed reservation is harmless and skipped; a reservation nobody points to could never be swept):
//   sy:quota:accounts  every account (for usage over all) · sy:quota:owners  owners that may hold reservations
//   sy:quota:{own:<owner>}:open  hash request → account of the owner's reservations
// Budget levels are not in sy:quota:accounts (usage() has nothing to read of them), so prune finds their markers through
// indexes of their own, which grow with the users, teams and tokens that have budget levels, never with periods:
//   sy:quota:level-tags  the tags X of every budget level ever created (written by createAccount)
//   sy:quota:~{a:X}#due  the budget levels of tag X that have markers due to expire, each scored by when its last one
//     does: every script writing such a marker raises the score, on X's slot in the same step; prune takes out the
//     levels whose time has passed, trimming their marker index, so a period that is over leaves the index with its
//     last markers (`#` keeps the key apart from any level's: their ids go on with `@`, `/` or `:` after the tag)
// Tags travel as strings, '' for none; an entry's JSON leaves out the ones it does not have.
const P = 'sy:quota:';
export const acctKey = (account: string) => {
  if (!isBudgetLevel(account)) return `${P}{a:${account}}:`;
  const end = tagEnd(account);
  return `${P}~{a:${account.slice(1, end)}}${account.slice(end)}:`;
};
/** What decides an account's slot on a cluster: accounts with the same tag share one. */
export const slotTag = (account: string) => (isBudgetLevel(account) ? account.slice(1, tagEnd(account)) : account);
const tagEnd = (account: string) => {
  const at = /[@/]/.exec(account);
  return at ? at.index : account.length;
};
export const accountsKey = `${P}accounts`;
export const levelTagsKey = `${P}level-tags`;
/** The due index of the budget levels of `account`'s tag (see above); for an account that is no budget level, a key on its slot. */
export const dueKey = (account: string) => `${P}~{a:${slotTag(account)}}#due`;
export const ownersKey = `${P}owners`;
export const ownerKey = (owner: string) => `${P}{own:${owner}}:open`;
export const dayMs = 24 * hourMs;

// KEYS[1] is the account's `bal` key: scripts derive the account's prefix A from it (reserveLevels moves A from level to
// level). KEYS lists every key a script touches: on a cluster, a slot caught mid-move is refused before the script runs
// (ASK, TRYAGAIN: retried) only for declared keys; an undeclared one already moved would fail the script halfway, after
// some of its writes.
// Times go to Redis as integers (%d): a Lua number may be sent in exponent form, which PEXPIREAT refuses.
const lib = `
local A = string.sub(KEYS[1], 1, -4)
-- The due index of A's tag, where a script that writes expiring markers declares it (nil elsewhere).
local D
local classes = {${usageClasses.map((n) => `'${n}'`).join(', ')}}
local counted = {'prompt_tokens', 'completion_tokens', 'units', unpack(classes)}
local function tag(v) if v == nil or v == '' then return nil end return v end
local function num(v) if v == nil or v == '' then return nil end return tonumber(v) end
local function int(n) return string.format('%d', n) end
-- The server's clock in µs: orders entries written in one millisecond (the client's \`at\` cannot).
local function seq() local t = redis.call('TIME') return t[1] .. string.format('%06d', tonumber(t[2])) end
-- Lists a marker until \`expires\` ('+inf': kept), and drops the ones already gone, so the index stays their size.
local function index(entry, expires, at)
  redis.call('ZREMRANGEBYSCORE', A .. 'entries', '-inf', int(at))
  redis.call('ZADD', A .. 'entries', expires, entry)
end
-- Keeps a budget level in its tag's due index until its last expiring marker is gone: the score only ever rises, so
-- prune never takes out a level whose index still lists a marker that has not expired.
local function due(account, expires)
  if not D or string.byte(account, 1) ~= 126 then return end
  local s = redis.call('ZSCORE', D, account)
  if not s or tonumber(s) < expires then redis.call('ZADD', D, int(expires), account) end
end
-- Writes an entry's marker, expiring \`ttl\` ms from now (0: kept).
local function row(entry, ttl, account, request, kind, amount, at, uncharged, t)
  t = t or {}
  local e = {entry = entry, account = account, request = request, kind = kind, amount = amount, at = at, uncharged = uncharged, seq = seq(),
    user = t.user, model = t.model, route = t.route, channel = t.channel}
  for _, k in ipairs(counted) do e[k] = t[k] end
  if ttl > 0 then
    redis.call('SET', A .. 'entry:' .. entry, cjson.encode(e), 'PX', int(ttl))
    index(entry, int(at + ttl), at)
    due(account, at + ttl)
  else
    redis.call('SET', A .. 'entry:' .. entry, cjson.encode(e))
    index(entry, '+inf', at)
  end
end
-- A count of 0 or none writes nothing: a missing field reads as 0.
local function add(key, cell, t, charged, uncharged)
  redis.call('HINCRBY', key, cell .. 'requests', 1)
  for _, k in ipairs(counted) do
    if t[k] and t[k] > 0 then redis.call('HINCRBY', key, cell .. k, t[k]) end
  end
  if charged > 0 then redis.call('HINCRBY', key, cell .. 'charged', charged) end
  if uncharged > 0 then redis.call('HINCRBY', key, cell .. 'uncharged', uncharged) end
end
-- A period's cells go \`keep\` ms after it ends (reports reach back that far); the totals stay.
local function rollup(account, at, t, charged, uncharged, keep)
  local hour = math.floor(at / ${hourMs})
  local day = math.floor(hour / 24)
  local cell = account .. '\\31' .. (t.model or '') .. '\\31' .. (t.route or '') .. '\\31' .. (t.channel or '') .. '\\31' .. (t.user or '') .. '\\31'
  local h, d = A .. 'usage:h:' .. hour, A .. 'usage:d:' .. day
  add(h, cell, t, charged, uncharged)
  add(d, cell, t, charged, uncharged)
  redis.call('PEXPIREAT', h, int((hour + 1) * ${hourMs} + keep))
  redis.call('PEXPIREAT', d, int((day + 1) * ${dayMs} + keep))
  redis.call('ZADD', A .. 'usage:hours', hour, hour)
  redis.call('ZADD', A .. 'usage:days', day, day)
  add(A .. 'usage', '', t, charged, uncharged)
end
`;

// A reservation on every level of a request (redis-quota.ts reserveLevels), all or nothing. KEYS: per level its bal,
// its reservation's marker, its marker index, its open reservation; then, on one server, the owner's index (on a
// cluster it is in a slot of its own, written before). ARGV: amount, owner, scope, now, user, model, route, units, then
// per level its account, its request id and '1' when unchecked. Returns the index (from 0) of the first level that
// cannot cover the amount or has no account, with nothing written; else -1 − the number of levels taken (a level whose
// marker exists is a repeat, left as it is: -1 when every level is). Redis runs a script with no other command in
// between: "seen?", "covered?" and the debits are one step. A marker is kept while its reservation is open, so a repeat
// finds it however long the request runs.
export const reserveLevels = new LuaScript(`${lib}
local amount, owner, scope, now = tonumber(ARGV[1]), ARGV[2], ARGV[3], tonumber(ARGV[4])
local n = math.floor(#KEYS / 4)
local take, held = {}, {}
-- Every check before any write. \`held\`: what this script takes from a balance that two levels share.
for i = 1, n do
  local bal = KEYS[4 * i - 3]
  if redis.call('EXISTS', KEYS[4 * i - 2]) == 0 then
    local balance = redis.call('GET', bal)
    if not balance then return i - 1 end
    local after = tonumber(balance) - (held[bal] or 0) - amount
    if after < 0 and ARGV[8 + 3 * i] ~= '1' then return i - 1 end
    held[bal] = (held[bal] or 0) + amount
    take[#take + 1] = i
  end
end
local t = {user = tag(ARGV[5]), model = tag(ARGV[6]), route = tag(ARGV[7]), units = num(ARGV[8])}
local pointers = {}
for _, i in ipairs(take) do
  local account, request = ARGV[6 + 3 * i], ARGV[7 + 3 * i]
  A = string.sub(KEYS[4 * i - 3], 1, -4)
  redis.call('DECRBY', KEYS[4 * i - 3], amount)
  row(request .. ':reserve', 0, account, request, 'reserve', amount, now, 0, t)
  redis.call('SET', KEYS[4 * i], cjson.encode({request = request, account = account, amount = amount, owner = owner, scope = scope, at = now,
    user = t.user, model = t.model, route = t.route, units = t.units}))
  pointers[#pointers + 1] = request
  pointers[#pointers + 1] = account
end
if #KEYS > 4 * n and #pointers > 0 then redis.call('HSET', KEYS[#KEYS], unpack(pointers)) end
return -1 - #take`);

// Closes (settles or refunds) every level of a reservation (redis-quota.ts closeLevels), each as a lone close would.
// KEYS per level (closeKeys): its bal, the close's marker, the open reservation, the reservation's marker, the marker
// index, the totals, the hour's and the day's cells, the period indexes, its tag's due index; then, on one server, the
// owner index of this process. ARGV: kind (settle|refund), wanted charge, caller's reserved (for a reservation without
// its open row), now, the markers' ttl for a request-scoped and for a durable reservation, usage retention (ms), this
// process's owner id, channel, prompt_tokens, completion_tokens, units, the token classes in usageClasses' order
// (cached_tokens … vendor_charged), then per level its account and request id. Returns per level {charged, uncharged,
// owner whose index still points at it or ''}: the pointers of this process's reservations go in this step when its
// index is declared. A level closed before answers what that close charged; once both markers have expired a close
// finds nothing and moves nothing, as for a request never reserved. A budget level's close skips the rollup (its usage
// keys are declared all the same: they name its slot).
export const closeKeysPer = 11;
export const closeKeys = (account: string, request: string, hour: number) => {
  const A = acctKey(account);
  return [`${A}bal`, `${A}entry:${request}:close`, `${A}open:${request}`, `${A}entry:${request}:reserve`, `${A}entries`, `${A}usage`,
    `${A}usage:h:${hour}`, `${A}usage:d:${Math.floor(hour / 24)}`, `${A}usage:hours`, `${A}usage:days`, dueKey(account)];
};
export const close = new LuaScript(`${lib}
local kind, want, reserved, now, me = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[8]
local F = 12 + #classes
-- cjson decodes a JSON null as a sentinel, not nil: only strings are tags.
local function str(v) if type(v) == 'string' then return v end return nil end
local function pos(v) local n = num(v) return n ~= nil and n > 0 end
local function closeOne(account, request)
  local prior = redis.call('GET', A .. 'entry:' .. request .. ':close')
  local open = redis.call('GET', A .. 'open:' .. request)
  local amount, owner, by
  if open then
    by = cjson.decode(open)
    amount, owner = tonumber(by.amount), by.owner
  else
    local r = redis.call('GET', A .. 'entry:' .. request .. ':reserve')
    if not r then return {0, 0, ''} end
    by = cjson.decode(r)
    amount = reserved
  end
  if prior then
    local p = cjson.decode(prior)
    return {amount + tonumber(p.amount), tonumber(p.uncharged or 0), ''}
  end
  local charged, uncharged = 0, 0
  if kind == 'settle' then
    charged = math.min(want, amount)
    uncharged = want - charged
  end
  redis.call('INCRBY', A .. 'bal', amount - charged)
  local used = charged > 0 or pos(ARGV[10]) or pos(ARGV[11])
  local t = {user = str(by.user), model = str(by.model), route = str(by.route), channel = tag(ARGV[9]),
    prompt_tokens = used and num(ARGV[10]) or nil, completion_tokens = used and num(ARGV[11]) or nil,
    units = charged > 0 and (num(ARGV[12]) or (type(by.units) == 'number' and by.units or nil)) or nil}
  for i, k in ipairs(classes) do t[k] = used and num(ARGV[12 + i]) or nil end
  -- Both markers answer repeats for the scope's window from here (a reservation without its open row: the longest).
  local ttl = tonumber(by.scope == 'request' and ARGV[5] or ARGV[6])
  row(request .. ':close', ttl, account, request, kind, charged - amount, now, uncharged, t)
  if redis.call('PEXPIRE', A .. 'entry:' .. request .. ':reserve', int(ttl)) == 1 then
    redis.call('ZADD', A .. 'entries', int(now + ttl), request .. ':reserve')
  end
  -- A budget level's close moves its money only: the request is counted once, on its token's account.
  if string.byte(account, 1) ~= 126 then rollup(account, now, t, charged, uncharged, tonumber(ARGV[7])) end
  if open then redis.call('DEL', A .. 'open:' .. request) end
  return {charged, uncharged, str(owner) or ''}
end
local n = math.floor(#KEYS / ${closeKeysPer})
local out, mine = {}, {}
for i = 1, n do
  A, D = string.sub(KEYS[${closeKeysPer} * (i - 1) + 1], 1, -4), KEYS[${closeKeysPer} * i]
  local request = ARGV[F + 2 * i]
  local r = closeOne(ARGV[F + 2 * i - 1], request)
  if r[3] ~= '' and r[3] == me and #KEYS > ${closeKeysPer} * n then
    mine[#mine + 1] = request
    r[3] = ''
  end
  out[i] = r
end
if #mine > 0 then redis.call('HDEL', KEYS[#KEYS], unpack(mine)) end
return out`);

// KEYS: the account's bal, the topup's marker, the marker index, its tag's due index. ARGV: account, entry, amount to
// credit, now, route, user, the marker's ttl (0: kept). Returns 1 applied, 0 already applied (a repeat of its ref), -1
// no account.
export const topup = new LuaScript(`${lib}
D = KEYS[4]
if redis.call('EXISTS', A .. 'entry:' .. ARGV[2]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('INCRBY', KEYS[1], ARGV[3])
row(ARGV[2], tonumber(ARGV[7]), ARGV[1], string.sub(ARGV[2], 7), 'topup', -tonumber(ARGV[3]), tonumber(ARGV[4]), 0, {route = tag(ARGV[5]), user = tag(ARGV[6])})
return 1`);

// KEYS: the account's marker index, its period indexes (hours, days), its list from before the index. ARGV: now, the
// first hour and the first day kept. What no expiry removes: index members of markers gone, periods past retention.
// Returns {members dropped, periods dropped, entries left in the list}.
export const trim = new LuaScript(`
local dropped = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local periods = redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[2]) + redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[3])
return {dropped, periods, redis.call('LLEN', KEYS[4])}`);

// KEYS: an account's list from before the index. ARGV: how many entries were moved under the index, the first and the
// last of them. Drops them, unless another prune did meanwhile (the list no longer starts with them: entries are unique
// and the list only ever loses its head).
export const shift = new LuaScript(`
if redis.call('LINDEX', KEYS[1], 0) == ARGV[2] and redis.call('LINDEX', KEYS[1], tonumber(ARGV[1]) - 1) == ARGV[3] then
  redis.call('LTRIM', KEYS[1], ARGV[1], -1)
end
return 1`);

// KEYS: a tag's due index, then the marker index of each level named. ARGV: now, then the levels (members of the due
// index whose time had passed when prune read it). A level still due (no write has raised its score since) loses the
// members of its expired markers and leaves the due index; what it keeps has no expiry (its creation, an open
// reservation), and its next expiring marker lists it again. Returns the members dropped.
export const pruneDue = new LuaScript(`
local dropped = 0
for i = 2, #KEYS do
  local s = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if s and tonumber(s) <= tonumber(ARGV[1]) then
    dropped = dropped + redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[1])
    redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return dropped`);