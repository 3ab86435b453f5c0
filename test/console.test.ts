// The operator console in a real browser (Debian's chromium through playwright-core): sign in with the admin key
// (kept in session storage, never in the URL), create a token, send a request with it, and see the usage chart and
// table change, the team's budget bar fill, the request log fit the page and a record open as a summary; top up,
// list tasks and channels, revoke. Screenshots go to test/artifacts/console/ for review.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startStack, type Stack } from './helpers/stack.js';
import { browserSkip, launchChromium } from './helpers/browser.js';
import { projectRoot } from '../src/config/load-config.js';
import { UserAdmin } from '../src/admin/user-admin.js';
import { TeamAdmin } from '../src/admin/team-admin.js';
import { walletOf } from '../src/accounts/user-store.js';


const adminKey = 'console-' + 'k'.repeat(40);
const shots = join(projectRoot, 'test', 'artifacts', 'console');
const skip = browserSkip('the console tests');
let stack: Stack;
let bare: Stack;
let browser: Browser | undefined;

before(async () => {
  stack = await startStack({ env: { SWITCHYARD_ADMIN_KEY: adminKey } });
  bare = await startStack();
  if (!skip) browser = await launchChromium();
  mkdirSync(shots, { recursive: true });
});
after(async () => { await browser?.close(); await stack.close(); await bare.close(); });

test('the console is served with a strict policy, from an allowlist, and (with the users\' routes) only while the admin key is set', async () => {
  const page = await fetch(`${stack.url}/console`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type')!, /^text\/html/);
  assert.match(page.headers.get('content-security-policy')!, /default-src 'none'; script-src 'self'/);
  assert.equal(page.headers.get('cache-control'), 'no-store');
  assert.match(await page.text(), /<title>Switchyard console<\/title>/);
  const chart = await fetch(`${stack.url}/console/uPlot.esm.js`);
  assert.equal(chart.status, 200);
  assert.match(chart.headers.get('content-type')!, /^text\/javascript/);
  const again = await fetch(`${stack.url}/console/uPlot.esm.js`, { headers: { 'if-none-match': chart.headers.get('etag')! } });
  assert.equal(again.status, 304);
  for (const path of ['/console/package.json', '/console/..%2Fpackage.json', '/console/index.html']) {
    const r = await fetch(`${stack.url}${path}`);
    assert.equal(r.status, 404, path);
    assert.equal((await r.json()).error.code, 'not_found');
  }
  assert.equal((await fetch(`${bare.url}/console`)).status, 404, 'no console without SWITCHYARD_ADMIN_KEY');
  assert.equal((await fetch(`${bare.url}/console/console.js`)).status, 404);
  const signIn = await fetch(`${bare.url}/console/api/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(signIn.status, 404, 'nor the users\' sign-in');
  for (const file of ['common.js', 'operator.js', 'member.js', 'request-log.js']) assert.equal((await fetch(`${stack.url}/console/${file}`)).status, 200, file);
});

test('an operator signs in, creates a token, sees its request in the chart and table, tops it up and revokes it', { skip, timeout: 60_000 }, async () => {
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const foreign: string[] = [];
  page.on('request', (r) => { if (!r.url().startsWith(stack.url)) foreign.push(r.url()); });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${stack.url}/console`);
  await page.locator('#admin-key').waitFor();
  await page.screenshot({ path: join(shots, 'sign-in.png') });

  // A wrong key is refused and not kept.
  await page.fill('#admin-key', 'wrong-' + 'x'.repeat(40));
  await page.click('#sign-in-form button[type=submit]');
  await page.locator('#sign-in-error', { hasText: 'refused' }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);

  await page.fill('#admin-key', adminKey);
  await page.click('#sign-in-form button[type=submit]');
  await page.locator('#app').waitFor({ state: 'visible' });
  assert.equal(await page.evaluate(() => sessionStorage.getItem('switchyard.adminKey')), adminKey);
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  assert.ok(!page.url().includes(adminKey), 'the key is never in the URL');
  assert.deepEqual(await page.context().cookies(), []);

  // Create a token from the form; its key is shown once.
  await page.fill('#create-token input[name=name]', 'console-test');
  await page.fill('#create-token input[name=quota]', '50000');
  await page.fill('#create-token input[name=user]', 'carol');
  await page.click('#create-token button[type=submit]');
  await page.locator('#new-key').waitFor({ state: 'visible' });
  const key = (await page.locator('#new-key-value').textContent())!;
  assert.match(key, /^sk-sy-/);
  const row = page.locator('#tokens-table tbody tr', { hasText: 'console-test' });
  await row.locator('td.balance', { hasText: '50,000' }).waitFor();
  const id = (await row.getAttribute('data-id'))!;
  // carol is in a team with a budget for the month: its bar fills with her request.
  const g = stack.gw.gateway;
  const teams = new TeamAdmin(g.store, g.accounts, new UserAdmin(g.store, g.accounts, () => g.runtime));
  const team = await teams.create({ name: 'research', budget: 200_000, period: 'month' });
  await teams.add(team.id, 'carol');

  // Usage of this token only: nothing yet, then one chat request shows in the chart and the table.
  await page.fill('#usage-form input[name=token]', id);
  await page.click('#usage-form button[type=submit]');
  await page.locator('#usage-chart[data-models=""]').waitFor({ state: 'attached' });
  const chat = await fetch(`${stack.url}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello from the console test' }] }),
  });
  assert.equal(chat.status, 200);
  const video = await fetch(`${stack.url}/v1/video/generations`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'viduq1', prompt: 'a fox [sim polls=50]' }),
  });
  assert.equal(video.status, 200);
  await until(page, async () => {
    await page.click('#usage-form button[type=submit]');
    return (await page.locator('#usage-chart').getAttribute('data-models'))?.includes('gpt-4o-mini') ?? false;
  });
  const usageRow = page.locator('#usage-table tbody tr[data-model="gpt-4o-mini"]');
  assert.equal(await usageRow.locator('td.requests').textContent(), '1');
  assert.match((await usageRow.locator('td.cached').textContent())!, /^\d[\d,]*$/, 'the cached tokens column shows a count');
  const charged = Number((await usageRow.locator('td.charged').textContent())!.replace(/,/g, ''));
  assert.ok(charged > 0);
  assert.equal(Number(await page.locator('#usage-chart').getAttribute('data-total')), charged);
  assert.ok(await page.locator('#usage-chart .u-legend', { hasText: 'gpt-4o-mini' }).count(), 'the chart has a gpt-4o-mini series');
  await page.locator('#usage').screenshot({ path: join(shots, 'usage.png') });

  // Top up: the balance the table shows is the store's, of the wallet of the token's user.
  await row.locator('input[type=number]').fill('1000');
  await row.locator('button', { hasText: 'Top up' }).click();
  await page.locator('#notice', { hasText: 'Topped up' }).waitFor();
  const balance = (await stack.balance(walletOf((await row.locator('td:nth-child(4)').textContent())!)))!;
  await page.locator(`#tokens-table tbody tr[data-id="${id}"] td.balance`, { hasText: balance.toLocaleString('en-US') }).waitFor();
  assert.ok(balance > 50_000 - charged - 300 && balance < 51_000);

  // The request log: the chat request by this token, found by token, its whole record by a click on its id.
  const requestId = chat.headers.get('x-request-id')!;
  await page.fill('#requests-form input[name=token]', id);
  await until(page, async () => {
    await page.click('#requests-form button[type=submit]');
    return (await page.locator('#requests-table tbody tr', { hasText: requestId }).count()) === 1;
  });
  const logged = page.locator('#requests-table tbody tr', { hasText: requestId });
  assert.equal(await logged.locator('td:nth-child(4)').textContent(), 'gpt-4o-mini');
  assert.equal(await logged.locator('td:nth-child(6)').textContent(), '200');
  await logged.locator('td:nth-child(2)').click();
  // A readable summary first: the facts, each attempt, the usage and the charge's lines; the raw JSON a click away.
  const detail = page.locator('#request-detail');
  await detail.locator('table.charge-lines tbody tr').first().waitFor();
  assert.ok(await detail.locator('h4', { hasText: 'Attempts' }).count());
  assert.ok(await detail.locator('h4', { hasText: 'Usage' }).count());
  assert.equal(await detail.locator('dd', { hasText: 'gpt-4o-mini' }).count() >= 1, true);
  assert.equal(await detail.locator('pre.raw').isVisible(), false);
  await detail.locator('button.raw-toggle').click();
  await detail.locator('pre.raw', { hasText: '"charge_lines"' }).waitFor();
  await page.locator('#requests').screenshot({ path: join(shots, 'requests.png') });

  // At 1280 px the request log's columns fit the page: nothing to scroll sideways.
  await page.setViewportSize({ width: 1280, height: 800 });
  const fit = await page.evaluate(() => {
    const t = document.querySelector('#requests-table')!;
    return { table: t.scrollWidth, box: t.parentElement!.clientWidth, page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth };
  });
  assert.ok(fit.table <= fit.box, `the request log is ${fit.table} px wide in ${fit.box} px`);
  assert.ok(fit.page <= fit.view, `the page is ${fit.page} px wide at ${fit.view} px`);

  // The team's budget bar for the month: what carol's request spent of it.
  await page.click('#teams-refresh');
  const bar = page.locator('#teams-table tbody tr', { hasText: 'research' }).locator('.budget');
  await bar.locator('meter').waitFor();
  assert.equal(await bar.getAttribute('data-budget'), '200000');
  assert.ok(Number(await bar.getAttribute('data-used')) > 0, 'the bar shows what was spent');
  await page.locator('#teams').screenshot({ path: join(shots, 'teams.png') });

  // Tasks and channels.
  await page.fill('#tasks-form input[name=token]', id);
  await page.click('#tasks-form button[type=submit]');
  await page.locator('#tasks-table tbody tr', { hasText: 'viduq1' }).waitFor();
  await until(page, async () => {
    await page.click('#channels-refresh');
    return Number(await page.locator('#channels-table tbody tr[data-id="sim_openai"] td:nth-child(4)').textContent()) >= 1;
  });
  await page.locator('#tokens').screenshot({ path: join(shots, 'tokens.png') });
  await page.locator('#channels').screenshot({ path: join(shots, 'channels.png') });
  await page.click('#reload-config');
  await page.locator('#notice', { hasText: 'Config reloaded' }).waitFor();
  await page.screenshot({ path: join(shots, 'console.png'), fullPage: true });

  // Revoke (after a confirmation): the key stops working.
  page.once('dialog', (d) => void d.accept());
  await row.locator('button', { hasText: 'Revoke' }).click();
  await page.locator(`#tokens-table tbody tr[data-id="${id}"] td.status`, { hasText: 'revoked' }).waitFor();
  const after = await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(after.status, 401);

  await page.click('#sign-out');
  await page.locator('#sign-in').waitFor({ state: 'visible' });
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
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
