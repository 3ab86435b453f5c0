// Quota ledger in Redis: each movement is one Lua script that checks and moves the balance atomically.
// Open reservations are kept too, with the process that holds them, so a sweep can refund the reservations of a
// process that died and a settle never trusts its caller for the amount.
// Redis holds hot state only: balances, open reservations, usage rollups, and a closed request's idempotency markers
// for as long as a repeated close or reserve can still arrive (Retention.markerTtlMs); then they expire, so under
// steady traffic the ledger's memory stops growing once that window has passed. The history of requests is the
// request log's (src/request-log/). The keys and scripts are in redis-quota-scripts.ts.
import { clampCharge, defaultRetention, tagsOf, usageClasses, type CloseTags, type EntryTags, type LedgerEntry, type Level, type OpenReservation, type Pruned, type QuotaLedger, type ReserveScope, type Retention, type Settled } from './quota-ledger.js';
import type { RedisClient } from './redis-client.js';
import { countsOf, groupCells, hourMs, noUsage, spansOf, type RollupDelta, type UsageQuery, type UsageRow, type UsageTotals } from './usage.js';
import { acctKey, accountsKey, closeKeys, dueKey, levelTagsKey, ownersKey, ownerKey, dayMs, slotTag, reserveLevels as takeLevels, close, topup } from './redis-quota-scripts.js';
import { isBudgetLevel } from './budget-level.js';
import { reserveByRuns, tagGroups } from './redis-levels.js';
import { pruneRedisLedger } from './redis-quota-prune.js';

/** A marker as stored: the entry and the server's write order (µs). */
type Stored = LedgerEntry & { seq?: string };

export class RedisQuotaLedger implements QuotaLedger {
  /** When this process last put itself in `sy:quota:owners` (again every few seconds, in case a sweep took it out). */
  private ownerListedAt = 0;

  /** `owner`: this process's id (Store.instance), recorded on every reservation it opens. `alive` says which owners
   * still beat (RedisInstances), so owners that are gone and hold nothing leave the owners index. `keep`: how long
   * markers and usage cells live. `cluster`: on a Redis Cluster, where a script runs on one slot (see reserveLevels). */
  constructor(private readonly client: RedisClient, private readonly owner = '', private readonly alive?: (owners: string[]) => Promise<Set<string>>,
    private readonly keep: Retention = defaultRetention, private readonly cluster = false) {}

  /**
   * The creation topup's marker stays with the account (one each), so creating an account again never credits it twice.
   * A budget level is not listed with the accounts (it has no usage for usage() to read); its tag is, for prune.
   */
  async createAccount(account: string, initial: number): Promise<void> {
    await (isBudgetLevel(account) ? this.client.sAdd(levelTagsKey, slotTag(account)) : this.client.sAdd(accountsKey, account));
    await this.client.set(`${acctKey(account)}bal`, '0', { condition: 'NX' });
    if (initial > 0) await this.credit(account, initial, `create:${account}`, 0);
  }

  async balance(account: string): Promise<number | undefined> {
    const v = await this.client.get(`${acctKey(account)}bal`);
    return v === null ? undefined : Number(v);
  }

  async reserve(account: string, request: string, amount: number, scope: ReserveScope = 'durable', tags?: EntryTags): Promise<boolean> {
    return (await this.reserveLevels([{ account, request }], amount, scope, tags)) < 0;
  }

  /**
   * On one server, one script takes every level and points the owner's index at them. On a cluster the owner's index
   * (a slot of its own) points at every level first, so a process that dies midway leaves nothing the sweep cannot find,
   * then one script per run of levels on one slot takes them in order (redis-levels.ts); the pointers of levels not
   * taken go after a refusal, as a lone reserve's do.
   */
  async reserveLevels(levels: Level[], amount: number, scope: ReserveScope = 'durable', tags?: EntryTags): Promise<number> {
    const args = [whole(amount), this.owner, scope, Date.now(), tags?.user ?? '', tags?.model ?? '', tags?.route ?? '', tags?.units ?? ''];
    if (!levels.length) return -1;
    if (!this.cluster) {
      await this.listOwner();
      return Math.max(-1, await this.take(levels, args, ownerKey(this.owner)));
    }
    const own = ownerKey(this.owner);
    await Promise.all([this.client.hSet(own, Object.fromEntries(levels.map((l) => [l.request, l.account]))), this.listOwner()]);
    return reserveByRuns(levels, (from, to) => this.take(levels.slice(from, to), args), async (taken, untaken) => {
      if (taken.length) await this.refundLevels(taken, whole(amount));
      if (untaken.length) await this.client.hDel(own, untaken.map((l) => l.request)).catch(() => undefined);
    });
  }

  /** One script over `levels` (all on one slot, on a cluster): -1 or below when taken, else the refusing level's index. */
  private async take(levels: Level[], args: (string | number)[], owner?: string): Promise<number> {
    const keys = levels.flatMap(({ account, request }) => {
      const A = acctKey(account);
      return [`${A}bal`, `${A}entry:${request}:reserve`, `${A}entries`, `${A}open:${request}`];
    });
    const each = levels.flatMap((l) => [l.account, l.request, l.unchecked ? '1' : '']);
    return Number(await takeLevels.run(this.client, owner ? [...keys, owner] : keys, [...args, ...each]));
  }

  async settle(account: string, request: string, reserved: number, actual: number, tags?: CloseTags): Promise<Settled> {
    return this.settleLevels([{ account, request }], reserved, actual, tags);
  }

  async refund(account: string, request: string, reserved: number, tags?: CloseTags): Promise<void> {
    await this.refundLevels([{ account, request }], reserved, tags);
  }

  async settleLevels(levels: readonly Level[], reserved: number, actual: number, tags?: CloseTags): Promise<Settled> {
    const want = clampCharge(Number.MAX_SAFE_INTEGER, actual).charged;
    const [charged, uncharged] = (await this.closeLevels(levels, 'settle', want, reserved, tags))[0] ?? [0, 0];
    return { charged, uncharged };
  }

  async refundLevels(levels: readonly Level[], reserved: number, tags?: CloseTags): Promise<void> {
    await this.closeLevels(levels, 'refund', 0, reserved, tags);
  }

  /**
   * On one server one script closes every level and drops this process's pointers to them; on a cluster one script per
   * tag, all at once (a close, unlike a reservation, needs no order: each level closes on its own), then the pointers.
   * Answers {charged, uncharged} per level, in level order.
   */
  private async closeLevels(levels: readonly Level[], kind: 'settle' | 'refund', want: number, reserved: number, tags?: CloseTags): Promise<[number, number][]> {
    if (!levels.length) return [];
    const now = Date.now();
    const hour = Math.floor(now / hourMs);
    const { markerTtlMs: ttl, usageDays } = this.keep;
    const args = [kind, want, whole(reserved), now, ttl.request, ttl.durable, usageDays * dayMs, this.owner, ...closeArgs(tags)];
    const groups = this.cluster ? tagGroups(levels) : [levels.map((_, i) => i)];
    const out: [number, number, string][] = [];
    await Promise.all(groups.map(async (g) => {
      const keys = g.flatMap((i) => closeKeys(levels[i].account, levels[i].request, hour));
      const each = g.flatMap((i) => [levels[i].account, levels[i].request]);
      const got = (await close.run(this.client, this.cluster ? keys : [...keys, ownerKey(this.owner)], [...args, ...each])) as [number, number, string][];
      g.forEach((i, j) => { out[i] = got[j]; });
    }));
    // After the close: a pointer left by a failure here points at nothing and is skipped.
    await Promise.all([...pointersByOwner(levels, out)].map(([owner, requests]) => this.client.hDel(ownerKey(owner), requests).catch(() => undefined)));
    return out.map(([charged, uncharged]) => [Number(charged), Number(uncharged)]);
  }

  async topup(account: string, amount: number, ref: string, tags?: EntryTags): Promise<boolean> {
    return this.credit(account, amount, ref, this.keep.markerTtlMs.topup, tags);
  }

  /** `ttl`: how long the topup's marker answers a repeat of `ref` (0: for good). */
  private async credit(account: string, amount: number, ref: string, ttl: number, tags?: EntryTags): Promise<boolean> {
    const A = acctKey(account);
    const r = await topup.run(this.client, [`${A}bal`, `${A}entry:topup:${ref}`, `${A}entries`, dueKey(account)],
      [account, `topup:${ref}`, signed(amount), Date.now(), tags?.route ?? '', tags?.user ?? '', ttl]);
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

  /** See redis-quota-prune.ts. */
  async prune(now: number): Promise<Pruned> {
    return pruneRedisLedger(this.client, this.keep, now);
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

/** The pointers the close scripts left to drop (other processes' reservations; on a cluster, all), by owner. */
function pointersByOwner(levels: readonly Level[], out: [number, number, string][]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  out.forEach(([, , owner], i) => { if (owner) m.set(owner, [...(m.get(owner) ?? []), levels[i].request]); });
  return m;
}

const closeArgs = (t: CloseTags | undefined) =>
  [t?.channel ?? '', t?.prompt_tokens ?? '', t?.completion_tokens ?? '', t?.units ?? '', ...usageClasses.map((n) => t?.[n] ?? '')];

/** Amounts are whole units; anything else is a bug upstream of the store, refused before it reaches Lua. */
/** A topup may be negative: money moved out (the other half of a transfer, a budget lowered). */
function signed(amount: number): number {
  const n = Math.round(amount);
  if (!Number.isSafeInteger(n)) throw new Error(`quota amount ${amount} is not a safe integer`);
  return n;
}

function whole(amount: number): number {
  const n = Math.round(amount);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`quota amount ${amount} is not a non-negative safe integer`);
  return n;
}
