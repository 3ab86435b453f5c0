// The upgrade from tokens that were their own accounts to tokens of users: one user per `--user` label (a token without
// one becomes a user of its own), each token's balance moved into its user's wallet, nothing lost: on SQLite and on
// Redis, with history and a reservation still open, checked by the ledger invariant on every account before and after.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../src/store/open-store.js';
import { TokenStore } from '../src/store/token-store.js';
import { openAccounts } from '../src/accounts/purse.js';
import { upgradeTokens } from '../src/accounts/upgrade-tokens.js';
import { walletOf } from '../src/accounts/user-store.js';
import { checkAccount } from './helpers/conservation.js';
import { redisSkip, startRedis, type RedisServer } from './helpers/redis.js';

const redisSkipped = redisSkip('the upgrade on Redis');
let redis: RedisServer | undefined;
before(async () => { if (!redisSkipped) redis = await startRedis(); });
after(async () => { await redis?.stop(); });

/**
 * The ledger invariant with reservations still open: balance = topups − charges − what open reservations hold, which
 * is minus the sum of every entry (a topup's amount is negative, a reserve's positive, a close gives back the rest);
 * and, once nothing is open, conservation's full check (every charge within its reservation).
 */
async function invariant(store: Store, accounts: string[], closed = true): Promise<Map<string, number>> {
  const balances = new Map<string, number>();
  for (const a of accounts) {
    const balance = (await store.quota.balance(a))!;
    const entries = await store.quota.entries(a);
    assert.equal(balance, 0 - entries.reduce((s, e) => s + e.amount, 0) || 0, `${a}: balance = topups − charges − open reservations`);
    if (closed) checkAccount(a, balance, entries, []);
    balances.set(a, balance);
  }
  return balances;
}

async function upgradeOn(uri: string): Promise<void> {
  const store = await openStore(uri, { quotaFlushMs: 0 });
  try {
    const tokens = new TokenStore(store, 0);
    const accounts = openAccounts(store, 0, () => 'UTC');
    // A release before users: tokens with their own balances, two under one label, one with none.
    const a1 = (await tokens.create({ group: 'default', quota: 1000, user: 'alice' })).record;
    const a2 = (await tokens.create({ group: 'default', quota: 500, user: 'alice' })).record;
    const b = (await tokens.create({ group: 'default', quota: 300, user: 'bob' })).record;
    const lone = (await tokens.create({ group: 'default', quota: 200 })).record;
    // History: settled and refunded requests, and one task reservation still open on a2.
    assert.ok(await store.quota.reserve(a1.id, 'r1', 100, 'durable'));
    await store.quota.settle(a1.id, 'r1', 100, 60);
    assert.ok(await store.quota.reserve(b.id, 'r2', 50, 'durable'));
    await store.quota.refund(b.id, 'r2', 50);
    assert.ok(await store.quota.reserve(a2.id, 'task1', 120, 'durable'));
    const ids = [a1.id, a2.id, b.id, lone.id];
    const before = await invariant(store, ids, false);
    assert.deepEqual([...before.values()], [940, 380, 300, 200]);

    const first = await upgradeTokens(store, tokens, accounts);
    assert.deepEqual(first, { tokens: 4, users: 3, moved: 940 + 380 + 300 + 200 });
    const users = await accounts.users.list();
    assert.deepEqual(users.map((u) => u.name).sort(), ['alice', 'bob', lone.id].sort());
    const alice = users.find((u) => u.name === 'alice')!;
    for (const t of ids) assert.match((await tokens.byId(t))!.user, /^usr_/);
    assert.equal((await tokens.byId(a2.id))!.user, alice.id, 'tokens of one label belong to one user');
    const wallets = users.map((u) => walletOf(u.id));
    const afterMove = await invariant(store, [...ids, ...wallets], false);
    assert.equal(afterMove.get(walletOf(alice.id)), 940 + 380);
    for (const t of ids) assert.equal(afterMove.get(t), 0, `${t} holds nothing of its own`);

    // The open reservation closes on its token's account; the next run moves what came back into the wallet.
    await store.quota.settle(a2.id, 'task1', 120, 20);
    assert.equal(await store.quota.balance(a2.id), 100);
    assert.deepEqual(await upgradeTokens(store, tokens, accounts), { tokens: 0, users: 0, moved: 100 });
    const final = await invariant(store, [...ids, ...wallets]);
    assert.equal(final.get(walletOf(alice.id)), 940 + 380 + 100);
    assert.equal(final.get(a2.id), 0);
    // All the money is where it was, less the one charge made since: 1820 before, 1720 + the open 120 less its 20.
    const total = [...final.values()].reduce((s, v) => s + v, 0);
    assert.equal(total, [...before.values()].reduce((s, v) => s + v, 0) + 120 - 20);
    assert.deepEqual(await upgradeTokens(store, tokens, accounts), { tokens: 0, users: 0, moved: 0 }, 'a third run changes nothing');
  } finally {
    await store.close();
  }
}

test('SQLite: tokens of an earlier release become tokens of users and their balances move into wallets, nothing lost', async () => {
  await upgradeOn(`sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-upgrade-')), 'store.sqlite')}`);
});

test('Redis: the same upgrade', { skip: redisSkipped }, async () => {
  await upgradeOn(redis!.uri);
});

test('SQLite, write-behind: an upgrade moves only what the token\'s account row holds; a slice another process holds moves when it comes back', async () => {
  const uri = `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-upgrade-held-')), 'store.sqlite')}`;
  const [a, b] = [await openStore(uri), await openStore(uri)];
  try {
    const tokens = new TokenStore(a, 0);
    const rec = (await tokens.create({ group: 'default', quota: 500 })).record;
    // Process a serves the token as an earlier release did: a slice of its balance moves into a's hold.
    assert.ok(await a.quota.reserve(rec.id, 'r1', 10, 'request'));
    const row = (await b.quota.storedBalance!(rec.id))!;
    assert.ok(row < 500, `a holds a slice (${500 - row})`);
    const moved = (await upgradeTokens(b, new TokenStore(b, 0), openAccounts(b, 0, () => 'UTC'))).moved;
    assert.equal(moved, row, 'only the row moved');
    assert.ok((await b.quota.storedBalance!(rec.id))! >= 0, 'the token\'s row never below 0');
    await a.quota.settle(rec.id, 'r1', 10, 4);
    await a.close(); // its hold goes back to the token's account
    const again = (await upgradeTokens(b, new TokenStore(b, 0), openAccounts(b, 0, () => 'UTC'))).moved;
    const user = (await new TokenStore(b, 0).byId(rec.id))!.user;
    assert.equal(moved + again, 500 - 4, 'everything but the charge reached the wallet');
    assert.equal(await b.quota.balance(walletOf(user)), 496);
  } finally {
    await b.close().catch(() => undefined);
    await a.close().catch(() => undefined);
  }
});
