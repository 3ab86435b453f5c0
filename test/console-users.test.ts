// The console's users over HTTP: invites (random, hashed, single-use, expiring, voided by a newer one), passwords,
// sign-in (one answer for a wrong name or password, bounded per account and per address), the session cookie and
// CSRF, and a user who edits ids in requests: another user's token, request or id is 404, as one that does not exist.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startStack, eventually, type Stack } from './helpers/stack.js';
import { assertShapeA, chatUrl, post } from './helpers/api.js';
import { call, inviteCode, memberOf, newUser, signIn } from './helpers/console-user.js';
import { digestOf } from '../src/accounts/secrets.js';
import { signInLimits } from '../src/accounts/sign-in-limits.js';
import { projectRoot } from '../src/config/load-config.js';


const adminKey = 'users-' + 'k'.repeat(40);
const password = 'correct horse battery staple';
let stack: Stack;

before(async () => { stack = await startStack({ env: { SWITCHYARD_ADMIN_KEY: adminKey } }); });
after(() => stack.close());

const bare = (message: string) => message.replace(/ \(request id: [^)]+\)$/, '');
const accept = (code: string, pw = password) => call(stack, 'POST', '/console/api/invite', { code, password: pw });

test('an invite is 256 random bits, stored hashed, good once, voided by a newer one, and 410 once expired', async () => {
  const u = await newUser(stack, 'invitee');
  const admin = await call(stack, 'POST', `/admin/users/${u.id}/invite`, undefined, { authorization: `Bearer ${adminKey}` });
  assert.equal(admin.status, 201, admin.text);
  assert.match(admin.json.url, new RegExp(`^${stack.url}/console#invite=[A-Za-z0-9_-]{43}$`));
  assert.ok(admin.json.expires_at * 1000 - Date.now() > 71 * 3600_000);
  const code = new URL(admin.json.url).hash.slice('#invite='.length);
  const kv = stack.gw.gateway.store.kv('invites');
  assert.equal(await kv.get(`code:${code}`), undefined, 'the code itself is not stored');
  assert.equal((await kv.get<{ user: string }>(`code:${digestOf(code)}`))?.user, u.id);

  // A newer invite voids it; unknown and malformed codes are 404 and say nothing about any user.
  const newer = await inviteCode(stack, adminKey, u.id);
  for (const c of [code, 'A'.repeat(43), 'not a code', 'x'.repeat(128)]) {
    const r = await accept(c);
    assertShapeA(r, 404, 'invite_not_found', 'invalid_request_error');
    assert.doesNotMatch(r.text, /invitee|usr_/);
  }
  // A refused password leaves the invite good.
  assertShapeA(await accept(newer, 'short'), 400, 'invalid_request', 'invalid_request_error', '`password`');
  assertShapeA(await accept(newer, 'x'.repeat(257)), 400, 'invalid_request', 'invalid_request_error', '`password`');
  assertShapeA(await accept(newer, ' '.repeat(12)), 400, 'invalid_request', 'invalid_request_error', '`password`');
  const ok = await accept(newer);
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(ok.json, { object: 'invite.accepted', user: { id: u.id, name: 'invitee' } });
  assertShapeA(await accept(newer), 409, 'invite_used', 'invalid_request_error');

  const expired = await stack.gw.gateway.accounts.invites.mint(u.id, Date.now() - 73 * 3600_000);
  assertShapeA(await accept(expired.code), 410, 'invite_expired', 'invalid_request_error');
  const nobody = await call(stack, 'POST', '/admin/users/usr_000000000000/invite', undefined, { authorization: `Bearer ${adminKey}` });
  assertShapeA(nobody, 404, 'user_not_found', 'invalid_request_error');
});

test('two accepts of one invite at once: exactly one sets the password', async () => {
  const u = await newUser(stack, 'racer');
  const code = await inviteCode(stack, adminKey, u.id);
  const [a, b] = await Promise.all([accept(code, 'first password here'), accept(code, 'second password here')]);
  assert.deepEqual([a.status, b.status].sort(), [200, 409]);
  const winner = a.status === 200 ? 'first password here' : 'second password here';
  assert.equal((await call(stack, 'POST', '/console/api/sign-in', { name: 'racer', password: winner })).status, 200);
});

test('switchyard user invite prints the link alone on its last line', async () => {
  const u = await newUser(stack, 'cli-invitee');
  const r = spawnSync(process.execPath, [join(projectRoot, 'dist', 'src', 'cli.js'), 'user', 'invite', 'cli-invitee', '--url', stack.url], {
    env: { ...process.env, SWITCHYARD_STORE: stack.storeUri }, encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const link = r.stdout.trim().split('\n').at(-1)!;
  assert.match(link, new RegExp(`^${stack.url}/console#invite=[A-Za-z0-9_-]{43}$`));
  assert.match(r.stdout, new RegExp(u.id));
  assert.equal((await accept(new URL(link).hash.slice('#invite='.length))).status, 200);
});

test('sign-in: a wrong password, an unknown name, no password yet and a disabled user all get the same 401', async () => {
  await memberOf(stack, adminKey, 'dora', password);
  await newUser(stack, 'no-password-yet');
  const off = await memberOf(stack, adminKey, 'switched-off', password);
  const g = stack.gw.gateway;
  await g.accounts.users.update({ ...(await g.accounts.users.get(off.id))!, disabled: true });
  const messages = new Set<string>();
  for (const [name, pw] of [['dora', 'not the password'], ['nobody-at-all', password], ['no-password-yet', password], ['switched-off', password]]) {
    const r = await call(stack, 'POST', '/console/api/sign-in', { name, password: pw });
    assertShapeA(r, 401, 'invalid_credentials', 'invalid_request_error');
    assert.equal(r.headers.get('set-cookie'), null);
    messages.add(bare(r.json.error.message));
  }
  assert.deepEqual([...messages], ['Wrong user name or password']);
  assertShapeA(await call(stack, 'POST', '/console/api/sign-in', { name: 'dora' }), 400, 'invalid_request', 'invalid_request_error', '`password`');
  // Not JSON, or from another origin: refused before anything is looked up.
  assertShapeA(await call(stack, 'POST', '/console/api/sign-in', `name=dora&password=${password}`, { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type', 'invalid_request_error');
  assertShapeA(await call(stack, 'POST', '/console/api/sign-in', { name: 'dora', password }, { origin: 'https://evil.example' }), 403, 'csrf_refused', 'invalid_request_error');
});

test('the session cookie: HttpOnly, SameSite=Strict, Path=/, Secure under TLS; the session is stored hashed; sign-out deletes it', async () => {
  await memberOf(stack, adminKey, 'erin', password);
  const plain = await call(stack, 'POST', '/console/api/sign-in', { name: 'erin', password });
  const cookie = plain.headers.get('set-cookie')!;
  assert.match(cookie, /^sy_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
  const tls = await call(stack, 'POST', '/console/api/sign-in', { name: 'erin', password }, { 'x-forwarded-proto': 'https' });
  assert.match(tls.headers.get('set-cookie')!, /^__Host-sy_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/);

  const s = await signIn(stack, 'erin', password);
  const id = s.cookie.split('=')[1];
  const kv = stack.gw.gateway.store.kv('sessions');
  assert.equal(await kv.get(id), undefined, 'the session id itself is not stored');
  assert.ok(await kv.get(digestOf(id)));
  assert.equal((await s.call('GET', '/console/api/me')).status, 200);
  const out = await s.call('POST', '/console/api/sign-out');
  assert.equal(out.status, 200, out.text);
  assert.match(out.headers.get('set-cookie')!, /^sy_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/);
  assert.equal(await kv.get(digestOf(id)), undefined);
  assertShapeA(await s.call('GET', '/console/api/me'), 401, 'session_required', 'invalid_request_error');
  assertShapeA(await call(stack, 'GET', '/console/api/me'), 401, 'session_required', 'invalid_request_error');
  assertShapeA(await call(stack, 'GET', '/console/api/me', undefined, { cookie: 'sy_session=forged' }), 401, 'session_required', 'invalid_request_error');
});

test('a new password (a new invite) ends the sessions opened before it; a disabled user\'s session ends at once', async () => {
  const u = await memberOf(stack, adminKey, 'frank', password);
  const s = await signIn(stack, 'frank', password);
  assert.equal((await accept(await inviteCode(stack, adminKey, u.id), 'a brand new password')).status, 200);
  assertShapeA(await s.call('GET', '/console/api/me'), 401, 'session_required', 'invalid_request_error');
  const again = await signIn(stack, 'frank', 'a brand new password');
  const g = stack.gw.gateway;
  await g.accounts.users.update({ ...(await g.accounts.users.get(u.id))!, disabled: true });
  assertShapeA(await again.call('GET', '/console/api/me'), 401, 'session_required', 'invalid_request_error');
});

test('CSRF: a state-changing call without the session\'s token, with another\'s, or from another origin is 403', async () => {
  await memberOf(stack, adminKey, 'gina', password);
  const s = await signIn(stack, 'gina', password);
  const other = await signIn(stack, 'gina', password);
  const create = (headers: Record<string, string>) => call(stack, 'POST', '/console/api/me/tokens', { name: 'csrf' }, { cookie: s.cookie, ...headers });
  assertShapeA(await create({}), 403, 'csrf_refused', 'invalid_request_error');
  assertShapeA(await create({ 'x-csrf-token': other.csrf }), 403, 'csrf_refused', 'invalid_request_error');
  assertShapeA(await create({ 'x-csrf-token': s.csrf, origin: 'https://evil.example' }), 403, 'csrf_refused', 'invalid_request_error');
  assertShapeA(await create({ 'x-csrf-token': s.csrf, 'sec-fetch-site': 'cross-site' }), 403, 'csrf_refused', 'invalid_request_error');
  assertShapeA(await call(stack, 'POST', '/console/api/sign-out', undefined, { cookie: s.cookie }), 403, 'csrf_refused', 'invalid_request_error');
  assert.equal((await s.call('GET', '/console/api/me/tokens')).json.data.length, 0, 'nothing was made');
  const made = await create({ 'x-csrf-token': s.csrf, origin: stack.url });
  assert.equal(made.status, 201, made.text);
});

test('failed sign-ins are bounded per account (even with the right password after) and per address, with Retry-After', async () => {
  await memberOf(stack, adminKey, 'hank', password);
  const from = (address: string) => ({ 'x-forwarded-for': address });
  for (let i = 0; i < signInLimits.perAccount; i++) {
    const r = await call(stack, 'POST', '/console/api/sign-in', { name: 'hank', password: `wrong guess ${i}` }, from(`198.51.100.${i + 1}`));
    assert.equal(r.status, 401, r.text);
  }
  const limited = await call(stack, 'POST', '/console/api/sign-in', { name: 'HANK', password }, from('198.51.100.99'));
  assertShapeA(limited, 429, 'too_many_requests', 'platform_api_error');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  // Another account from the same addresses signs in.
  await memberOf(stack, adminKey, 'ivy', password);
  assert.equal((await call(stack, 'POST', '/console/api/sign-in', { name: 'ivy', password }, from('198.51.100.1'))).status, 200);

  // One address guessing at many accounts: its own bound; other addresses are not held back by it.
  const spray = from('203.0.113.9');
  for (let i = 0; i < signInLimits.perAddress; i++) {
    assert.equal((await call(stack, 'POST', '/console/api/sign-in', { name: `guess-${i}`, password }, spray)).status, 401);
  }
  assertShapeA(await call(stack, 'POST', '/console/api/sign-in', { name: 'ivy', password }, spray), 429, 'too_many_requests', 'platform_api_error');
  assertShapeA(await call(stack, 'POST', '/console/api/invite', { code: 'C'.repeat(43), password }, spray), 429, 'too_many_requests', 'platform_api_error');
  assert.equal((await call(stack, 'POST', '/console/api/sign-in', { name: 'ivy', password }, from('203.0.113.10'))).status, 200);
});

test('a user\'s own tokens: created in their group with caps and models of it, rotated (same id and caps, new key), revoked', async () => {
  await memberOf(stack, adminKey, 'jill', password);
  const s = await signIn(stack, 'jill', password);
  const me = (await s.call('GET', '/console/api/me')).json;
  assert.equal(me.object, 'me');
  assert.equal(me.name, 'jill');
  assert.equal(me.balance, 1_000_000);
  assert.equal(me.csrf_token, s.csrf);
  assert.ok(me.models.includes('gpt-4o-mini'));

  assertShapeA(await s.call('POST', '/console/api/me/tokens', { models: ['not-a-model'] }), 400, 'invalid_request', 'invalid_request_error', '`models[0]`');
  assertShapeA(await s.call('POST', '/console/api/me/tokens', { cap: -1 }), 400, 'invalid_request', 'invalid_request_error', '`cap`');
  assertShapeA(await s.call('POST', '/console/api/me/tokens', { period_cap: 10 }), 400, 'invalid_request', 'invalid_request_error', 'cap_period');
  for (const field of ['quota', 'group', 'user']) {
    assertShapeA(await s.call('POST', '/console/api/me/tokens', { [field]: 'x' }), 400, 'invalid_request', 'invalid_request_error', `\`${field}\``);
  }
  const made = await s.call('POST', '/console/api/me/tokens', { name: 'laptop', cap: 5000, period_cap: 1000, cap_period: 'day', models: ['gpt-4o-mini'] });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.headers.get('cache-control'), 'no-store');
  assert.deepEqual([made.json.user, made.json.group, made.json.cap, made.json.period_cap, made.json.cap_period], [me.id, me.group, 5000, 1000, 'day']);
  const chat = { model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] };
  assert.equal((await post(chatUrl(stack), chat, made.json.key)).status, 200);

  const rotated = await s.call('POST', `/console/api/me/tokens/${made.json.id}/rotate`);
  assert.equal(rotated.status, 200, rotated.text);
  assert.equal(rotated.json.id, made.json.id);
  assert.notEqual(rotated.json.key, made.json.key);
  assert.deepEqual([rotated.json.cap, rotated.json.period_cap, rotated.json.models], [5000, 1000, ['gpt-4o-mini']]);
  assert.ok(rotated.json.cap_left < 5000, 'what it spent still counts');
  assert.equal((await post(chatUrl(stack), chat, made.json.key)).status, 401, 'the old key no longer works');
  assert.equal((await post(chatUrl(stack), chat, rotated.json.key)).status, 200);
  const listed = (await s.call('GET', '/console/api/me/tokens')).json.data;
  assert.deepEqual(listed.map((t: { id: string }) => t.id), [made.json.id], 'one token, listed once');
  assert.equal(listed[0].key, undefined);

  const revoked = await s.call('DELETE', `/console/api/me/tokens/${made.json.id}`);
  assert.equal(revoked.json.revoked, true);
  assert.equal((await post(chatUrl(stack), chat, rotated.json.key)).status, 401);
  assertShapeA(await s.call('POST', `/console/api/me/tokens/${made.json.id}/rotate`), 409, 'conflict', 'invalid_request_error');
});

test('a user who edits ids in requests: another user\'s token, request, usage or user id is 404, as one that does not exist', async () => {
  const kim = await memberOf(stack, adminKey, 'kim', password);
  const leo = await memberOf(stack, adminKey, 'leo', password);
  const k = await signIn(stack, 'kim', password);
  const l = await signIn(stack, 'leo', password);
  const kimToken = (await k.call('POST', '/console/api/me/tokens', { name: 'kim-key' })).json;
  const leoToken = (await l.call('POST', '/console/api/me/tokens', { name: 'leo-key' })).json;
  const chat = { model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'whose request is this' }] };
  const kimRequest = (await post(chatUrl(stack), chat, kimToken.key)).headers.get('x-request-id')!;
  const leoRequest = (await post(chatUrl(stack), chat, leoToken.key)).headers.get('x-request-id')!;
  await eventually(async () => (await k.call('GET', `/console/api/me/requests/${kimRequest}`)).status === 200, 5000);
  await eventually(async () => (await l.call('GET', `/console/api/me/requests/${leoRequest}`)).status === 200, 5000);

  // Kim's own: found.
  const own = (await k.call('GET', '/console/api/me/requests')).json.data;
  assert.deepEqual(own.map((r: { id: string }) => r.id), [kimRequest]);
  assert.equal((await k.call('GET', `/console/api/me/requests?token=${kimToken.id}`)).json.data.length, 1);
  assert.equal((await k.call('GET', `/console/api/me/usage?user=${kim.id}`)).status, 200);

  // Leo's, and ids that do not exist: the same 404s.
  const tokenMiss = (id: string) => [
    k.call('DELETE', `/console/api/me/tokens/${id}`), k.call('POST', `/console/api/me/tokens/${id}/rotate`),
    k.call('GET', `/console/api/me/requests?token=${id}`), k.call('GET', `/console/api/me/usage?token=${id}`),
  ];
  for (const id of [leoToken.id, 'tok_000000000000', 'tok_../../admin']) {
    for (const r of await Promise.all(tokenMiss(encodeURIComponent(id)))) {
      assertShapeA(r, 404, 'token_not_found', 'invalid_request_error');
      assert.doesNotMatch(r.text, /leo/);
    }
  }
  for (const id of [leoRequest, 'req_doesnotexist']) assertShapeA(await k.call('GET', `/console/api/me/requests/${id}`), 404, 'not_found', 'invalid_request_error');
  for (const path of [`/console/api/me/requests?user=${leo.id}`, `/console/api/me/usage?user=${leo.id}`]) assertShapeA(await k.call('GET', path), 404, 'user_not_found', 'invalid_request_error');
  assert.deepEqual((await k.call('GET', `/console/api/me/requests?id=${leoRequest}`)).json.data, [], 'a search never reaches another user\'s records');
  assert.equal((await post(chatUrl(stack), chat, leoToken.key)).status, 200, 'Leo\'s token was not touched');
  // The admin key is no session, and a session is no admin key.
  assertShapeA(await call(stack, 'GET', '/console/api/me', undefined, { authorization: `Bearer ${adminKey}` }), 401, 'session_required', 'invalid_request_error');
  assertShapeA(await call(stack, 'GET', '/admin/tokens', undefined, { cookie: k.cookie }), 401, 'invalid_api_key', 'invalid_request_error');
});

test('the OpenAPI document describes the console users\' routes: their session scheme and CSRF header', async () => {
  const doc = await (await fetch(`${stack.url}/openapi.json`)).json();
  const create = doc.paths['/console/api/me/tokens'].post;
  assert.deepEqual(create.security, [{ consoleSession: [] }]);
  assert.ok(create.parameters.some((p: { name: string; required: boolean }) => p.name === 'X-CSRF-Token' && p.required));
  assert.ok(create.responses['403'] && create.responses['401'] && create.responses['201']);
  assert.deepEqual(doc.paths['/console/api/sign-in'].post.security, []);
  assert.ok(doc.paths['/console/api/sign-in'].post.responses['429']);
  assert.ok(doc.paths['/console/api/invite'].post.responses['410']);
  assert.ok(doc.paths['/admin/users/{id}/invite'].post.responses['201']);
  assert.equal(doc.components.securitySchemes.consoleSession.in, 'cookie');
});
