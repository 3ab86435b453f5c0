// Quota ledger in Redis: each movement is one Lua script that checks and moves the balance atomically.
// Open reservations are kept too (`sy:quota:open:…`, with the process that holds them), so a sweep can refund
// the reservations of a process that died and a settle never trusts its caller for the amount.
import { clampCharge, type LedgerEntry, type OpenReservation, type QuotaLedger, type ReserveScope, type Settled } from './quota-ledger.js';
import { LuaScript, type RedisClient } from './redis-client.js';

const P = 'sy:quota:';
// Keys, named inside the scripts (one Redis node, not Redis Cluster, as for the task index):
//   bal:<account>  balance · log:<account>  entries as JSON · entry:<entry>  marker holding the entry
//   open:req:<request>  the open reservation · open:own:<owner>  its requests · open:owners  owners with any
const lib = `
local P = '${P}'
local function row(entry, account, request, kind, amount, at, uncharged)
  local r = cjson.encode({entry = entry, account = account, request = request, kind = kind, amount = amount, at = at, uncharged = uncharged})
  redis.call('SET', P .. 'entry:' .. entry, r)
  redis.call('RPUSH', P .. 'log:' .. account, r)
end
`;

// ARGV: account, request, amount, owner, scope, now. Returns 1 applied (or already applied), 0 not covered, -1 no account.
// Redis runs a script with no other command in between: "seen?", "covered?" and the debit are one step.
const reserve = new LuaScript(`${lib}
local account, request, amount, owner = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if redis.call('EXISTS', P .. 'entry:' .. request .. ':reserve') == 1 then return 1 end
local balance = redis.call('GET', P .. 'bal:' .. account)
if not balance then return -1 end
if tonumber(balance) < amount then return 0 end
redis.call('DECRBY', P .. 'bal:' .. account, amount)
row(request .. ':reserve', account, request, 'reserve', amount, tonumber(ARGV[6]), 0)
redis.call('SET', P .. 'open:req:' .. request, cjson.encode({request = request, account = account, amount = amount, owner = owner, scope = ARGV[5], at = tonumber(ARGV[6])}))
redis.call('SADD', P .. 'open:own:' .. owner, request)
redis.call('SADD', P .. 'open:owners', owner)
return 1`);

// ARGV: request, kind (settle|refund), wanted charge, caller's reserved (for reservations older than open rows), now.
// Returns {charged, uncharged}; a request closed before answers what that close charged.
const close = new LuaScript(`${lib}
local request, kind, want, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[5])
local prior = redis.call('GET', P .. 'entry:' .. request .. ':close')
local open = redis.call('GET', P .. 'open:req:' .. request)
local amount, account, owner
if open then
  local o = cjson.decode(open)
  amount, account, owner = tonumber(o.amount), o.account, o.owner
else
  local r = redis.call('GET', P .. 'entry:' .. request .. ':reserve')
  if not r then return {0, 0} end
  amount, account = tonumber(ARGV[4]), cjson.decode(r).account
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
row(request .. ':close', account, request, kind, charged - amount, now, uncharged)
if owner then
  redis.call('DEL', P .. 'open:req:' .. request)
  redis.call('SREM', P .. 'open:own:' .. owner, request)
  if redis.call('SCARD', P .. 'open:own:' .. owner) == 0 then redis.call('SREM', P .. 'open:owners', owner) end
end
return {charged, uncharged}`);

// ARGV: account, entry, amount to credit, now. Returns 1 applied (or already), -1 no account.
const topup = new LuaScript(`${lib}
if redis.call('EXISTS', P .. 'entry:' .. ARGV[2]) == 1 then return 1 end
if redis.call('EXISTS', P .. 'bal:' .. ARGV[1]) == 0 then return -1 end
redis.call('INCRBY', P .. 'bal:' .. ARGV[1], ARGV[3])
row(ARGV[2], ARGV[1], string.sub(ARGV[2], 7), 'topup', -tonumber(ARGV[3]), tonumber(ARGV[4]), 0)
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

  async reserve(account: string, request: string, amount: number, scope: ReserveScope = 'durable'): Promise<boolean> {
    const r = await reserve.run(this.client, [], [account, request, whole(amount), this.owner, scope, Date.now()]);
    return Number(r) === 1;
  }

  async settle(_account: string, request: string, reserved: number, actual: number): Promise<Settled> {
    const want = clampCharge(Number.MAX_SAFE_INTEGER, actual).charged;
    const [charged, uncharged] = (await close.run(this.client, [], [request, 'settle', want, whole(reserved), Date.now()])) as number[];
    return { charged: Number(charged), uncharged: Number(uncharged) };
  }

  async refund(_account: string, request: string, reserved: number): Promise<void> {
    await close.run(this.client, [], [request, 'refund', 0, whole(reserved), Date.now()]);
  }

  async topup(account: string, amount: number, ref: string): Promise<void> {
    if (Number(await topup.run(this.client, [], [account, `topup:${ref}`, whole(amount), Date.now()])) === -1) {
      throw new Error(`quota_no_account: ${account}`);
    }
  }

  async entries(account: string): Promise<LedgerEntry[]> {
    const rows = await this.client.lRange(`${P}log:${account}`, 0, -1);
    return rows.map((r) => JSON.parse(r) as LedgerEntry);
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

/** Amounts are whole units; anything else is a bug upstream of the store, refused before it reaches Lua. */
function whole(amount: number): number {
  const n = Math.round(amount);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`quota amount ${amount} is not a non-negative safe integer`);
  return n;
}
