// What the Redis ledger's prune does (redis-quota.ts): trims what no expiry removes. Each account's index of expired
// markers and its usage periods past retention (the cells themselves expire); an account's list from before the markers
// expired (`:log`) moved under the index; and the budget levels whose markers have all expired, found through their
// tags' due indexes (redis-quota-scripts.ts), since they are in no list of accounts.
import type { LedgerEntry, Pruned, Retention } from './quota-ledger.js';
import type { RedisClient } from './redis-client.js';
import { hourOf } from './usage.js';
import { acctKey, accountsKey, dayMs, dueKey, levelTagsKey, pruneDue, shift, trim } from './redis-quota-scripts.js';

/** Accounts (or tags) trimmed at once, list entries moved under the index per call, and levels per tag per call, at most. */
const pruneBatch = 100;
const drainPerCall = 20_000;
const duePerTag = 500;

export async function pruneRedisLedger(client: RedisClient, keep: Retention, now: number): Promise<Pruned> {
  const out: Pruned = { entries: 0, cells: 0, more: false };
  await pruneAccounts(client, keep, now, out);
  await pruneLevels(client, now, out);
  return out;
}

/** Every account listed: its expired markers' members, its periods past retention, up to drainPerCall of its list. */
async function pruneAccounts(client: RedisClient, keep: Retention, now: number, out: Pruned): Promise<void> {
  const firstHour = hourOf(now - keep.usageDays * dayMs);
  let budget = drainPerCall;
  const accounts = await client.sMembers(accountsKey);
  for (let i = 0; i < accounts.length; i += pruneBatch) {
    await Promise.all(accounts.slice(i, i + pruneBatch).map(async (account) => {
      const A = acctKey(account);
      const [dropped, periods, listed] = (await trim.run(client, [`${A}entries`, `${A}usage:hours`, `${A}usage:days`, `${A}log`],
        [now, firstHour, Math.floor(firstHour / 24)])) as number[];
      out.entries += Number(dropped);
      out.cells += Number(periods);
      const n = Math.min(Number(listed), budget);
      budget -= n;
      if (n > 0) await drainLog(client, keep, account, n, now);
      if (Number(listed) > n) out.more = true;
    }));
  }
}

/**
 * Budget levels: per tag, the levels whose markers are all past their expiry lose their index members and leave the
 * due index (one script on the tag's slot, which checks again that no write came in between), duePerTag a call.
 */
async function pruneLevels(client: RedisClient, now: number, out: Pruned): Promise<void> {
  const tags = await client.sMembers(levelTagsKey);
  for (let i = 0; i < tags.length; i += pruneBatch) {
    await Promise.all(tags.slice(i, i + pruneBatch).map(async (tag) => {
      const due = dueKey(`~${tag}`);
      const levels = await client.zRangeByScore(due, '-inf', now, { LIMIT: { offset: 0, count: duePerTag } });
      if (!levels.length) return;
      const dropped = Number(await pruneDue.run(client, [due, ...levels.map((l) => `${acctKey(l)}entries`)], [now, ...levels]));
      out.entries += dropped; // after the await: `out.entries += await …` would add to a total read before it
      if (levels.length === duePerTag) out.more = true;
    }));
  }
}

/**
 * Moves the first `n` entries of an account's list from before (`:log`) under the index: each marker gets the
 * expiry it would have had from now (the longest window: the list does not say a request's scope), except the
 * ones kept (an open reservation's, the account's creation). The list goes once empty.
 */
async function drainLog(client: RedisClient, keep: Retention, account: string, n: number, now: number): Promise<void> {
  const A = acctKey(account);
  const listed = await client.lRange(`${A}log`, 0, n - 1);
  const rows = listed.map((r) => JSON.parse(r) as LedgerEntry);
  const open = await Promise.all(rows.map((e) => (e.kind === 'reserve' ? client.exists(`${A}open:${e.request}`) : 0)));
  const { topup: topupTtl, durable } = keep.markerTtlMs;
  await Promise.all(rows.map(async (e, i) => {
    const ttl = open[i] || e.entry === `topup:create:${account}` ? 0 : e.kind === 'topup' ? topupTtl : durable;
    if (ttl > 0) await client.pExpire(`${A}entry:${e.entry}`, ttl);
    await client.zAdd(`${A}entries`, { score: ttl > 0 ? now + ttl : Infinity, value: e.entry });
  }));
  // Only once they are under the index, so a prune stopped halfway loses none (one that repeats them sets them again).
  if (listed.length) await shift.run(client, [`${A}log`], [listed.length, listed[0], listed.at(-1)!]);
}
