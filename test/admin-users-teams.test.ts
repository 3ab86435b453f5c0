// The admin API for users and teams end to end (/admin/users, /admin/teams, and the caps of /admin/tokens): every
// route's answer, paging by cursor, every refusal a clear 400/404/409 in Shape A naming the field, with nothing
// changed; reports per user and per team that agree to the unit with the wallets' ledger and with the request log;
// and the `user` and `team` commands' exit codes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startStack, eventually, type Stack } from './helpers/stack.js';
import { assertShapeA, chatUrl, post } from './helpers/api.js';
import { projectRoot } from '../src/config/load-config.js';
import { walletOf } from '../src/accounts/user-store.js';
import { tokenCapAccount } from '../src/accounts/purse.js';
import { periodKey } from '../src/accounts/periods.js';

const adminKey = 'adm-' + 'u'.repeat(40);
let stack: Stack;

before(async () => { stack = await startStack({ env: { SWITCHYARD_ADMIN_KEY: adminKey } }); });
after(() => stack.close());

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.url}${path}`, {
    method, headers: { authorization: `Bearer ${adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

const cli = (...args: string[]) => spawnSync(process.execPath, [join(projectRoot, 'dist/src/cli.js'), ...args], { env: { ...process.env, SWITCHYARD_STORE: stack.storeUri }, encoding: 'utf8' });
const lastLine = (out: string) => out.trimEnd().split('\n').at(-1);

let n = 0;
const unique = (name: string) => `${name}-${++n}`;
async function newUser(body: Record<string, unknown> = {}) {
  const r = await call('POST', '/admin/users', { name: unique('user'), ...body });
  assert.equal(r.status, 201, r.text);
  return r.json;
}
async function newTeam(body: Record<string, unknown> = {}) {
  const r = await call('POST', '/admin/teams', { name: unique('team'), ...body });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

/** Every page of a listing, `limit` at a time, each starting after the last id of the one before. */
async function pages(path: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  const sep = path.includes('?') ? '&' : '?';
  for (let page = (await call('GET', `${path}${sep}limit=${limit}`)).json; ; page = (await call('GET', `${path}${sep}limit=${limit}&after=${page.last_id}`)).json) {
    assert.ok(page.data.length <= limit);
    seen.push(...page.data.map((x: { id: string }) => x.id));
    if (!page.has_more) return seen;
  }
}

/** Everything a refused call could have touched: users, teams, tokens and the wallets' ledger entries. */
async function snapshot() {
  const users = (await call('GET', '/admin/users?limit=1000')).json.data;
  const entries = await Promise.all(users.map((u: { id: string }) => stack.gw.store.quota.entries(walletOf(u.id))));
  return {
    users, teams: (await call('GET', '/admin/teams?limit=1000')).json.data, tokens: (await call('GET', '/admin/tokens?limit=1000')).json.data,
    entries: entries.map((e) => e.length),
  };
}

/** Each call is refused with its status and code, a short message naming the field, and nothing changes. */
async function refusals(cases: [string, string, unknown, number, string, string][]) {
  const before = await snapshot();
  for (const [method, path, body, status, code, names] of cases) {
    const r = await call(method, path, body);
    assert.equal(r.status, status, `${method} ${path} ${JSON.stringify(body)}: ${r.text}`);
    assertShapeA(r, status, code, 'invalid_request_error', names);
    assert.ok(r.text.length < 600, `a short answer: ${r.text}`);
  }
  assert.deepEqual(await snapshot(), before, 'a refused call changes nothing');
}

test('users: create, read by id or name, change, top up once per Idempotency-Key, list their tokens', async () => {
  const made = await call('POST', '/admin/users', { name: 'ada', quota: 5000 });
  assert.equal(made.status, 201, made.text);
  const id = made.json.id;
  assert.match(id, /^usr_[0-9a-f]{12}$/);
  assert.deepEqual({ ...made.json, id: undefined, created_at: undefined }, {
    id: undefined, object: 'user', name: 'ada', group: 'default', team: null, unlimited: false, disabled: false, balance: 5000, created_at: undefined,
  });
  assert.deepEqual((await call('GET', '/admin/users/ada')).json, made.json);
  assert.deepEqual((await call('GET', `/admin/users/${id}`)).json, made.json);

  const changed = await call('PATCH', '/admin/users/ada', { name: 'ada-l', group: 'vip', unlimited: true, disabled: true });
  assert.equal(changed.status, 200, changed.text);
  assert.deepEqual([changed.json.name, changed.json.group, changed.json.unlimited, changed.json.disabled], ['ada-l', 'vip', true, true]);
  assertShapeA(await call('GET', '/admin/users/ada'), 404, 'user_not_found', 'invalid_request_error');
  assert.equal((await call('POST', '/admin/users', { name: 'ada' })).status, 201, 'the old name is free again');
  const back = await call('PATCH', `/admin/users/${id}`, { group: 'default', unlimited: false, disabled: false });
  assert.deepEqual([back.json.group, back.json.unlimited, back.json.disabled], ['default', false, false]);

  const byName = await call('POST', '/admin/users/ada-l/topup', { amount: 700 }, { 'idempotency-key': 'inv-1' });
  assert.equal(byName.status, 200, byName.text);
  assert.equal(byName.json.balance, 5700);
  const byId = await call('POST', `/admin/users/${id}/topup`, { amount: 700 }, { 'idempotency-key': 'inv-1' });
  assert.equal(byId.json.balance, 5700, 'the same key counts once, whether the user is named by id or by name');
  assert.equal((await call('POST', `/admin/users/${id}/topup`, { amount: 1 })).json.balance, 5701, 'without a key: a topup of its own');

  const tokens = [await call('POST', '/admin/tokens', { user: 'ada-l' }), await call('POST', '/admin/tokens', { user: id, quota: 10 })];
  assert.ok(tokens.every((t) => t.status === 201 && t.json.user === id && t.json.group === 'default'), 'the user\'s own group');
  assert.equal(tokens[1].json.balance, 5711, 'a token\'s quota goes into its user\'s wallet');
  const listed = (await call('GET', '/admin/users/ada-l/tokens')).json;
  assert.deepEqual(listed.data.map((t: { id: string }) => t.id).sort(), tokens.map((t) => t.json.id).sort());
  assert.ok(!listed.data.some((t: Record<string, unknown>) => 'key' in t), 'no key is listed');
});

test('users: listed oldest first, a page at a time by cursor, filtered by team and by state', async () => {
  const team = await newTeam();
  const made: { id: string; name: string }[] = [];
  for (let i = 0; i < 5; i++) made.push(await newUser());
  for (const u of made.slice(0, 3)) assert.equal((await call('POST', `/admin/teams/${team.id}/members`, { user: u.name })).status, 200);
  await call('PATCH', `/admin/users/${made[1].id}`, { disabled: true });
  const ids = (list: { id: string }[]) => list.map((u) => u.id);
  const members = ids((await call('GET', `/admin/users?team=${team.name}`)).json.data);
  assert.deepEqual([...members].sort(), ids(made.slice(0, 3)).sort());
  assert.deepEqual(await pages(`/admin/users?team=${team.id}`, 2), members, 'the pages, one after another, are the listing');
  const active = ids((await call('GET', `/admin/users?team=${team.id}&disabled=false`)).json.data);
  assert.deepEqual(active, members.filter((id) => id !== made[1].id));
  const all = ids((await call('GET', '/admin/users?limit=1000')).json.data);
  assert.ok(made.every((u) => all.includes(u.id)));
  assert.deepEqual(await pages('/admin/users', 3), all);
});

test('users: bad input is 400 naming the field, unknown ids 404, a taken name 409; nothing changes', async () => {
  const u = await newUser({ quota: 100 });
  const other = await newUser();
  const p = `/admin/users/${u.id}`;
  await refusals([
    ['POST', '/admin/users', { name: 'x1', quota: -1 }, 400, 'invalid_request', '`quota`'],
    ['POST', '/admin/users', { name: 'x1', quota: 2.5 }, 400, 'invalid_request', '`quota`'],
    ['POST', '/admin/users', { name: 'x1', quota: 1e16 }, 400, 'invalid_request', '`quota`'],
    ['POST', '/admin/users', { name: 'x1', group: 'nope' }, 400, 'invalid_request', '`group`'],
    ['POST', '/admin/users', { quota: 1 }, 400, 'invalid_request', '`name`'],
    ['POST', '/admin/users', { name: ' padded ' }, 400, 'invalid_request', '`name`'],
    ['POST', '/admin/users', { name: 'usr_0123456789ab' }, 400, 'invalid_request', '`name`'],
    ['POST', '/admin/users', { name: 'x1', extra: 1 }, 400, 'invalid_request', '`extra`'],
    ['POST', '/admin/users', { name: u.name }, 409, 'conflict', '`name`'],
    ['PATCH', p, {}, 400, 'invalid_request', ''],
    ['PATCH', p, { group: 'nope' }, 400, 'invalid_request', '`group`'],
    ['PATCH', p, { disabled: 'yes' }, 400, 'invalid_request', '`disabled`'],
    ['PATCH', p, { name: other.name }, 409, 'conflict', '`name`'],
    ['PATCH', '/admin/users/usr_000000000000', { disabled: true }, 404, 'user_not_found', 'usr_000000000000'],
    ['PATCH', `/admin/users/${'n'.repeat(300)}`, { disabled: true }, 404, 'user_not_found', ''],
    ['POST', `${p}/topup`, { amount: 0 }, 400, 'invalid_request', '`amount`'],
    ['POST', `${p}/topup`, { amount: -5 }, 400, 'invalid_request', '`amount`'],
    ['POST', `${p}/topup`, { amount: 2.5 }, 400, 'invalid_request', '`amount`'],
    ['POST', `${p}/topup`, { amount: 1e16 }, 400, 'invalid_request', '`amount`'],
    ['POST', '/admin/users/nobody/topup', { amount: 5 }, 404, 'user_not_found', 'nobody'],
    ['GET', '/admin/users/nobody', undefined, 404, 'user_not_found', ''],
    ['GET', '/admin/users?after=usr_ffffffffffff', undefined, 400, 'invalid_request', '`after`'],
    ['GET', '/admin/users?limit=0', undefined, 400, 'invalid_request', '`limit`'],
    ['GET', '/admin/users?disabled=maybe', undefined, 400, 'invalid_request', '`disabled`'],
    ['GET', '/admin/users?team=no-such-team', undefined, 404, 'team_not_found', ''],
    ['GET', '/admin/users/nobody/tokens', undefined, 404, 'user_not_found', ''],
    ['GET', `${p}/tokens?after=tok_bad`, undefined, 400, 'invalid_request', '`after`'],
    ['GET', '/admin/users/nobody/usage', undefined, 404, 'user_not_found', ''],
    ['GET', `${p}/usage?group_by=member`, undefined, 400, 'invalid_request', '`group_by`'],
    ['GET', `${p}/usage?from=yesterday`, undefined, 400, 'invalid_request', '`from`'],
    ['GET', `${p}/usage?from=2026-01-01&to=2020-01-01`, undefined, 400, 'invalid_request', '`from`'],
    ['GET', `${p}/usage?format=xml`, undefined, 400, 'invalid_request', '`format`'],
  ]);
  const key = await call('POST', `${p}/topup`, { amount: 1 }, { 'idempotency-key': 'k'.repeat(200) });
  assertShapeA(key, 400, 'invalid_request', 'invalid_request_error', 'Idempotency-Key');
  assert.equal((await call('GET', p)).json.balance, 100);
});

test('teams: create, read by id or name, change, add and remove members; a user in one team at most; paged by cursor', async () => {
  const made = await call('POST', '/admin/teams', { name: 'research', budget: 1000, period: 'week', member_cap: 300 });
  assert.equal(made.status, 201, made.text);
  const t = made.json;
  assert.match(t.id, /^team_[0-9a-f]{12}$/);
  assert.deepEqual([t.name, t.budget, t.period, t.member_cap, t.members, t.current.used, t.current.remaining], ['research', 1000, 'week', 300, [], 0, 1000]);
  assert.match(t.current.key, /^w\d{4}-\d\d-\d\d$/);
  assert.deepEqual((await call('GET', '/admin/teams/research')).json, t);
  const a = await newUser();
  const added = await call('POST', '/admin/teams/research/members', { user: a.name });
  assert.equal(added.status, 200, added.text);
  assert.deepEqual(added.json.members, [{ id: a.id, name: a.name, used: 0 }]);
  assert.equal((await call('POST', `/admin/teams/${t.id}/members`, { user: a.id })).json.members.length, 1, 'adding a member again changes nothing');
  assert.equal((await call('GET', `/admin/users/${a.id}`)).json.team, t.id);

  const changed = await call('PATCH', '/admin/teams/research', { name: 'research-2', budget: 2000, member_cap: null, period: 'month' });
  assert.equal(changed.status, 200, changed.text);
  assert.deepEqual([changed.json.name, changed.json.budget, changed.json.member_cap, changed.json.period], ['research-2', 2000, null, 'month']);
  assertShapeA(await call('GET', '/admin/teams/research'), 404, 'team_not_found', 'invalid_request_error');
  assert.equal((await call('PATCH', `/admin/teams/${t.id}`, { budget: null })).json.budget, null);

  const other = await newTeam();
  assertShapeA(await call('POST', `/admin/teams/${other.id}/members`, { user: a.id }), 409, 'conflict', 'invalid_request_error', 'another team');
  const removed = await call('DELETE', `/admin/teams/research-2/members/${a.name}`);
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(removed.json.members, []);
  assert.equal((await call('POST', `/admin/teams/${other.id}/members`, { user: a.id })).status, 200, 'free to join another once removed');

  await newTeam();
  const all = (await call('GET', '/admin/teams?limit=1000')).json.data.map((x: { id: string }) => x.id);
  assert.ok(all.length >= 3 && all.includes(t.id) && all.includes(other.id));
  assert.deepEqual(await pages('/admin/teams', 2), all, 'the pages, one after another, are the listing');
});

test('teams: bad input is 400 naming the field, unknown ids 404, a second team, a taken name or a non-member 409; nothing changes', async () => {
  const t = await newTeam({ budget: 500 });
  const other = await newTeam();
  const member = await newUser();
  const stranger = await newUser();
  await call('POST', `/admin/teams/${other.id}/members`, { user: member.id });
  const p = `/admin/teams/${t.id}`;
  await refusals([
    ['POST', '/admin/teams', { name: 't1', budget: -1 }, 400, 'invalid_request', '`budget`'],
    ['POST', '/admin/teams', { name: 't1', budget: 1.5 }, 400, 'invalid_request', '`budget`'],
    ['POST', '/admin/teams', { name: 't1', budget: 1e16 }, 400, 'invalid_request', '`budget`'],
    ['POST', '/admin/teams', { name: 't1', budget: 10, period: 'year' }, 400, 'invalid_request', '`period`'],
    ['POST', '/admin/teams', { name: 't1', period: 'day' }, 400, 'invalid_request', '`period`'],
    ['POST', '/admin/teams', { name: 't1', member_cap: -3 }, 400, 'invalid_request', '`member_cap`'],
    ['POST', '/admin/teams', { name: 'team_0123456789ab' }, 400, 'invalid_request', '`name`'],
    ['POST', '/admin/teams', { name: t.name }, 409, 'conflict', '`name`'],
    ['PATCH', p, {}, 400, 'invalid_request', ''],
    ['PATCH', p, { budget: -5 }, 400, 'invalid_request', '`budget`'],
    ['PATCH', p, { period: 'fortnight' }, 400, 'invalid_request', '`period`'],
    ['PATCH', p, { name: other.name }, 409, 'conflict', '`name`'],
    ['PATCH', '/admin/teams/team_000000000000', { budget: 1 }, 404, 'team_not_found', 'team_000000000000'],
    ['GET', '/admin/teams/no-such-team', undefined, 404, 'team_not_found', ''],
    ['POST', `${p}/members`, { user: member.id }, 409, 'conflict', 'another team'],
    ['POST', `${p}/members`, { user: 'nobody' }, 404, 'user_not_found', ''],
    ['POST', `${p}/members`, {}, 400, 'invalid_request', '`user`'],
    ['POST', '/admin/teams/no-such-team/members', { user: stranger.id }, 404, 'team_not_found', ''],
    ['DELETE', `${p}/members/${stranger.id}`, undefined, 409, 'conflict', 'not a member'],
    ['DELETE', `${p}/members/nobody`, undefined, 404, 'user_not_found', ''],
    ['DELETE', `/admin/teams/no-such-team/members/${member.id}`, undefined, 404, 'team_not_found', ''],
    ['GET', '/admin/teams?after=team_ffffffffffff', undefined, 400, 'invalid_request', '`after`'],
    ['GET', '/admin/teams?limit=1001', undefined, 400, 'invalid_request', '`limit`'],
    ['GET', '/admin/teams/no-such-team/usage', undefined, 404, 'team_not_found', ''],
    ['GET', `${p}/usage?group_by=route`, undefined, 400, 'invalid_request', '`group_by`'],
  ]);
});

test('tokens: a user by id or name, caps and a cap per period; a new cap moves the token\'s accounts by the difference', async () => {
  const u = await newUser({ quota: 1_000_000 });
  const quota = stack.gw.store.quota;
  assertShapeA(await call('POST', '/admin/tokens', { user: 'usr_000000000000' }), 404, 'user_not_found', 'invalid_request_error');
  assertShapeA(await call('POST', '/admin/tokens', { quota: 5 }), 400, 'invalid_request', 'invalid_request_error', '`group`');
  const made = await call('POST', '/admin/tokens', { user: u.name, cap: 1_000, period_cap: 500, cap_period: 'day' });
  assert.equal(made.status, 201, made.text);
  const id = made.json.id;
  assert.deepEqual([made.json.user, made.json.cap, made.json.cap_left, made.json.period_cap, made.json.cap_period, made.json.balance], [u.id, 1_000, 1_000, 500, 'day', 1_000_000]);
  const today = tokenCapAccount(id, periodKey('day', Date.now(), stack.gw.gateway.accounts.zone));
  const r = await post(chatUrl(stack), { model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'word '.repeat(2000) }] }, made.json.key);
  assert.equal(r.status, 200, r.text);
  await eventually(async () => (await call('GET', `/admin/tokens/${id}`)).json.cap_left < 1_000 && (await quota.balance(today))! < 500);
  const spent = 1_000 - (await call('GET', `/admin/tokens/${id}`)).json.cap_left;
  assert.equal(await quota.balance(today), 500 - spent, 'the day\'s account: its cap less what was spent today');

  const raised = await call('PATCH', `/admin/tokens/${id}`, { cap: 1_500 });
  assert.equal(raised.status, 200, raised.text);
  assert.deepEqual([raised.json.cap, raised.json.cap_left, raised.json.period_cap], [1_500, 1_500 - spent, 500], 'what it spent still counts');
  assert.equal((await call('PATCH', `/admin/tokens/${id}`, { cap: 200 })).json.cap_left, 200 - spent);
  assert.equal((await call('PATCH', `/admin/tokens/${id}`, { period_cap: 800 })).json.period_cap, 800);
  assert.equal(await quota.balance(today), 800 - spent);
  const removed = await call('PATCH', `/admin/tokens/${id}`, { cap: null, period_cap: null, cap_period: null });
  assert.deepEqual([removed.json.cap, removed.json.cap_left, removed.json.period_cap, removed.json.cap_period], [null, null, null, null]);
  assert.equal(await quota.balance(id), -spent, 'uncapped: the account holds 0 − what the token spent');
  assert.equal(await quota.balance(today), -spent, 'a period no longer capped: 0 − what was spent in it');
  const moves = (await quota.entries(id)).filter((e) => e.kind === 'topup' && e.route === 'admin').map((e) => -e.amount);
  assert.deepEqual(moves, [500, -1_300, -200]);

  const before = (await call('GET', `/admin/tokens/${id}`)).json;
  await refusals([
    ['PATCH', `/admin/tokens/${id}`, { cap: -1 }, 400, 'invalid_request', '`cap`'],
    ['PATCH', `/admin/tokens/${id}`, { cap: 2.5 }, 400, 'invalid_request', '`cap`'],
    ['PATCH', `/admin/tokens/${id}`, { period_cap: 10 }, 400, 'invalid_request', '`cap_period`'],
    ['PATCH', `/admin/tokens/${id}`, { period_cap: 10, cap_period: 'year' }, 400, 'invalid_request', '`cap_period`'],
    ['POST', '/admin/tokens', { user: u.id, cap_period: 'week' }, 400, 'invalid_request', '`period_cap`'],
    ['POST', '/admin/tokens', { user: u.id, cap: 1e16 }, 400, 'invalid_request', '`cap`'],
  ]);
  assert.deepEqual((await call('GET', `/admin/tokens/${id}`)).json, before);
  // A token of an earlier release (its own account, no user) takes no cap until a restart upgrades it.
  const legacy = (await stack.gw.gateway.tokens.create({ group: 'default', quota: 1000 })).record;
  assertShapeA(await call('PATCH', `/admin/tokens/${legacy.id}`, { cap: 10 }), 400, 'invalid_request', 'invalid_request_error', '`cap`');
});

test('reports: a user\'s and a team\'s usage agree to the unit with the wallets\' ledger and the request log; CSV; the CLI says the same', async () => {
  const t0 = Date.now();
  const quota = stack.gw.store.quota;
  const team = await newTeam({ budget: 10_000_000, member_cap: 5_000_000 });
  const [a, b] = [await newUser({ quota: 1_000_000 }), await newUser({ quota: 2_000_000 })];
  for (const u of [a, b]) await call('POST', `/admin/teams/${team.id}/members`, { user: u.id });
  const [a1, a2, b1] = [await call('POST', '/admin/tokens', { user: a.id }), await call('POST', '/admin/tokens', { user: a.id }), await call('POST', '/admin/tokens', { user: b.id })].map((r) => r.json);
  const chat = (key: string, content: string) => post(chatUrl(stack), { model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content }] }, key);
  for (const [key, words] of [[a1.key, 300], [a1.key, 2000], [a2.key, 900], [b1.key, 4000]] as const) assert.equal((await chat(key, 'word '.repeat(words))).status, 200);
  assert.equal((await post(`${stack.url}/v1/embeddings`, { model: 'text-embedding-3-small', input: 'a fox' }, a2.key)).status, 200);
  assert.equal((await chat(b1.key, 'x [sim status=500]')).status, 502, 'refunded: a request that charged 0');
  const requests: Record<string, number> = { [a.id]: 4, [b.id]: 2 };
  const range = `from=${new Date(t0 - 60_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
  const usage = async (path: string, by = 'model') => (await call('GET', `${path}/usage?${range}&group_by=${by}`)).json;

  // The ledger: what left each wallet (its topups less its balance); the log: `charged` of the user's records.
  const walletSpent = async (id: string) => {
    const topups = (await quota.entries(walletOf(id))).filter((e) => e.kind === 'topup').reduce((s, e) => s - e.amount, 0);
    return topups - (await quota.balance(walletOf(id)))!;
  };
  const logged = async (id: string) => {
    await stack.gw.gateway.requestLog!.flush();
    return (await call('GET', `/admin/requests?user=${id}&kind=request&limit=1000&${range}`)).json.data as { charged: number | null }[];
  };
  await eventually(async () => {
    for (const u of [a, b]) {
      const report = await usage(`/admin/users/${u.id}`);
      if (report.total.requests !== requests[u.id] || (await logged(u.id)).length !== requests[u.id] || (await walletSpent(u.id)) !== report.total.charged) return false;
    }
    return true;
  });
  const charged: Record<string, number> = {};
  for (const u of [a, b]) {
    const report = await usage(`/admin/users/${u.name}`);
    charged[u.id] = report.total.charged;
    assert.ok(charged[u.id] > 0);
    assert.deepEqual(report.user, { id: u.id, name: u.name });
    assert.equal(await walletSpent(u.id), charged[u.id], 'the report agrees with the wallet\'s ledger');
    assert.equal((await logged(u.id)).reduce((s, r) => s + (r.charged ?? 0), 0), charged[u.id], 'the report agrees with the request log');
    const byToken = await usage(`/admin/users/${u.id}`, 'token');
    assert.equal(byToken.data.reduce((s: number, r: { charged: number }) => s + r.charged, 0), charged[u.id]);
    const byDay = await usage(`/admin/users/${u.id}`, 'day');
    assert.ok(byDay.data.every((r: { key: string }) => /^\d{4}-\d\d-\d\d$/.test(r.key)));
    assert.equal(byDay.total.charged, charged[u.id]);
  }
  assert.deepEqual((await usage(`/admin/users/${a.id}`, 'token')).data.map((r: { key: string; requests: number }) => [r.key, r.requests]).sort(),
    [[a1.id, 2], [a2.id, 2]].sort());

  const byMember = await usage(`/admin/teams/${team.name}`, 'member');
  const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : 1);
  assert.deepEqual([...byMember.members].sort(byId), [a, b].map((u) => ({ id: u.id, name: u.name })).sort(byId));
  assert.deepEqual(byMember.data.map((r: { key: string; name: string; requests: number; charged: number }) => [r.key, r.name, r.requests, r.charged]),
    [a, b].map((u) => [u.id, u.name, requests[u.id], charged[u.id]]).sort());
  const byModel = await usage(`/admin/teams/${team.id}`);
  assert.deepEqual(byModel.data.map((r: { key: string; requests: number }) => [r.key, r.requests]), [['gpt-4o-mini', 5], ['text-embedding-3-small', 1]]);
  assert.equal(byModel.total.charged, charged[a.id] + charged[b.id]);
  assert.equal(byModel.total.charged_usd, (charged[a.id] + charged[b.id]) / 1000);
  assert.deepEqual((await usage(`/admin/teams/${team.id}`, 'token')).data.map((r: { key: string }) => r.key).sort(), [a1.id, a2.id, b1.id].sort());
  assert.equal((await usage(`/admin/teams/${team.id}`, 'day')).total.requests, 6);

  // The team's budget and the members' caps counted the same charges; a new budget or cap keeps what was spent.
  const view = (await call('GET', `/admin/teams/${team.id}`)).json;
  assert.equal(view.current.used, charged[a.id] + charged[b.id]);
  const usedOf = (members: { id: string; used: number }[]) => Object.fromEntries(members.map((m) => [m.id, m.used]));
  assert.deepEqual(usedOf(view.members), charged);
  const raised = (await call('PATCH', `/admin/teams/${team.id}`, { budget: 20_000_000, member_cap: 6_000_000 })).json;
  assert.deepEqual([raised.current.used, raised.current.remaining], [view.current.used, 20_000_000 - view.current.used]);
  assert.deepEqual(usedOf(raised.members), charged, 'every member\'s cap moved');

  const csv = await fetch(`${stack.url}/admin/teams/${team.id}/usage?${range}&group_by=member&format=csv`, { headers: { authorization: `Bearer ${adminKey}` } });
  assert.equal(csv.status, 200);
  assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  const text = await csv.text();
  const [head, ...rows] = text.trimEnd().split('\r\n').map((l) => l.split(','));
  assert.deepEqual(head.slice(0, 4), ['member', 'name', 'requests', 'prompt_tokens']);
  assert.deepEqual(rows.map((r) => [r[0], r[1], Number(r[2]), Number(r[head.indexOf('charged')])]), byMember.data.map((r: { key: string; name: string; requests: number; charged: number }) => [r.key, r.name, r.requests, r.charged]));

  const [from, to] = range.split('&').map((p) => p.split('=')[1]);
  const viaCli = cli('team', 'usage', team.name, '--from', from, '--to', to, '--by', 'member', '--csv');
  assert.equal(viaCli.status, 0, viaCli.stderr);
  assert.equal(viaCli.stdout, text, 'the CLI writes the same report');
  const userCli = cli('user', 'usage', b.id, '--from', from, '--to', to, '--by', 'token');
  assert.equal(userCli.status, 0, userCli.stderr);
  assert.deepEqual(JSON.parse(userCli.stdout), await usage(`/admin/users/${b.id}`, 'token'));

  // A team's report covers its members of now: one who leaves takes their spending along.
  assert.equal((await call('DELETE', `/admin/teams/${team.id}/members/${b.id}`)).status, 200);
  const left = await usage(`/admin/teams/${team.id}`, 'member');
  assert.deepEqual([left.data.map((r: { key: string }) => r.key), left.total.charged], [[a.id], charged[a.id]]);
});

test('CLI: user and team commands exit 0 ok, 1 not found, 2 bad input, 3 conflict; a create prints the id alone on its last line', async () => {
  const made = cli('user', 'create', '--name', 'cli-user', '--quota', '100');
  assert.equal(made.status, 0, made.stderr);
  const id = lastLine(made.stdout)!;
  assert.match(id, /^usr_[0-9a-f]{12}$/);
  assert.equal((await call('GET', `/admin/users/${id}`)).json.balance, 100, 'the API sees what the CLI made');
  const team = cli('team', 'create', '--name', 'cli-team', '--budget', '50', '--period', 'week');
  assert.equal(team.status, 0, team.stderr);
  const teamId = lastLine(team.stdout)!;
  assert.match(teamId, /^team_[0-9a-f]{12}$/);
  const other = await newTeam();
  const stranger = await newUser();
  const cases: [string[], number, RegExp][] = [
    [['team', 'add', 'cli-team', 'cli-user'], 0, /1 members/],
    [['user', 'show', 'cli-user'], 0, new RegExp(`"team": "${teamId}"`)],
    [['user', 'topup', 'cli-user', '5'], 0, /balance 105/],
    [['user', 'usage', 'cli-user', '--csv'], 0, /^model,requests,/],
    [['user', 'show', 'nobody'], 1, /no user nobody/],
    [['team', 'show', 'nobody'], 1, /no team nobody/],
    [['user', 'usage', 'nobody'], 1, /no user nobody/],
    [['team', 'usage', 'nobody', '--by', 'member'], 1, /no team nobody/],
    [['user', 'create', '--name', 'x', '--quota', '-5'], 2, /quota/],
    [['user', 'topup', 'cli-user', '2.5'], 2, /amount/],
    [['team', 'create', '--name', 'y', '--budget', '5', '--period', 'year'], 2, /period/],
    [['user', 'usage', 'cli-user', '--by', 'color'], 2, /group_by/],
    [['team', 'usage', 'cli-team', '--from', 'yesterday'], 2, /from/],
    [['user', 'usage'], 2, /USER/],
    [['user', 'usage', 'cli-user', '--bogus'], 2, /bogus/],
    [['user', 'create', '--name', 'cli-user'], 3, /exists/],
    [['team', 'add', other.id, 'cli-user'], 3, /another team/],
    [['team', 'remove', 'cli-team', stranger.id], 3, /not a member/],
  ];
  for (const [args, status, says] of cases) {
    const r = cli(...args);
    assert.equal(r.status, status, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(status === 0 ? r.stdout : r.stderr, says, args.join(' '));
  }
  assert.equal((await call('GET', `/admin/users/${id}`)).json.balance, 105, 'the refused commands changed nothing');
});
