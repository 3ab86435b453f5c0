// Quota ledger in Redis: each movement is one Lua script that checks and moves the balance atomically.
// Open reservations are kept too, with the process that holds them, so a sweep can refund the reservations of a
// process that died and a settle never trusts its caller for the amount.
import { clampCharge, tagsOf, usageClasses, type CloseTags, type EntryTags, type LedgerEntry, type OpenReservation, type QuotaLedger, type ReserveScope, type Settled } from './quota-ledger.js';
import { LuaScript, type RedisClient } from './redis-client.js';
import { countsOf, groupCells, hourMs, noUsage, spansOf, type RollupDelta, type UsageQuery, type UsageRow, type UsageTotals } from './usage.js';

// Keys. Everything a movement touches belongs to one account and carries its hash tag `{a:<account>}`, so every
// script runs on one Redis Cluster slot (on one node it is just a name):
//   sy:quota:{a:<acct>}:bal  balance · …:log  entries as JSON · …:entry:<entry>  marker holding the entry
//   …:open:<request>  the open reservation · …:usage  the account's totals since created
//   …:usage:h:<hour>, …:usage:d:<day>  its usage rollup per hour and per day: field
//     <account>␟<model>␟<route>␟<channel>␟<user>␟<total> → number · …:usage:hours, …:usage:days  the periods it has
// Indexes across accounts, each in a slot of its own and written before the movement they point to (a pointer
// to a closed reservation is harmless and skipped; a reservation nobody points to could never be swept):
//   sy:quota:accounts  every account (for usage over all) · sy:quota:owners  owners that may hold reservations
//   sy:quota:{own:<owner>}:open  hash request → account of the owner's reservations
// Tags travel as strings, '' for none; an entry's JSON leaves out the ones it does not have.
const P = 'sy:quota:';
const acctKey = (account: string) => `${P}{a:${account}}:`;
const accountsKey = `${P}accounts`;
const ownersKey = `${P}owners`;
const ownerKey = (owner: string) => `${P}{own:${owner}}:open`;

// KEYS[1] is the account's `bal` key: scripts derive the account's prefix A from it. KEYS lists every key a script
// touches: on a cluster, a slot caught mid-move is refused before the script runs (ASK, TRYAGAIN: retried) only for
// declared keys; an undeclared one already moved would fail the script halfway, after some of its writes.
const lib = `
local A = string.sub(KEYS[1], 1, -4)
local classes = {${usageClasses.map((n) => `'${n}'`).join(', ')}}
local counted = {'prompt_tokens', 'completion_tokens', 'units', unpack(classes)}
local function tag(v) if v == nil or v == '' then return nil end return v end
local function num(v) if v == nil or v == '' then return nil end return tonumber(v) end
local function row(entry, account, request, kind, amount, at, uncharged, t)
  t = t or {}
  local e = {entry = entry, account = account, request = request, kind = kind, amount = amount, at = at, uncharged = uncharged,
    user = t.user, model = t.model, route = t.route, channel = t.channel}
  for _, k in ipairs(counted) do e[k] = t[k] end
  local r = cjson.encode(e)
  redis.call('SET', A .. 'entry:' .. entry, r)
  redis.call('RPUSH', A .. 'log', r)
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
local function rollup(account, at, t, charged, uncharged)
  local hour = math.floor(at / ${hourMs})
  local day = math.floor(hour / 24)
  local cell = account .. '\\31' .. (t.model or '') .. '\\31' .. (t.route or '') .. '\\31' .. (t.channel or '') .. '\\31' .. (t.user or '') .. '\\31'
  add(A .. 'usage:h:' .. hour, cell, t, charged, uncharged)
  add(A .. 'usage:d:' .. day, cell, t, charged, uncharged)
  redis.call('ZADD', A .. 'usage:hours', hour, hour)
  redis.call('ZADD', A .. 'usage:days', day, day)
  add(A .. 'usage', '', t, charged, uncharged)
end
`;

// KEYS: the account's bal. ARGV: account, request, amount, owner, scope, now, user, model, route, units.
// Returns 1 applied (or already applied), 0 not covered, -1 no account.
// Redis runs a script with no other command in between: "seen?", "covered?" and the debit are one step.
const reserve = new LuaScript(`${lib}
local account, request, amount, owner = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if redis.call('EXISTS', A .. 'entry:' .. request .. ':reserve') == 1 then return 1 end
local balance = redis.call('GET', KEYS[1])
if not balance then return -1 end
if tonumber(balance) < amount then return 0 end
redis.call('DECRBY', KEYS[1], amount)
local t = {user = tag(ARGV[7]), model = tag(ARGV[8]), route = tag(ARGV[9]), units = num(ARGV[10])}
row(request .. ':reserve', account, request, 'reserve', amount, tonumber(ARGV[6]), 0, t)
redis.call('SET', A .. 'open:' .. request, cjson.encode({request = request, account = account, amount = amount, owner = owner, scope = ARGV[5], at = tonumber(ARGV[6]),
  user = t.user, model = t.model, route = t.route, units = t.units}))
return 1`);

// KEYS: the account's bal. ARGV: account, request, kind (settle|refund), wanted charge, caller's reserved (for a
// reservation without its open row), now, channel, prompt_tokens, completion_tokens, units, then the token classes
// in usageClasses' order (cached_tokens … vendor_charged). Returns {charged,
// uncharged, owner of the reservation it closed or ''}; a request closed before answers what that close charged.
const close = new LuaScript(`${lib}
local account, request, kind, want, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[6])
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
  amount = tonumber(ARGV[5])
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
redis.call('INCRBY', KEYS[1], amount - charged)
-- cjson decodes a JSON null as a sentinel, not nil: only strings are tags.
local function str(v) if type(v) == 'string' then return v end return nil end
local function pos(v) local n = num(v) return n ~= nil and n > 0 end
local used = charged > 0 or pos(ARGV[8]) or pos(ARGV[9])
local t = {user = str(by.user), model = str(by.model), route = str(by.route), channel = tag(ARGV[7]),
  prompt_tokens = used and num(ARGV[8]) or nil, completion_tokens = used and num(ARGV[9]) or nil,
  units = charged > 0 and (num(ARGV[10]) or (type(by.units) == 'number' and by.units or nil)) or nil}
for i, k in ipairs(classes) do t[k] = used and num(ARGV[10 + i]) or nil end
row(request .. ':close', account, request, kind, charged - amount, now, uncharged, t)
rollup(account, now, t, charged, uncharged)
if open then redis.call('DEL', A .. 'open:' .. request) end
return {charged, uncharged, str(owner) or ''}`);

// KEYS: the account's bal. ARGV: account, entry, amount to credit, now, route, user. Returns 1 applied (or already), -1 no account.
const topup = new LuaScript(`${lib}
if redis.call('EXISTS', A .. 'entry:' .. ARGV[2]) == 1 then return 1 end
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('INCRBY', KEYS[1], ARGV[3])
row(ARGV[2], ARGV[1], string.sub(ARGV[2], 7), 'topup', -tonumber(ARGV[3]), tonumber(ARGV[4]), 0, {route = tag(ARGV[5]), user = tag(ARGV[6])})
return 1`);

export class RedisQuotaLedger implements QuotaLedger {
  /** When this process last put itself in `sy:quota:owners` (again every few seconds, in case a sweep took it out). */
  private ownerListedAt = 0;

  /** `owner`: this process's id (Store.instance), recorded on every reservation it opens. `alive` says which owners
   * still beat (RedisInstances), so owners that are gone and hold nothing leave the owners index. */
  constructor(private readonly client: RedisClient, private readonly owner = '', private readonly alive?: (owners: string[]) => Promise<Set<string>>) {}

  async createAccount(account: string, initial: number): Promise<void> {
    await this.client.sAdd(accountsKey, account);
    await this.client.set(`${acctKey(account)}bal`, '0', { condition: 'NX' });
    if (initial > 0) await this.topup(account, initial, `create:${account}`);
  }

  async balance(account: string): Promise<number | undefined> {
    const v = await this.client.get(`${acctKey(account)}bal`);
    return v === null ? undefined : Number(v);
  }

  async reserve(account: string, request: string, amount: number, scope: ReserveScope = 'durable', tags?: EntryTags): Promise<boolean> {
    const n = whole(amount);
    await Promise.all([this.client.hSet(ownerKey(this.owner), request, account), this.listOwner()]);
    const A = acctKey(account);
    const r = Number(await reserve.run(this.client, [`${A}bal`, `${A}entry:${request}:reserve`, `${A}log`, `${A}open:${request}`],
      [account, request, n, this.owner, scope, Date.now(), tags?.user ?? '', tags?.model ?? '', tags?.route ?? '', tags?.units ?? '']));
    if (r !== 1) await this.client.hDel(ownerKey(this.owner), request).catch(() => undefined);
    return r === 1;
  }

  async settle(account: string, request: string, reserved: number, actual: number, tags?: CloseTags): Promise<Settled> {
    const want = clampCharge(Number.MAX_SAFE_INTEGER, actual).charged;
    const [charged, uncharged] = await this.closeRequest(account, request, 'settle', want, reserved, tags);
    return { charged, uncharged };
  }

  async refund(account: string, request: string, reserved: number, tags?: CloseTags): Promise<void> {
    await this.closeRequest(account, request, 'refund', 0, reserved, tags);
  }

  private async closeRequest(account: string, request: string, kind: 'settle' | 'refund', want: number, reserved: number, tags?: CloseTags): Promise<[number, number]> {
    const [A, now] = [acctKey(account), Date.now()];
    const hour = Math.floor(now / hourMs);
    const keys = [`${A}bal`, `${A}entry:${request}:close`, `${A}open:${request}`, `${A}entry:${request}:reserve`, `${A}log`, `${A}usage`,
      `${A}usage:h:${hour}`, `${A}usage:d:${Math.floor(hour / 24)}`, `${A}usage:hours`, `${A}usage:days`];
    const [charged, uncharged, owner] = (await close.run(this.client, keys,
      [account, request, kind, want, whole(reserved), now, ...closeArgs(tags)])) as [number, number, string];
    // After the close: a pointer left by a failure here points at nothing and is skipped.
    if (owner) await this.client.hDel(ownerKey(owner), request).catch(() => undefined);
    return [Number(charged), Number(uncharged)];
  }

  async topup(account: string, amount: number, ref: string, tags?: EntryTags): Promise<void> {
    const A = acctKey(account);
    const r = await topup.run(this.client, [`${A}bal`, `${A}entry:topup:${ref}`, `${A}log`], [account, `topup:${ref}`, whole(amount), Date.now(), tags?.route ?? '', tags?.user ?? '']);
    if (Number(r) === -1) throw new Error(`quota_no_account: ${account}`);
  }

  async entries(account: string): Promise<LedgerEntry[]> {
    const rows = await this.client.lRange(`${acctKey(account)}log`, 0, -1);
    return rows.map((r) => {
      const e = JSON.parse(r) as LedgerEntry;
      return { entry: e.entry, account: e.account, request: e.request, kind: e.kind, amount: e.amount, at: e.at, uncharged: e.uncharged ?? 0, ...tagsOf(e) };
    });
  }

  async totals(account: string): Promise<UsageTotals> {
    const h = await this.client.hGetAll(`${acctKey(account)}usage`);
    return countsOf((n) => Number(h[n] ?? 0));
  }

  /** Per account asked (or every account): the daily cells of the whole days and the hourly cells of the ends. */
  async usage(q: UsageQuery): Promise<UsageRow[]> {
    const { days, hours } = spansOf(q);
    const accounts = q.accounts ?? await this.client.sMembers(accountsKey);
    const periods = async (a: string, kind: 'h' | 'd', [lo, hi]: [number, number], hoursPer: number) =>
      (await this.client.zRangeByScore(`${acctKey(a)}usage:${kind === 'h' ? 'hours' : 'days'}`, lo, hi))
        .map((p) => ({ key: `${acctKey(a)}usage:${kind}:${p}`, hour: Number(p) * hoursPer }));
    const all = (await Promise.all(accounts.flatMap((a) => [...(days ? [periods(a, 'd', days, 24)] : []), ...hours.map((h) => periods(a, 'h', h, 1))]))).flat();
    const maps = await Promise.all(all.map((p) => this.client.hGetAll(p.key)));
    const cells: RollupDelta[] = [];
    all.forEach((p, i) => cells.push(...cellsOf(maps[i], p.hour, (_account, user) => q.user === undefined || user === q.user)));
    return groupCells(cells, q.groupBy, q.thenBy);
  }

  /** Owners with a reservation still open; owners that are gone and hold nothing leave the index here. */
  async openOwners(): Promise<string[]> {
    const owners = await this.client.sMembers(ownersKey);
    const open = await Promise.all(owners.map(async (o) => (await this.openOf(o)).length > 0));
    const idle = owners.filter((o, i) => !open[i] && o !== this.owner);
    if (idle.length && this.alive) {
      const living = await this.alive(idle);
      await Promise.all(idle.filter((o) => !living.has(o)).map(async (o) => {
        await this.client.sRem(ownersKey, o);
        await this.client.del(ownerKey(o));
      }));
    }
    return owners.filter((_, i) => open[i]);
  }

  async openOf(owner: string): Promise<OpenReservation[]> {
    const pointers = Object.entries(await this.client.hGetAll(ownerKey(owner)));
    const rows = await Promise.all(pointers.map(([request, account]) => this.client.get(`${acctKey(account)}open:${request}`)));
    return rows.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as OpenReservation).sort((a, b) => a.at - b.at);
  }

  async reservationOf(request: string): Promise<OpenReservation | undefined> {
    const owners = await this.client.sMembers(ownersKey);
    const accounts = await Promise.all(owners.map((o) => this.client.hGet(ownerKey(o), request)));
    for (const account of new Set(accounts.filter((a): a is string => typeof a === 'string'))) {
      const r = await this.client.get(`${acctKey(account)}open:${request}`);
      if (r !== null) return JSON.parse(r) as OpenReservation;
    }
    return undefined;
  }

  private async listOwner(): Promise<void> {
    if (Date.now() - this.ownerListedAt < 5000) return;
    await this.client.sAdd(ownersKey, this.owner);
    this.ownerListedAt = Date.now();
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
      c = { account, model, route, channel, user, hour, ...noUsage() };
      byCell.set(id, c);
    }
    c[total as keyof Pick<RollupDelta, 'requests'>] = Number(value);
  }
  return [...byCell.values()];
}

const closeArgs = (t: CloseTags | undefined) =>
  [t?.channel ?? '', t?.prompt_tokens ?? '', t?.completion_tokens ?? '', t?.units ?? '', ...usageClasses.map((n) => t?.[n] ?? '')];

/** Amounts are whole units; anything else is a bug upstream of the store, refused before it reaches Lua. */
function whole(amount: number): number {
  const n = Math.round(amount);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`quota amount ${amount} is not a non-negative safe integer`);
  return n;
}
