// Quota ledger in Redis: each movement is one Lua script that checks and moves the balance atomically.
// Open reservations are kept too, with the process that holds them, so a sweep can refund the reservations of a
// process that died and a settle never trusts its caller for the amount.
// Redis holds hot state only: balances, open reservations, usage rollups, and a closed request's idempotency markers
// for as long as a repeated close or reserve can still arrive (Retention.markerTtlMs); then they expire, so under
// steady traffic the ledger's memory stops growing once that window has passed. The history of requests is the
// request log's (src/request-log/).
import { clampCharge, defaultRetention, tagsOf, usageClasses, type CloseTags, type EntryTags, type LedgerEntry, type OpenReservation, type Pruned, type QuotaLedger, type ReserveScope, type Retention, type Settled } from './quota-ledger.js';
import { LuaScript, type RedisClient } from './redis-client.js';
import { countsOf, groupCells, hourMs, hourOf, noUsage, spansOf, type RollupDelta, type UsageQuery, type UsageRow, type UsageTotals } from './usage.js';

// Keys. Everything a movement touches belongs to one account and carries its hash tag `{a:<account>}`, so every
// script runs on one Redis Cluster slot (on one node it is just a name):
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
// Tags travel as strings, '' for none; an entry's JSON leaves out the ones it does not have.
const P = 'sy:quota:';
const acctKey = (account: string) => `${P}{a:${account}}:`;
const accountsKey = `${P}accounts`;
const ownersKey = `${P}owners`;
const ownerKey = (owner: string) => `${P}{own:${owner}}:open`;
const dayMs = 24 * hourMs;

// KEYS[1] is the account's `bal` key: scripts derive the account's prefix A from it. KEYS lists every key a script
// touches: on a cluster, a slot caught mid-move is refused before the script runs (ASK, TRYAGAIN: retried) only for
// declared keys; an undeclared one already moved would fail the script halfway, after some of its writes.
// Times go to Redis as integers (%d): a Lua number may be sent in exponent form, which PEXPIREAT refuses.
const lib = `
local A = string.sub(KEYS[1], 1, -4)
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
-- Writes an entry's marker, expiring \`ttl\` ms from now (0: kept).
local function row(entry, ttl, account, request, kind, amount, at, uncharged, t)
  t = t or {}
  local e = {entry = entry, account = account, request = request, kind = kind, amount = amount, at = at, uncharged = uncharged, seq = seq(),
    user = t.user, model = t.model, route = t.route, channel = t.channel}
  for _, k in ipairs(counted) do e[k] = t[k] end
  if ttl > 0 then
    redis.call('SET', A .. 'entry:' .. entry, cjson.encode(e), 'PX', int(ttl))
    index(entry, int(at + ttl), at)
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

// KEYS: the account's bal, the reservation's marker, the marker index, the open reservation. ARGV: account, request,
// amount, owner, scope, now, user, model, route, units. Returns 1 applied (or already applied), 0 not covered, -1 no
// account. Redis runs a script with no other command in between: "seen?", "covered?" and the debit are one step.
// The marker is kept while the reservation is open, so a repeated reserve finds it however long the request runs.
const reserve = new LuaScript(`${lib}
local account, request, amount, owner = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if redis.call('EXISTS', A .. 'entry:' .. request .. ':reserve') == 1 then return 1 end
local balance = redis.call('GET', KEYS[1])
if not balance then return -1 end
if tonumber(balance) < amount then return 0 end
redis.call('DECRBY', KEYS[1], amount)
local t = {user = tag(ARGV[7]), model = tag(ARGV[8]), route = tag(ARGV[9]), units = num(ARGV[10])}
row(request .. ':reserve', 0, account, request, 'reserve', amount, tonumber(ARGV[6]), 0, t)
redis.call('SET', A .. 'open:' .. request, cjson.encode({request = request, account = account, amount = amount, owner = owner, scope = ARGV[5], at = tonumber(ARGV[6]),
  user = t.user, model = t.model, route = t.route, units = t.units}))
return 1`);

// KEYS: the account's bal, the close's marker, the open reservation, the reservation's marker, the marker index, the
// totals, the hour's and the day's cells, the period indexes. ARGV: account, request, kind (settle|refund), wanted
// charge, caller's reserved (for a reservation without its open row), now, the markers' ttl for a request-scoped and
// for a durable reservation, usage retention (ms), channel, prompt_tokens, completion_tokens, units, then the token
// classes in usageClasses' order (cached_tokens … vendor_charged). Returns {charged, uncharged, owner of the
// reservation it closed or ''}; a request closed before answers what that close charged. Once both markers have
// expired a close finds nothing and moves nothing, as for a request never reserved.
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
local used = charged > 0 or pos(ARGV[11]) or pos(ARGV[12])
local t = {user = str(by.user), model = str(by.model), route = str(by.route), channel = tag(ARGV[10]),
  prompt_tokens = used and num(ARGV[11]) or nil, completion_tokens = used and num(ARGV[12]) or nil,
  units = charged > 0 and (num(ARGV[13]) or (type(by.units) == 'number' and by.units or nil)) or nil}
for i, k in ipairs(classes) do t[k] = used and num(ARGV[13 + i]) or nil end
-- Both markers answer repeats for the scope's window from here (a reservation without its open row: the longest).
local ttl = tonumber(by.scope == 'request' and ARGV[7] or ARGV[8])
row(request .. ':close', ttl, account, request, kind, charged - amount, now, uncharged, t)
if redis.call('PEXPIRE', A .. 'entry:' .. request .. ':reserve', int(ttl)) == 1 then
  redis.call('ZADD', A .. 'entries', int(now + ttl), request .. ':reserve')
end
rollup(account, now, t, charged, uncharged, tonumber(ARGV[9]))
if open then redis.call('DEL', A .. 'open:' .. request) end
return {charged, uncharged, str(owner) or ''}`);

// KEYS: the account's bal, the topup's marker, the marker index. ARGV: account, entry, amount to credit, now, route,
// user, the marker's ttl (0: kept). Returns 1 applied, 0 already applied (a repeat of its ref), -1 no account.
const topup = new LuaScript(`${lib}
if redis.call('EXISTS', A .. 'entry:' .. ARGV[2]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('INCRBY', KEYS[1], ARGV[3])
row(ARGV[2], tonumber(ARGV[7]), ARGV[1], string.sub(ARGV[2], 7), 'topup', -tonumber(ARGV[3]), tonumber(ARGV[4]), 0, {route = tag(ARGV[5]), user = tag(ARGV[6])})
return 1`);

// KEYS: the account's marker index, its period indexes (hours, days), its list from before the index. ARGV: now, the
// first hour and the first day kept. What no expiry removes: index members of markers gone, periods past retention.
// Returns {members dropped, periods dropped, entries left in the list}.
const trim = new LuaScript(`
local dropped = redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local periods = redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[2]) + redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[3])
return {dropped, periods, redis.call('LLEN', KEYS[4])}`);

// KEYS: an account's list from before the index. ARGV: how many entries were moved under the index, the first and the
// last of them. Drops them, unless another prune did meanwhile (the list no longer starts with them: entries are unique
// and the list only ever loses its head).
const shift = new LuaScript(`
if redis.call('LINDEX', KEYS[1], 0) == ARGV[2] and redis.call('LINDEX', KEYS[1], tonumber(ARGV[1]) - 1) == ARGV[3] then
  redis.call('LTRIM', KEYS[1], ARGV[1], -1)
end
return 1`);

/** Accounts trimmed at once by prune, and list entries it moves under the index per call at most. */
const pruneBatch = 100;
const drainPerCall = 20_000;

/** A marker as stored: the entry and the server's write order (µs). */
type Stored = LedgerEntry & { seq?: string };

export class RedisQuotaLedger implements QuotaLedger {
  /** When this process last put itself in `sy:quota:owners` (again every few seconds, in case a sweep took it out). */
  private ownerListedAt = 0;

  /** `owner`: this process's id (Store.instance), recorded on every reservation it opens. `alive` says which owners
   * still beat (RedisInstances), so owners that are gone and hold nothing leave the owners index. `keep`: how long
   * markers and usage cells live. */
  constructor(private readonly client: RedisClient, private readonly owner = '', private readonly alive?: (owners: string[]) => Promise<Set<string>>,
    private readonly keep: Retention = defaultRetention) {}

  /** The creation topup's marker stays with the account (one each), so creating an account again never credits it twice. */
  async createAccount(account: string, initial: number): Promise<void> {
    await this.client.sAdd(accountsKey, account);
    await this.client.set(`${acctKey(account)}bal`, '0', { condition: 'NX' });
    if (initial > 0) await this.credit(account, initial, `create:${account}`, 0);
  }

  async balance(account: string): Promise<number | undefined> {
    const v = await this.client.get(`${acctKey(account)}bal`);
    return v === null ? undefined : Number(v);
  }

  async reserve(account: string, request: string, amount: number, scope: ReserveScope = 'durable', tags?: EntryTags): Promise<boolean> {
    const n = whole(amount);
    await Promise.all([this.client.hSet(ownerKey(this.owner), request, account), this.listOwner()]);
    const A = acctKey(account);
    const r = Number(await reserve.run(this.client, [`${A}bal`, `${A}entry:${request}:reserve`, `${A}entries`, `${A}open:${request}`],
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
    const keys = [`${A}bal`, `${A}entry:${request}:close`, `${A}open:${request}`, `${A}entry:${request}:reserve`, `${A}entries`, `${A}usage`,
      `${A}usage:h:${hour}`, `${A}usage:d:${Math.floor(hour / 24)}`, `${A}usage:hours`, `${A}usage:days`];
    const { markerTtlMs: ttl, usageDays } = this.keep;
    const [charged, uncharged, owner] = (await close.run(this.client, keys,
      [account, request, kind, want, whole(reserved), now, ttl.request, ttl.durable, usageDays * dayMs, ...closeArgs(tags)])) as [number, number, string];
    // After the close: a pointer left by a failure here points at nothing and is skipped.
    if (owner) await this.client.hDel(ownerKey(owner), request).catch(() => undefined);
    return [Number(charged), Number(uncharged)];
  }

  async topup(account: string, amount: number, ref: string, tags?: EntryTags): Promise<boolean> {
    return this.credit(account, amount, ref, this.keep.markerTtlMs.topup, tags);
  }

  /** `ttl`: how long the topup's marker answers a repeat of `ref` (0: for good). */
  private async credit(account: string, amount: number, ref: string, ttl: number, tags?: EntryTags): Promise<boolean> {
    const A = acctKey(account);
    const r = await topup.run(this.client, [`${A}bal`, `${A}entry:topup:${ref}`, `${A}entries`],
      [account, `topup:${ref}`, whole(amount), Date.now(), tags?.route ?? '', tags?.user ?? '', ttl]);
    if (Number(r) === -1) throw new Error(`quota_no_account: ${account}`);
    return Number(r) === 1;
  }

  /** The markers the index lists that have not expired, in the order written. */
  async entries(account: string): Promise<LedgerEntry[]> {
    const A = acctKey(account);
    const ids = await this.client.zRange(`${A}entries`, 0, -1);
    const rows: Stored[] = [];
    // One slot, so MGET works on a cluster too; in slices, so an account with a long window never makes one huge reply.
    for (let i = 0; i < ids.length; i += 1000) {
      const got = await this.client.mGet(ids.slice(i, i + 1000).map((id) => `${A}entry:${id}`));
      for (const r of got) if (r !== null) rows.push(JSON.parse(r) as Stored);
    }
    return rows.sort((a, b) => a.at - b.at || Number(a.seq ?? 0) - Number(b.seq ?? 0))
      .map((e) => ({ entry: e.entry, account: e.account, request: e.request, kind: e.kind, amount: e.amount, at: e.at, uncharged: e.uncharged ?? 0, ...tagsOf(e) }));
  }

  /**
   * Trims what no expiry removes: each account's index of expired markers and its usage periods past retention (the
   * cells themselves expire). An account's list from before the markers expired (`:log`) is moved under the index,
   * up to drainPerCall entries a call, its markers given the expiry they would have had: `more` while some is left.
   */
  async prune(now: number): Promise<Pruned> {
    const firstHour = hourOf(now - this.keep.usageDays * dayMs);
    const out: Pruned = { entries: 0, cells: 0, more: false };
    let budget = drainPerCall;
    const accounts = await this.client.sMembers(accountsKey);
    for (let i = 0; i < accounts.length; i += pruneBatch) {
      await Promise.all(accounts.slice(i, i + pruneBatch).map(async (account) => {
        const A = acctKey(account);
        const [dropped, periods, listed] = (await trim.run(this.client, [`${A}entries`, `${A}usage:hours`, `${A}usage:days`, `${A}log`],
          [now, firstHour, Math.floor(firstHour / 24)])) as number[];
        out.entries += Number(dropped);
        out.cells += Number(periods);
        const n = Math.min(Number(listed), budget);
        budget -= n;
        if (n > 0) await this.drainLog(account, n, now);
        if (Number(listed) > n) out.more = true;
      }));
    }
    return out;
  }

  /**
   * Moves the first `n` entries of an account's list from before (`:log`) under the index: each marker gets the
   * expiry it would have had from now (the longest window: the list does not say a request's scope), except the
   * ones kept (an open reservation's, the account's creation). The list goes once empty.
   */
  private async drainLog(account: string, n: number, now: number): Promise<void> {
    const A = acctKey(account);
    const listed = await this.client.lRange(`${A}log`, 0, n - 1);
    const rows = listed.map((r) => JSON.parse(r) as LedgerEntry);
    const open = await Promise.all(rows.map((e) => (e.kind === 'reserve' ? this.client.exists(`${A}open:${e.request}`) : 0)));
    const { topup: topupTtl, durable } = this.keep.markerTtlMs;
    await Promise.all(rows.map(async (e, i) => {
      const ttl = open[i] || e.entry === `topup:create:${account}` ? 0 : e.kind === 'topup' ? topupTtl : durable;
      if (ttl > 0) await this.client.pExpire(`${A}entry:${e.entry}`, ttl);
      await this.client.zAdd(`${A}entries`, { score: ttl > 0 ? now + ttl : Infinity, value: e.entry });
    }));
    // Only once they are under the index, so a prune stopped halfway loses none (one that repeats them sets them again).
    if (listed.length) await shift.run(this.client, [`${A}log`], [listed.length, listed[0], listed.at(-1)!]);
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
