// Operations: health and readiness, live config reload (a broken config is refused), graceful shutdown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, until } from './helpers/stack.js';
import { projectRoot } from '../src/config/load-config.js';
import { openStore } from '../src/store/open-store.js';

/** The ledger as a fresh process sees it after the gateway stopped. */
async function ledgerAfterStop(storeUri: string, id: string): Promise<string[]> {
  const store = await openStore(storeUri);
  try { return (await store.quota.entries(id)).filter((e) => e.kind !== 'topup').map((e) => e.kind); } finally { await store.close(); }
}

function configCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-config-'));
  for (const f of ['routes.yaml', 'channels.yaml']) cpSync(join(projectRoot, f), join(dir, f));
  return dir;
}

const chat = (url: string, key: string, content: string, stream = true, model = 'gpt-4o-mini') => fetch(`${url}/v1/chat/completions`, {
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model, stream, messages: [{ role: 'user', content }] }),
});

test('healthz and readyz answer without a key; readyz names the config hash', async () => {
  const stack = await startStack();
  try {
    const h = await fetch(`${stack.url}/healthz`);
    assert.equal(h.status, 200);
    const r = await (await fetch(`${stack.url}/readyz`)).json() as { status: string; config: string };
    assert.equal(r.status, 'ready');
    assert.equal(r.config, stack.gw.gateway.runtime.hash);
  } finally { await stack.close(); }
});

test('reload swaps a good config atomically and refuses a broken one, keeping the old', async () => {
  const dir = configCopy();
  const stack = await startStack({ configDir: dir });
  try {
    const { key } = await stack.token();
    const before = stack.gw.gateway.runtime.hash;
    const good = readFileSync(join(dir, 'channels.yaml'), 'utf8');
    writeFileSync(join(dir, 'channels.yaml'), good.replace('groups:\n', 'groups:\n  nonsense: [\n'));
    const refused = stack.gw.reload();
    assert.equal(refused.ok, false);
    assert.match(refused.errors!, /channels\.yaml/);
    assert.equal(stack.gw.gateway.runtime.hash, before);
    assert.equal((await chat(stack.url, key, 'still works', false)).status, 200);

    // A new model and a channel that serves it.
    const added = good
      .replace('\nmodels:\n', '\nmodels:\n  gpt-4o-nano: { owned_by: openai, price: { input_per_mtok: 1, output_per_mtok: 1 } }\n')
      .replace('\nchannels:\n', '\nchannels:\n  - id: sim_nano\n    extends: simulator\n    auth: { scheme: bearer, key: sim-key }\n    models: [gpt-4o-nano]\n    operations:\n      chat_completions: { path: /v1/chat/completions }\n');
    assert.notEqual(added, good);
    writeFileSync(join(dir, 'channels.yaml'), added);
    const pending = chat(stack.url, key, 'in flight across the swap [sim chunks=5 interval_ms=60]');
    await until('the request is in flight', () => stack.sim.control.requests().some((q) => JSON.stringify(q.body).includes('in flight across the swap')), 10_000, 5);
    const swapped = stack.gw.reload();
    assert.equal(swapped.ok, true);
    assert.notEqual(swapped.hash, before);
    const text = await (await pending).text();
    assert.match(text, /data: \[DONE\]\n\n$/, 'the request in flight finished on the config it started with');
    const models = await (await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json() as { data: { id: string }[] };
    assert.ok(models.data.some((m) => m.id === 'gpt-4o-nano'));
    assert.equal((await chat(stack.url, key, 'on the new model', false, 'gpt-4o-nano')).status, 200);
  } finally { await stack.close(); }
});

test('SIGTERM-style shutdown lets streams finish, refuses new work, and settles once', async () => {
  const stack = await startStack();
  try {
    const { key, id } = await stack.token({ quota: 1_000_000 });
    const res = await chat(stack.url, key, 'long [sim chunks=8 interval_ms=80]');
    const body = res.text();
    await new Promise((r) => setTimeout(r, 100));
    const stopping = stack.gw.shutdown(5000);
    await new Promise((r) => setTimeout(r, 50));
    await assert.rejects(chat(stack.url, key, 'late', false), 'no new connections while draining');
    const text = await body;
    assert.match(text, /data: \[DONE\]\n\n$/);
    const result = await stopping;
    assert.deepEqual(result, { drained: true, cut: 0 });
    assert.deepEqual(await ledgerAfterStop(stack.storeUri, id), ['reserve', 'settle']);
  } finally {
    await stack.sim.close();
  }
});

test('a stream longer than the drain deadline is cut cleanly and still billed once', async () => {
  const stack = await startStack();
  try {
    const { key, id } = await stack.token({ quota: 1_000_000 });
    const res = await chat(stack.url, key, 'endless [sim chunks=100 interval_ms=50]');
    const body = res.text().catch(() => 'cut');
    await new Promise((r) => setTimeout(r, 150));
    const result = await stack.gw.shutdown(200);
    assert.deepEqual(result, { drained: false, cut: 1 });
    await body;
    assert.deepEqual(await ledgerAfterStop(stack.storeUri, id), ['reserve', 'settle'], 'what was delivered is charged, once');
  } finally {
    await stack.sim.close();
  }
});
