// A console user in a real browser (Debian's chromium through playwright-core): the operator's invite link, a password
// set from it, a sign-in, the user's wallet and team budget, a capped token created, seen, used and revoked, their
// request log (fitting 1280 px, a record as a summary), and a user who edits ids in fetches from the page: another
// user's token and request are 404. Screenshots go to test/artifacts/console/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startStack, type Stack } from './helpers/stack.js';
import { browserSkip, launchChromium } from './helpers/browser.js';
import { chatUrl, post } from './helpers/api.js';
import { call } from './helpers/console-user.js';
import { projectRoot } from '../src/config/load-config.js';
import { UserAdmin } from '../src/admin/user-admin.js';
import { TeamAdmin } from '../src/admin/team-admin.js';
import { TokenAdmin } from '../src/admin/token-admin.js';


const adminKey = 'member-' + 'k'.repeat(40);
const password = 'a long and private passphrase';
const shots = join(projectRoot, 'test', 'artifacts', 'console');
const skip = browserSkip('the console user tests');
let stack: Stack;
let browser: Browser | undefined;
const chat = (content: string) => ({ model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content }] });

before(async () => {
  stack = await startStack({ env: { SWITCHYARD_ADMIN_KEY: adminKey } });
  if (!skip) browser = await launchChromium();
  mkdirSync(shots, { recursive: true });
});
after(async () => { await browser?.close(); await stack.close(); });

test('a user takes an invite, signs in, makes a capped token, sees it and its request, revokes it, and cannot reach another user\'s', { skip, timeout: 90_000 }, async () => {
  const g = stack.gw.gateway;
  const users = new UserAdmin(g.store, g.accounts, () => g.runtime);
  const teams = new TeamAdmin(g.store, g.accounts, users);
  const nadia = await users.create({ name: 'nadia', quota: 500_000 });
  const lab = await teams.create({ name: 'lab', budget: 300_000, period: 'month', member_cap: 100_000 });
  await teams.add(lab.id, nadia.id);
  // Another user, with a token and a request of their own.
  const oscar = await users.create({ name: 'oscar', quota: 500_000 });
  const other = await new TokenAdmin(g.store, g.tokens, () => g.runtime, undefined, g.accounts).create({ user: oscar.id, name: 'oscar-key' });
  const otherRequest = (await post(chatUrl(stack), chat('oscar asks'), other.key)).headers.get('x-request-id')!;

  const invite = await call(stack, 'POST', `/admin/users/${nadia.id}/invite`, undefined, { authorization: `Bearer ${adminKey}` });
  assert.equal(invite.status, 201, invite.text);
  const code = new URL(invite.json.url).hash.slice('#invite='.length);

  const page = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
  const foreign: string[] = [];
  page.on('request', (r) => { if (!r.url().startsWith(stack.url)) foreign.push(r.url()); });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));

  // The link opens the password form, and its code leaves the address bar at once.
  await page.goto(invite.json.url);
  await page.locator('#invite-form').waitFor();
  assert.ok(!page.url().includes(code), 'the invite code is wiped from the URL');
  await page.screenshot({ path: join(shots, 'invite.png') });
  await page.fill('#invite-password', password);
  await page.fill('#invite-confirm', password);
  await page.click('#invite-form button[type=submit]');
  await page.locator('#user-sign-in-form').waitFor();
  assert.equal(await page.inputValue('#user-name'), 'nadia');
  await page.locator('#notice', { hasText: 'password is set' }).waitFor();

  // A wrong password, then the right one.
  await page.fill('#user-password', 'not my password at all');
  await page.click('#user-sign-in-form button[type=submit]');
  await page.locator('#user-sign-in-error', { hasText: 'Wrong user name or password' }).waitFor();
  await page.fill('#user-password', password);
  await page.click('#user-sign-in-form button[type=submit]');
  await page.locator('#me-name', { hasText: 'nadia' }).waitFor();
  assert.equal(await page.textContent('#me-balance'), '500,000');
  assert.equal(await page.locator('#me-team-budget .budget').getAttribute('data-budget'), '300000');
  assert.equal(await page.locator('#me-member-cap .budget').getAttribute('data-budget'), '100000');

  // The session: an HttpOnly, SameSite=Strict cookie the page's script cannot read; nothing in storage.
  const cookies = await page.context().cookies();
  assert.equal(cookies.length, 1);
  assert.deepEqual([cookies[0].name, cookies[0].httpOnly, cookies[0].sameSite, cookies[0].path], ['sy_session', true, 'Strict', '/']);
  assert.equal(await page.evaluate(() => document.cookie), '');
  assert.equal(await page.evaluate(() => sessionStorage.length + localStorage.length), 0);

  // A capped token, allowed one model: its key shown once, then listed.
  await page.fill('#my-create-token input[name=name]', 'nadia-laptop');
  await page.fill('#my-create-token input[name=cap]', '20000');
  await page.selectOption('#my-create-token select[name=models]', ['gpt-4o-mini']);
  await page.click('#my-create-token button[type=submit]');
  await page.locator('#my-new-key').waitFor({ state: 'visible' });
  const key = (await page.textContent('#my-new-key-value'))!;
  assert.match(key, /^sk-sy-/);
  const row = page.locator('#my-tokens-table tbody tr', { hasText: 'nadia-laptop' });
  await row.locator('td.cap', { hasText: '20,000 left of 20,000' }).waitFor();
  const id = (await row.getAttribute('data-id'))!;
  assert.equal(await row.locator('td:nth-child(3)').textContent(), 'gpt-4o-mini');
  await page.locator('#my-tokens').screenshot({ path: join(shots, 'member-tokens.png') });

  // Its request in the user's own log, opened as a summary; the log fits 1280 px.
  const mine = await post(chatUrl(stack), chat('nadia asks'), key);
  assert.equal(mine.status, 200, mine.text);
  const requestId = mine.headers.get('x-request-id')!;
  await until(page, async () => {
    await page.click('#my-requests-form button[type=submit]');
    return (await page.locator('#my-requests-table tbody tr', { hasText: requestId }).count()) === 1;
  });
  assert.equal(await page.locator('#my-requests-table tbody tr').count(), 1, 'only the user\'s own request');
  await page.locator('#my-requests-table tbody tr td:nth-child(2)').click();
  await page.locator('#my-request-detail table.charge-lines').waitFor();
  await page.locator('#my-request-detail button.raw-toggle').click();
  await page.locator('#my-request-detail pre.raw', { hasText: requestId }).waitFor();
  const fit = await page.evaluate(() => {
    const t = document.querySelector('#my-requests-table')!;
    return { table: t.scrollWidth, box: t.parentElement!.clientWidth, page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth };
  });
  assert.ok(fit.table <= fit.box, `the request log is ${fit.table} px wide in ${fit.box} px`);
  assert.ok(fit.page <= fit.view, `the page is ${fit.page} px wide at ${fit.view} px`);
  await page.locator('#my-requests').screenshot({ path: join(shots, 'member-requests.png') });

  // A user who edits ids in fetches from the page: another user's token and request are 404; no token, 403.
  const tampered = await page.evaluate(async ({ token, request }) => {
    const csrf = (await (await fetch('/console/api/me')).json()).csrf_token as string;
    const status = async (path: string, init: RequestInit = {}) => (await fetch(path, init)).status;
    const signed = { 'x-csrf-token': csrf };
    return {
      revoke: await status(`/console/api/me/tokens/${token}`, { method: 'DELETE', headers: signed }),
      rotate: await status(`/console/api/me/tokens/${token}/rotate`, { method: 'POST', headers: signed }),
      request: await status(`/console/api/me/requests/${request}`),
      byToken: await status(`/console/api/me/requests?token=${token}`),
      usage: await status(`/console/api/me/usage?token=${token}`),
      noCsrf: await status(`/console/api/me/tokens/${token}`, { method: 'DELETE' }),
    };
  }, { token: other.token.id, request: otherRequest });
  assert.deepEqual(tampered, { revoke: 404, rotate: 404, request: 404, byToken: 404, usage: 404, noCsrf: 403 });
  assert.equal((await post(chatUrl(stack), chat('oscar again'), other.key)).status, 200, 'the other user\'s token still works');

  // The wallet and the team's bar moved by the request; then revoke, and the key stops working.
  await page.reload();
  await page.locator('#me-name', { hasText: 'nadia' }).waitFor();
  await until(page, async () => Number(await page.locator('#me-team-budget .budget').getAttribute('data-used')) > 0);
  await page.screenshot({ path: join(shots, 'member.png'), fullPage: true });
  page.once('dialog', (d) => void d.accept());
  await page.locator(`#my-tokens-table tbody tr[data-id="${id}"] button`, { hasText: 'Revoke' }).click();
  await page.locator(`#my-tokens-table tbody tr[data-id="${id}"] td.status`, { hasText: 'revoked' }).waitFor();
  assert.equal((await post(chatUrl(stack), chat('after revoke'), key)).status, 401);

  await page.click('#sign-out');
  await page.locator('#user-sign-in-form').waitFor({ state: 'visible' });
  assert.deepEqual((await page.context().cookies()).filter((c) => c.value), []);
  assert.equal(await page.evaluate(async () => (await fetch('/console/api/me')).status), 401);
  assert.deepEqual(foreign, [], 'the page loaded nothing from another origin');
  assert.deepEqual(pageErrors, []);
  await page.close();
});

/** Retries `check` (which may act on the page) until it holds, for at most 10 s. */
async function until(page: Page, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if (await check()) return;
    await page.waitForTimeout(200);
  }
  assert.fail('the page never showed it');
}
