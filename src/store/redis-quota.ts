// Quota ledger in Redis: each movement is one Lua script that checks and moves the balance atomically.
import type { LedgerEntry, QuotaLedger } from './quota-ledger.js';
import { LuaScript, type RedisClient } from './redis-client.js';

// KEYS: entry marker, balance, account log. ARGV: kind, amount to subtract, the entry as JSON.
// Redis runs a script with no other command in between, so "entry seen?", "balance covers it?" and the debit
// are one step: two instances reserving against the last units cannot both pass the check.
// Returns 1 applied (or already applied: a repeated entry is a no-op), 0 not covered, -1 no such account.
const apply = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
local balance = redis.call('GET', KEYS[2])
if not balance then return -1 end
if ARGV[1] == 'reserve' and tonumber(balance) < tonumber(ARGV[2]) then return 0 end
redis.call('DECRBY', KEYS[2], ARGV[2])
redis.call('SET', KEYS[1], ARGV[3])
redis.call('RPUSH', KEYS[3], ARGV[3])
return 1`);

const key = {
  balance: (account: string) => `sy:quota:bal:${account}`,
  entry: (entry: string) => `sy:quota:entry:${entry}`,
  log: (account: string) => `sy:quota:log:${account}`,
};

export class RedisQuotaLedger implements QuotaLedger {
  constructor(private readonly client: RedisClient) {}

  async createAccount(account: string, initial: number): Promise<void> {
    await this.client.set(key.balance(account), '0', { condition: 'NX' });
    if (initial > 0) await this.topup(account, initial, `create:${account}`);
  }

  async balance(account: string): Promise<number | undefined> {
    const v = await this.client.get(key.balance(account));
    return v === null ? undefined : Number(v);
  }

  async reserve(account: string, request: string, amount: number): Promise<boolean> {
    return (await this.insert(`${request}:reserve`, account, request, 'reserve', amount)) === 1;
  }

  async settle(account: string, request: string, reserved: number, actual: number): Promise<void> {
    await this.mustInsert(`${request}:close`, account, request, 'settle', actual - reserved);
  }

  async refund(account: string, request: string, reserved: number): Promise<void> {
    await this.mustInsert(`${request}:close`, account, request, 'refund', -reserved);
  }

  async topup(account: string, amount: number, ref: string): Promise<void> {
    await this.mustInsert(`topup:${ref}`, account, ref, 'topup', -amount);
  }

  async entries(account: string): Promise<LedgerEntry[]> {
    const rows = await this.client.lRange(key.log(account), 0, -1);
    return rows.map((r) => JSON.parse(r) as LedgerEntry);
  }

  /** Like SQLite's trigger, a movement other than a reservation on a missing account is an error, not a refusal. */
  private async mustInsert(entry: string, account: string, request: string, kind: string, amount: number): Promise<void> {
    if ((await this.insert(entry, account, request, kind, amount)) === -1) throw new Error(`quota_no_account: ${account}`);
  }

  private async insert(entry: string, account: string, request: string, kind: string, amount: number): Promise<number> {
    const rounded = Math.round(amount);
    if (!Number.isSafeInteger(rounded)) throw new Error(`quota amount ${amount} is not a safe integer`);
    const row: LedgerEntry = { entry, account, request, kind, amount: rounded, at: Date.now() };
    const r = await apply.run(this.client, [key.entry(entry), key.balance(account), key.log(account)],
      [kind, rounded, JSON.stringify(row)]);
    return Number(r);
  }
}
