// Quota ledger in Redis: each movement is one Lua script that checks and moves the balance atomically.
// Open reservations are kept too (`sy:quota:open:…`, with the process that holds them), so a sweep can refund
// the reservations of a process that died and a settle never trusts its caller for the amount.
import { clampCharge, closeTags, tagsOf, type CloseTags, type EntryTags, type LedgerEntry, type OpenReservation, type QuotaLedger, type ReserveScope, type Settled } from './quota-ledger.js';
import { LuaScript, type RedisClient } from './redis-client.js';
import { groupCells, hourMs, spansOf, type RollupDelta, type UsageQuery, type UsageRow, type UsageTotals } from './usage.js';

const P = 'sy:quota:';
// Keys, named inside the scripts (one Redis node, not Redis Cluster, as for the task index):
//   bal:<account>  balance · log:<account>  entries as JSON · entry:<entry>  marker holding the entry
//   open:req:<request>  the open reservation · open:own:<owner>  its requests · open:owners  owners with any
//   usage:h:<hour>  the usage rollup of one hour: field <account>␟<model>␟<route>␟<channel>␟<user>␟<total> → number
//   usage:d:<day>  the same per day (hour / 24) · usage:hours, usage:days  the periods that have any (sorted sets)
//   usage:acct:<account>  an account's totals since created
// Tags travel as strings, '' for none; an entry's JSON leaves out the ones it does not have.
const lib = `
local P = '${P}'
local function tag(v) if v == nil or v == '' then return nil end return v end
local function num(v) if v == nil or v == '' then return nil end return tonumber(v) end
local function row(entry, account, request, kind, amount, at, uncharged, t)
  t = t or {}
  local r = cjson.encode({entry = entry, account = account, request = request, kind = kind, amount = amount, at = at, uncharged = uncharged,
    user = t.user, model = t.model, route = t.route, channel = t.channel, prompt_tokens = t.prompt_tokens,
    completion_tokens = t.completion_tokens, units = t.units})
  redis.call('SET', P .. 'entry:' .. entry, r)
  redis.call('RPUSH', P .. 'log:' .. account, r)
end
local function add(key, cell, t, charged, uncharged)
  redis.call('HINCRBY', key, cell .. 'requests', 1)
  if t.prompt_tokens then redis.call('HINCRBY', key, cell .. 'prompt_tokens', t.prompt_tokens) end
  if t.completion_tokens then redis.call('HINCRBY', key, cell .. 'completion_tokens', t.completion_tokens) end
  if t.units then redis.call('HINCRBY', key, cell .. 'units', t.units) end
  if charged > 0 then redis.call('HINCRBY', key, cell .. 'charged', charged) end
  if uncharged > 0 then redis.call('HINCRBY', key, cell .. 'uncharged', uncharged) end
end
local function rollup(account, at, t, charged, uncharged)
  local hour = math.floor(at / ${hourMs})
  local day = math.floor(hour / 24)
  local cell = account .. '\\31' .. (t.model or '') .. '\\31' .. (t.route or '') .. '\\31' .. (t.channel or '') .. '\\31' .. (t.user or '') .. '\\31'
  add(P .. 'usage:h:' .. hour, cell, t, charged, uncharged)
  add(P .. 'usage:d:' .. day, cell, t, charged, uncharged)
  redis.call('ZADD', P .. 'usage:hours', hour, hour)
  redis.call('ZADD', P .. 'usage:days', day, day)
  local acct = P .. 'usage:acct:' .. account
  redis.call('HINCRBY', acct, 'requests', 1)
  if t.prompt_tokens then redis.call('HINCRBY', acct, 'prompt_tokens', t.prompt_tokens) end
  if t.completion_tokens then redis.call('HINCRBY', acct, 'completion_tokens', t.completion_tokens) end
  if t.units then redis.call('HINCRBY', acct, 'units', t.units) end
  if charged > 0 then redis.call('HINCRBY', acct, 'charged', charged) end
  if uncharged > 0 then redis.call('HINCRBY', acct, 'uncharged', uncharged) end
end
`;

// ARGV: account, request, amount, owner, scope, now, user, model, route, units. Returns 1 applied (or already applied), 0 not covered, -1 no account.
// Redis runs a script with no other command in between: "seen?", "covered?" and the debit are one step.
const reserve = new LuaScript(`${lib}
local account, request, amount, owner = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if redis.call('EXISTS', P .. 'entry:' .. request .. ':reserve') == 1 then return 1 end
local balance = redis.call('GET', P .. 'bal:' .. account)
if not balance then return -1 end
if tonumber(balance) < amount then return 0 end
redis.call('DECRBY', P .. 'bal:' .. account, amount)
local t = {user = tag(ARGV[7]), model = tag(ARGV[8]), route = tag(ARGV[9]), units = num(ARGV[10])}
row(request .. ':reserve', account, request, 'reserve', amount, tonumber(ARGV[6]), 0, t)
redis.call('SET', P .. 'open:req:' .. request, cjson.encode({request = request, account = account, amount = amount, owner = owner, scope = ARGV[5], at = tonumber(ARGV[6]),
  user = t.user, model = t.model, route = t.route, units = t.units}))
redis.call('SADD', P .. 'open:own:' .. owner, request)
redis.call('SADD', P .. 'open:owners', owner)
return 1`);

// ARGV: request, kind (settle|refund), wanted charge, caller's reserved (for reservations older than open rows), now,
// channel, prompt_tokens, completion_tokens, units. Returns {charged, uncharged}; a request closed before answers what
// that close charged.
const close = new LuaScript(`${lib}
local request, kind, want, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[5])
local prior = redis.call('GET', P .. 'entry:' .. request .. ':close')
local open = redis.call('GET', P .. 'open:req:' .. request)
local amount, account, owner, by
if open then
  by = cjson.decode(open)
  amount, account, owner = tonumber(by.amount), by.account, by.owner
else
  local r = redis.call('GET', P .. 'entry:' .. request .. ':reserve')
  if not r then return {0, 0} end
  by = cjson.decode(r)
  amount, account = tonumber(ARGV[4]), by.account
end
if prior then
  local p = cjson.decode(prior)
  return {amount + tonumber(p.amount), tonumber(p.uncharged or 0)}
end
local charged, uncharged = 0, 0
if kind == 'settle' then
  charged = math.min(want, amount)
  uncharged = want - charged
end
redis.call('INCRBY', P .. 'bal:' .. account, amount - charged)
-- cjson decodes a JSON null as a sentinel, not nil: only strings are tags.
local function str(v) if type(v) == 'string' then return v end return nil end
local function pos(v) local n = num(v) return n ~= nil and n > 0 end
local used = charged > 0 or pos(ARGV[7]) or pos(ARGV[8])
local t = {user = str(by.user), model = str(by.model), route = str(by.route), channel = tag(ARGV[6]),
  prompt_tokens = used and num(ARGV[7]) or nil, completion_tokens = used and num(ARGV[8]) or nil,
  units = charged > 0 and (num(ARGV[9]) or (type(by.units) == 'number' and by.units or nil)) or nil}
row(request .. ':close', account, request, kind, charged - amount, now, uncharged, t)
rollup(account, now, t, charged, uncharged)
if owner then
  redis.call('DEL', P .. 'open:req:' .. request)
  redis.call('SREM', P .. 'open:own:' .. owner, request)
  if redis.call('SCARD', P .. 'open:own:' .. owner) == 0 then redis.call('SREM', P .. 'open:owners', owner) end
end
return {charged, uncharged}`);

// ARGV: account, entry, amount to credit, now, route, user. Returns 1 applied (or already), -1 no account.
const topup = new LuaScript(`${lib}
if redis.call('EXISTS', P .. 'entry:' .. ARGV[2]) == 1 then return 1 end
if redis.call('EXISTS', P .. 'bal:' .. ARGV[1]) == 0 then return -1 end
redis.call('INCRBY', P .. 'bal:' .. ARGV[1], ARGV[3])
row(ARGV[2], ARGV[1], string.sub(ARGV[2], 7), 'topup', -tonumber(ARGV[3]), tonumber(ARGV[4]), 0, {route = tag(ARGV[5]), user = tag(ARGV[6])})
return 1`);

export class RedisQuotaLedger implements QuotaLedger {
  /** `owner`: this process's id (Store.instance), recorded on every reservation it opens. */
  constructor(private readonly client: RedisClient, private readonly owner = '') {}

  async createAccount(account: string, initial: number): Promise<void> {
    await this.client.set(`${P}bal:${account}`, '0', { condition: 'NX' });
    if (initial > 0) await this.topup(account, initial, `create:${account}`);
  }

  async balance(account: string): Promise<number | undefined> {
    const v = await this.client.get(`${P}bal:${account}`);
    return v === null ? undefined : Number(v);
  }

  async reserve(account: string, request: string, amount: number, scope: ReserveScope = 'durable', tags?: EntryTags): Promise<boolean> {
    const r = await reserve.run(this.client, [], [account, request, whole(amount), this.owner, scope, Date.now(), tags?.user ?? '', tags?.model ?? '', tags?.route ?? '', tags?.units ?? '']);
    return Number(r) === 1;
  }

  async settle(_account: string, request: string, reserved: number, actual: number, tags?: CloseTags): Promise<Settled> {
    const want = clampCharge(Number.MAX_SAFE_INTEGER, actual).charged;
    const [charged, uncharged] = (await close.run(this.client, [], [request, 'settle', want, whole(reserved), Date.now(), ...closeArgs(tags)])) as number[];
    return { charged: Number(charged), uncharged: Number(uncharged) };
  }

  async refund(_account: string, request: string, reserved: number, tags?: CloseTags): Promise<void> {
    await close.run(this.client, [], [request, 'refund', 0, whole(reserved), Date.now(), ...closeArgs(tags)]);
  }

  async topup(account: string, amount: number, ref: string, tags?: EntryTags): Promise<void> {
    if (Number(await topup.run(this.client, [], [account, `topup:${ref}`, whole(amount), Date.now(), tags?.route ?? '', tags?.user ?? ''])) === -1) {
      throw new Error(`quota_no_account: ${account}`);
    }
  }

  async entries(account: string): Promise<LedgerEntry[]> {
    const rows = await this.client.lRange(`${P}log:${account}`, 0, -1);
    return rows.map((r) => {
      const e = JSON.parse(r) as LedgerEntry;
      return { entry: e.entry, account: e.account, request: e.request, kind: e.kind, amount: e.amount, at: e.at, uncharged: e.uncharged ?? 0, ...tagsOf(e) };
    });
  }

  async totals(account: string): Promise<UsageTotals> {
    const h = await this.client.hGetAll(`${P}usage:acct:${account}`);
    const n = (k: string) => Number(h[k] ?? 0);
    return { requests: n('requests'), prompt_tokens: n('prompt_tokens'), completion_tokens: n('completion_tokens'), units: n('units'), charged: n('charged'), uncharged: n('uncharged') };
  }

  /** Reads the daily cells of the whole days and the hourly cells of the ends (one HGETALL a period, pipelined). */
  async usage(q: UsageQuery): Promise<UsageRow[]> {
    const { days, hours } = spansOf(q);
    const periods = async (kind: 'h' | 'd', set: string, [a, b]: [number, number], hoursPer: number) =>
      (await this.client.zRangeByScore(`${P}usage:${set}`, a, b)).map((p) => ({ key: `${P}usage:${kind}:${p}`, hour: Number(p) * hoursPer }));
    const all = (await Promise.all([...(days ? [periods('d', 'days', days, 24)] : []), ...hours.map((h) => periods('h', 'hours', h, 1))])).flat();
    const maps = await Promise.all(all.map((p) => this.client.hGetAll(p.key)));
    const accounts = q.accounts && new Set(q.accounts);
    const cells: RollupDelta[] = [];
    all.forEach((p, i) => cells.push(...cellsOf(maps[i], p.hour, (account, user) => (!accounts || accounts.has(account)) && (q.user === undefined || user === q.user))));
    return groupCells(cells, q.groupBy, q.thenBy);
  }

  async openOwners(): Promise<string[]> {
    return this.client.sMembers(`${P}open:owners`);
  }

  async openOf(owner: string): Promise<OpenReservation[]> {
    const requests = await this.client.sMembers(`${P}open:own:${owner}`);
    if (!requests.length) return [];
    const rows = await this.client.mGet(requests.map((r) => `${P}open:req:${r}`));
    return rows.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as OpenReservation).sort((a, b) => a.at - b.at);
  }

  async reservationOf(request: string): Promise<OpenReservation | undefined> {
    const r = await this.client.get(`${P}open:req:${request}`);
    return r === null ? undefined : (JSON.parse(r) as OpenReservation);
  }
}

/** The cells of one period's hash (fields `<account>␟<model>␟<route>␟<channel>␟<user>␟<total>`) that `keep` wants. */
function cellsOf(fields: Record<string, string>, hour: number, keep: (account: string, user: string) => boolean): RollupDelta[] {
  const byCell = new Map<string, RollupDelta>();
  for (const [field, value] of Object.entries(fields)) {
    const [account, model, route, channel, user, total] = field.split('\u001f');
    if (!keep(account, user)) continue;
    const id = field.slice(0, field.length - total.length);
    let c = byCell.get(id);
    if (!c) {
      c = { account, model, route, channel, user, hour, requests: 0, prompt_tokens: 0, completion_tokens: 0, units: 0, charged: 0, uncharged: 0 };
      byCell.set(id, c);
    }
    c[total as keyof Pick<RollupDelta, 'requests'>] = Number(value);
  }
  return [...byCell.values()];
}

const closeArgs = (t: CloseTags | undefined) => [t?.channel ?? '', t?.prompt_tokens ?? '', t?.completion_tokens ?? '', t?.units ?? ''];

/** Amounts are whole units; anything else is a bug upstream of the store, refused before it reaches Lua. */
function whole(amount: number): number {
  const n = Math.round(amount);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`quota amount ${amount} is not a non-negative safe integer`);
  return n;
}
