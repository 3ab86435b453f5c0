// The upgrade from releases where each token was its own account: every token becomes a token of a user (one user
// per distinct `--user` label; a token without one becomes a user of its own, named by the token's id) and its balance
// moves into that user's wallet. It runs at every start and every CLI command, and does nothing once done.
//
// Safe to repeat and to run on several instances at once: a label's user has an id derived from the label, the amount
// to move is fixed (in the store) before anything moves, and both moves are topups under one ref, which count once.
// Money on a token's account from reservations still open at the upgrade comes back to that account when they close;
// the next run moves it too (the amount is fixed per move number).
import { createHash } from 'node:crypto';
import type { Store } from '../store/store.js';
import type { TokenRecord, TokenStore } from '../store/token-store.js';
import { isUserId, walletOf, type UserRecord } from './user-store.js';
import type { Accounts } from './purse.js';

export interface Upgraded { tokens: number; users: number; moved: number }

const upgradeId = (label: string) => `usr_${createHash('sha256').update(`upgrade:${label}`).digest('hex').slice(0, 12)}`;

export async function upgradeTokens(store: Store, tokens: TokenStore, accounts: Accounts): Promise<Upgraded> {
  const out: Upgraded = { tokens: 0, users: 0, moved: 0 };
  const plans = store.kv('upgrade');
  for (const rec of await tokens.list()) {
    const owned = isUserId(rec.user) ? await accounts.users.get(rec.user) : undefined;
    if (owned && !(await owesMore(store, rec))) continue;
    const user = owned ?? await userFor(rec, accounts, out);
    out.moved += await moveBalance(store, plans, rec, user);
    if (!owned) {
      await tokens.setUser(rec.id, user.id);
      out.tokens++;
    }
  }
  return out;
}

/** An upgraded token without a cap holds nothing of its own: anything above 0 came back from an older reservation. */
async function owesMore(store: Store, rec: TokenRecord): Promise<boolean> {
  return rec.cap === undefined && ((await stored(store, rec.id)) ?? 0) > 0;
}

/**
 * Only what the token's account row holds moves: a slice another process holds (reservations in flight, charges not
 * yet written) stays with it, comes back to the row when released, and a later run moves it.
 */
const stored = (store: Store, account: string) => (store.quota.storedBalance ? store.quota.storedBalance(account) : store.quota.balance(account));

async function userFor(rec: TokenRecord, accounts: Accounts, out: Upgraded): Promise<UserRecord> {
  const label = rec.user || rec.id;
  const named = await accounts.users.idOfName(label);
  const existing = await accounts.users.get(named ?? upgradeId(label));
  if (existing) return existing;
  out.users++;
  return accounts.users.create({ id: upgradeId(label), name: label, group: rec.group, upgradedFrom: label }, 0);
}

/** Moves what the token's account holds (fixed first, under a move number) into the wallet: two topups, each once. */
async function moveBalance(store: Store, plans: ReturnType<Store['kv']>, rec: TokenRecord, user: UserRecord): Promise<number> {
  if (rec.cap !== undefined) return 0;
  const state = (await plans.get<{ n: number; amount: number; done?: boolean }>(rec.id)) ?? { n: 0, amount: 0, done: true };
  let plan = state;
  if (plan.done) {
    const balance = (await stored(store, rec.id)) ?? 0;
    if (balance <= 0) return 0;
    plan = { n: state.n + 1, amount: balance };
    await plans.set(rec.id, plan);
  }
  const ref = `upgrade:${rec.id}:${plan.n}`;
  // Two refs: a topup's ref names its entry, and entries are unique across accounts in some stores.
  await store.quota.topup(walletOf(user.id), plan.amount, `${ref}:in`, { route: 'upgrade', user: user.id });
  await store.quota.topup(rec.id, -plan.amount, `${ref}:out`, { route: 'upgrade', user: user.id });
  await plans.set(rec.id, { ...plan, done: true });
  return plan.amount;
}
