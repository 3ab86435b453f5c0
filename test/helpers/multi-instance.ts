// Two gateways on one shared store (a Redis server or a Redis Cluster): tasks move between instances, quota is never
// overdrawn, revocation reaches both, rate limits count together. Run by redis-instances and redis-cluster tests.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { projectRoot } from '../../src/config/load-config.js';
import { startStack, type Stack } from './stack.js';
import { fastTasks, call, waitFinal, ledgerKinds } from './video.js';
import { post, chatUrl } from './api.js';

/** The shipped config with a 60 s token cache: only a broadcast can make a revocation land sooner. */
function configWithTokenCache(ms: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-multi-'));
  copyFileSync(join(projectRoot, 'routes.yaml'), join(dir, 'routes.yaml'));
  const doc = parseDocument(readFileSync(join(projectRoot, 'channels.yaml'), 'utf8'));
  doc.setIn(['dispatch', 'token_cache_ms'], ms);
  writeFileSync(join(dir, 'channels.yaml'), String(doc));
  return dir;
}

export interface SharedStore { uri: string; stop(): Promise<void> }

/** Registers the suite; `start` brings up the store for it, `describes` is what the store's describe starts with. */
export function multiInstanceTests(label: string, skip: string | false, start: () => Promise<SharedStore>, describes: RegExp): void {
  const it = (name: string, fn: () => Promise<void>) => test(name, { skip, timeout: 30_000 }, fn);
  describe(label, () => {
    let store: SharedStore | undefined;
    let a: Stack;
    let b: Stack;
    before(async () => {
      if (skip) return;
      store = await start();
      a = await startStack({ storeUri: store.uri, configDir: configWithTokenCache(60_000) });
      b = await a.peer();
      fastTasks(a);
      fastTasks(b);
    });
    after(async () => {
      await b?.close();
      await a?.close();
      await store?.stop();
    });

  it('both instances describe the shared store', async () => {
    assert.match(a.gw.store.describe, describes);
    assert.equal(b.gw.store.describe, a.gw.store.describe);
    assert.notEqual(a.url, b.url);
  });

  it('a video task submitted on A is read on B and completes, polled and settled once', async () => {
    const { key, id } = await a.token({ quota: 100_000 });
    const sub = await call(a, key, 'POST', '/v1/video/generations', { model: 'sora-2', prompt: 'across [sim polls=3]', seconds: '4' });
    assert.equal(sub.status, 200, sub.text);
    const task = sub.json.id as string;
    const seen = await call(b, key, 'GET', `/v1/videos/${task}`);
    assert.equal(seen.status, 200, seen.text);
    assert.equal(seen.json.id, task);
    assert.equal((await waitFinal(b, key, `/v1/videos/${task}`)).status, 'completed');
    assert.equal((await call(a, key, 'GET', `/v1/videos/${task}`)).json.status, 'completed');
    await new Promise((r) => setTimeout(r, 200)); // both pollers get several more passes to misbehave in
    const simTask = a.sim.control.videoTasks().find((t) => t.prompt.includes('across'))!;
    assert.equal(simTask.polls, simTask.pollsBeforeDone + 1, 'no poll after the final one: the leases kept the instances apart');
    assert.deepEqual(await ledgerKinds(a, id, task), ['reserve:400', 'settle:0']);
    assert.deepEqual(await ledgerKinds(b, id, task), ['reserve:400', 'settle:0']);
    assert.equal(await b.balance(id), 100_000 - 400);
    assert.equal(await a.gw.store.tasks.count(), 0);
  });

  it('concurrent chats spread over both instances on a balance covering one request: exactly one 200', async () => {
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi [sim chunks=2]' }] });
    // The price of one request is what a 403 names: "may cost up to N".
    const probe = await a.token({ quota: 0 });
    const refused = await post(chatUrl(a), body, probe.key);
    assert.equal(refused.status, 403, refused.text);
    const reserve = Number(/may cost up to (\d+)/.exec(refused.json.error.message)![1]);
    const t = await a.token({ quota: reserve });
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => post(chatUrl(i % 2 ? a : b), body, t.key)));
    const statuses = replies.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses}`);
    assert.equal(statuses.filter((s) => s === 403).length, 11, `statuses: ${statuses}`);
    const balance = (await b.balance(t.id))!;
    assert.ok(balance >= 0 && balance < reserve, `balance ${balance}`);
    // The token's own account holds the request's entries (its user's wallet, the money). On a cluster the token's
    // slot is reserved before the wallet's, so a request the wallet refuses leaves a reserve and its refund there.
    const entries = await a.gw.store.quota.entries(t.id);
    assert.deepEqual(entries.filter((e) => e.kind === 'settle').length, 1, 'one request charged');
    assert.deepEqual(entries.filter((e) => e.kind === 'reserve').length, entries.filter((e) => e.kind !== 'reserve').length, 'every reservation closed once');
    assert.equal(reserve - balance, entries.reduce((s, e) => s + e.amount, 0));
  });

  it('a token revoked through A is refused by B within 1 s although B caches tokens for 60 s', async () => {
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi [sim chunks=1]' }] };
    const t = await a.token();
    assert.equal((await post(chatUrl(b), body, t.key)).status, 200); // B now holds the live record in its cache
    assert.equal((await post(chatUrl(b), body, t.key)).status, 200);
    const started = Date.now();
    assert.equal(await a.gw.gateway.tokens.revoke(t.id), true);
    let status = 200;
    while (status === 200 && Date.now() - started < 5000) {
      status = (await post(chatUrl(b), body, t.key)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 5));
    }
    const took = Date.now() - started;
    assert.equal(status, 401);
    assert.ok(took < 1000, `B refused the key after ${took} ms`);
    assert.equal((await post(chatUrl(a), body, t.key)).status, 401);
  });

  it('a group rate limit counts requests on every instance together', async () => {
    const { key } = await a.token({ group: 'vip' });
    const vip = [a, b].map((s) => s.gw.gateway.runtime.groups.get('vip')!);
    const saved = vip[0].rate_limit;
    for (const g of vip) g.rate_limit = { requests: 4, window_s: 60 };
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const s = i % 2 ? b : a;
        const r = await fetch(`${s.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
        statuses.push(r.status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429], 'four per window across both gateways, not four each');
    } finally {
      for (const g of vip) g.rate_limit = saved;
    }
  });
  });
}
