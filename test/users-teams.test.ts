// Users own the money: every token of a user spends from one wallet, a team's budget for the period and a member's
// cap bound it too, a token may carry caps of its own, and a refusal names the level that refused (403
// insufficient_user_quota, Shape A) and when a period's budget resets, and nothing about balances.
import { test as nodeTest, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './helpers/stack.js';
import { post, chatUrl, assertShapeA } from './helpers/api.js';
import { TokenAdmin } from '../src/admin/token-admin.js';
import { UserAdmin } from '../src/admin/user-admin.js';
import { TeamAdmin } from '../src/admin/team-admin.js';
import { walletOf } from '../src/accounts/user-store.js';

const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 30_000 }, fn);

let stack: Stack;
let tokens: TokenAdmin, users: UserAdmin, teams: TeamAdmin;
const chat = (prompt = 'hi') => ({ model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: `${prompt} [sim chunks=2]` }] });
let perRequest = 0; // what one chat() request reserves

before(async () => {
  stack = await startStack({});
  const g = stack.gw.gateway;
  tokens = new TokenAdmin(g.store, g.tokens, () => g.runtime, undefined, g.accounts);
  users = new UserAdmin(g.store, g.accounts, () => g.runtime);
  teams = new TeamAdmin(g.store, g.accounts, users);
  const probe = await newUser('probe', 1_000_000);
  const { key } = await tokens.create({ user: probe.id });
  assert.equal((await post(chatUrl(stack), chat(), key)).status, 200);
  perRequest = stack.logs().filter((l) => l.msg === 'request' && l.reserved).at(-1)!.reserved;
  assert.ok(perRequest > 0);
});
after(() => stack.close());

let n = 0;
const newUser = (name: string, quota: number, unlimited?: boolean) => users.create({ name: `${name}-${++n}`, quota, unlimited });
const settled = () => new Promise((r) => setTimeout(r, 120)); // the write-behind ledger's flush interval, and a margin

test('two tokens of one user spend from one wallet', async () => {
  const u = await newUser('two-keys', 100 * perRequest);
  const a = await tokens.create({ user: u.id, name: 'laptop' });
  const b = await tokens.create({ user: u.name, name: 'ci' });
  assert.equal((await post(chatUrl(stack), chat(), a.key)).status, 200);
  assert.equal((await post(chatUrl(stack), chat(), b.key)).status, 200);
  await settled();
  const view = await users.get(u.id);
  const spent = 100 * perRequest - view.balance;
  assert.ok(spent > 0 && spent <= 2 * perRequest, `spent ${spent}`);
  assert.equal((await tokens.get(a.token.id)).balance, view.balance, 'a token shows its user\'s wallet');
});

test('an empty wallet refuses, naming the wallet and nothing about the balance', async () => {
  const u = await newUser('poor', perRequest - 1);
  const { key } = await tokens.create({ user: u.id });
  const r = await post(chatUrl(stack), chat(), key);
  assertShapeA(r, 403, 'insufficient_user_quota', 'platform_api_error', 'the user\'s wallet cannot cover it');
  assert.doesNotMatch(r.json.error.message, /balance/);
  assert.equal((await users.get(u.id)).balance, perRequest - 1, 'nothing moved');
});

test('a team\'s budget for the period refuses once used, naming the team and when it resets; the wallet keeps its money', async () => {
  const u = await newUser('member', 100 * perRequest);
  const team = await teams.create({ name: `eng-${n}`, budget: Math.floor(perRequest * 1.5), period: 'month' });
  await teams.add(team.id, u.id);
  const { key } = await tokens.create({ user: u.id });
  assert.equal((await post(chatUrl(stack), chat(), key)).status, 200);
  await settled();
  const used = (await teams.get(team.id)).current.used!;
  assert.ok(used > 0 && used <= perRequest);
  // What is left of the budget (half a reservation or more, less than one) cannot cover a second request.
  assert.ok((await teams.get(team.id)).current.remaining! < perRequest);
  const r = await post(chatUrl(stack), chat(), key);
  assertShapeA(r, 403, 'insufficient_user_quota', 'platform_api_error', `team "${team.name}"'s budget for the month is used up; it resets at `);
  assert.match(r.json.error.message, /resets at \d{4}-\d\d-\d\dT00:00:00\.000Z/);
  const wallet = (await users.get(u.id)).balance;
  assert.equal(wallet, 100 * perRequest - used, 'the wallet paid what the team\'s budget counted');
});

test('a member\'s cap refuses before the team\'s budget does', async () => {
  const u = await newUser('capped-member', 100 * perRequest);
  const team = await teams.create({ name: `capped-${n}`, budget: 100 * perRequest, member_cap: perRequest - 1, period: 'week' });
  await teams.add(team.id, u.id);
  const { key } = await tokens.create({ user: u.id });
  const r = await post(chatUrl(stack), chat(), key);
  assertShapeA(r, 403, 'insufficient_user_quota', 'platform_api_error', `your cap as a member of team "${team.name}" for the week is used up`);
});

test('a token\'s total cap and its cap per day refuse for that token only', async () => {
  const u = await newUser('caps', 100 * perRequest);
  const capped = await tokens.create({ user: u.id, cap: perRequest - 1 });
  const daily = await tokens.create({ user: u.id, period_cap: perRequest - 1, cap_period: 'day' });
  const free = await tokens.create({ user: u.id });
  assertShapeA(await post(chatUrl(stack), chat(), capped.key), 403, 'insufficient_user_quota', 'platform_api_error', 'this token\'s cap is used up');
  assertShapeA(await post(chatUrl(stack), chat(), daily.key), 403, 'insufficient_user_quota', 'platform_api_error', 'this token\'s cap for the day is used up; it resets at');
  assert.equal((await post(chatUrl(stack), chat(), free.key)).status, 200);
});

test('an unlimited user in a team is bounded by the team\'s budget alone; the wallet records the spending below 0', async () => {
  const u = await newUser('staff', 0, true);
  const team = await teams.create({ name: `staff-${n}`, budget: 3 * perRequest });
  await teams.add(team.id, u.id);
  const { key } = await tokens.create({ user: u.id });
  assert.equal((await post(chatUrl(stack), chat(), key)).status, 200);
  await settled();
  const used = (await teams.get(team.id)).current.used!;
  assert.equal((await users.get(u.id)).balance, -used);
});

test('N concurrent requests against a wallet that covers k: k served, the rest refused, the wallet never below 0', async () => {
  const k = 4, N = 16;
  const u = await newUser('race', k * perRequest);
  const keys = await Promise.all([0, 1].map(() => tokens.create({ user: u.id })));
  // The upstream answers after 400 ms, so every reservation is made before any settles.
  const slow = { ...chat(), messages: [{ role: 'user', content: 'hi [sim chunks=2 first_byte_ms=400]' }] };
  const replies = await Promise.all(Array.from({ length: N }, (_, i) => post(chatUrl(stack), slow, keys[i % 2].key)));
  const served = replies.filter((r) => r.status === 200).length;
  const refused = replies.filter((r) => r.status === 403 && r.json.error.code === 'insufficient_user_quota').length;
  assert.equal(served, k);
  assert.equal(refused, N - k);
  await settled();
  const balance = (await users.get(u.id)).balance;
  assert.ok(balance >= 0 && balance < k * perRequest, `balance ${balance}`);
  assert.equal(await stack.gw.gateway.store.quota.balance(walletOf(u.id)), balance);
});

test('a disabled user\'s tokens get 401 invalid_api_key, and work again once enabled', async () => {
  const u = await newUser('leaver', 100 * perRequest);
  const { key } = await tokens.create({ user: u.id });
  await users.setDisabled(u.id, true);
  assertShapeA(await post(chatUrl(stack), chat(), key), 401, 'invalid_api_key', 'invalid_request_error', 'Invalid API key');
  await users.setDisabled(u.id, false);
  assert.equal((await post(chatUrl(stack), chat(), key)).status, 200);
});

test('the billing endpoints answer from the user and team: the balance is what the tightest level has left', async () => {
  const get = async (path: string, key: string) => (await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<any>;
  const u = await newUser('billing', 10 * perRequest);
  const a = await tokens.create({ user: u.id });
  const b = await tokens.create({ user: u.id });
  assert.equal((await post(chatUrl(stack), chat(), a.key)).status, 200);
  await settled();
  const wallet = (await users.get(u.id)).balance;
  const spent = 10 * perRequest - wallet;
  const perUsd = stack.gw.gateway.runtime.unitsPerUsd;
  const subB = await get('/v1/dashboard/billing/subscription', b.key);
  assert.equal(subB.balance, wallet, 'a second token of the user shows the shared wallet');
  assert.equal(subB.hard_limit_usd, Math.round(((wallet + spent) / perUsd) * 1e6) / 1e6);
  const usageB = await get('/dashboard/billing/usage', b.key);
  assert.equal(usageB.total_usage, Math.round((spent / perUsd) * 1e6) / 1e6 * 100, 'usage counts every token of the user');
  // A team budget below the wallet is what the token can spend.
  const team = await teams.create({ name: `billing-${n}`, budget: 2 * perRequest, period: 'day' });
  await teams.add(team.id, u.id);
  assert.equal((await get('/v1/dashboard/billing/subscription', a.key)).balance, 2 * perRequest);
  // No bounded level: new-api's unlimited figure.
  const staff = await newUser('unbounded', 0, true);
  const s = await tokens.create({ user: staff.id });
  assert.equal((await get('/v1/dashboard/billing/subscription', s.key)).hard_limit_usd, 100_000_000);
});

test('a team\'s spending past a threshold of its budget raises one budget alert (log line) per threshold and period', async () => {
  const u = await newUser('alerted', 100 * perRequest);
  const team = await teams.create({ name: `alerted-${n}`, budget: 4 * perRequest, period: 'month' });
  await teams.add(team.id, u.id);
  const { key } = await tokens.create({ user: u.id });
  for (let i = 0; i < 3; i++) assert.equal((await post(chatUrl(stack), chat('hello there, a longer prompt '.repeat(20)), key)).status, 200);
  const alerts = () => stack.logs().filter((l) => l.msg === 'budget alert' && l.subject === team.id);
  const deadline = Date.now() + 5000;
  while (alerts().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const used = (await teams.get(team.id)).current.used!;
  const expected = [50, 80, 100].filter((t) => used * 100 >= t * 4 * perRequest);
  await new Promise((r) => setTimeout(r, 1500)); // a second tick would raise nothing new
  assert.deepEqual(alerts().map((l) => l.threshold).sort((a, b) => a - b), expected, `used ${used} of ${4 * perRequest}`);
  assert.ok(expected.length > 0, 'the requests spent half the budget or more');
});
