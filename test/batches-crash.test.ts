// Batches survive losing their gateway: kill -9 while a batch runs at the vendor, and while a submit the vendor
// accepted has not been answered; another gateway on the same store finishes both, charged once each at the batch
// price of what their output reports. And an upload of a 150 MB batch input file goes through a gateway process in
// bounded memory (spooled to disk, checked and sent as a stream).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { moneyAccountOf } from './helpers/api.js';
import { request } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startSimulator, simBatches, type Simulator } from '../simulator/server.js';
import { openStore, type Store } from '../src/store/open-store.js';
import { TokenStore } from '../src/store/token-store.js';
import { quickTaskConfig, spawnGateway, type ChildGateway } from './helpers/child-gateway.js';
import { until } from './helpers/stack.js';
import { billUnits, chatLine, fileLines, jsonl, upload, waitBatch } from './helpers/batches.js';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => undefined); });

async function setup(): Promise<{ sim: Simulator; store: Store; env: Record<string, string>; key: string; account: string }> {
  const sim = await startSimulator({ port: 0, keys: ['sim-key'] });
  cleanups.push(() => sim.close());
  const storeUri = `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-batch-crash-')), 'store.sqlite')}`;
  const store = await openStore(storeUri, { quotaFlushMs: 0 });
  cleanups.push(() => store.close());
  const { key, record } = await new TokenStore(store, 0).create({ group: 'default', quota: 1_000_000 });
  // A dead gateway's submits are looked for after two seconds of silence, not fifteen.
  const env = { SWITCHYARD_STORE: storeUri, SWITCHYARD_SIM_URL: sim.url, SWITCHYARD_CONFIG_DIR: quickTaskConfig({ sweep_interval_ms: 200 }), SWITCHYARD_OWNER_TIMEOUT_MS: '2000' };
  return { sim, store, env, key, account: record.id };
}

const lines = (tag: string) => [
  chatLine(`${tag}-1`, 'gpt-4o-mini', { prompt_tokens: 20_000, completion_tokens: 9_000 }, { max_tokens: 16_000 }),
  chatLine(`${tag}-2`, 'gpt-4o-mini', { prompt_tokens: 2_000, completion_tokens: 15_000, prompt_tokens_details: { cached_tokens: 1_000 } }, { max_tokens: 16_000 }),
];

test('kill -9 mid-batch and mid-submit: another gateway finishes both, each charged once at the batch price', { timeout: 90_000 }, async () => {
  const { sim, store, env, key, account } = await setup();
  let a: ChildGateway | undefined = await spawnGateway(env);
  cleanups.push(() => a?.kill() ?? Promise.resolve());
  const ai = new OpenAI({ apiKey: key, baseURL: `${a.url}/v1`, maxRetries: 0 });
  const running = await ai.batches.create({ input_file_id: (await upload(ai, jsonl(lines('run')))).id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { sim: '[sim polls=40]' } });
  await until('the batch runs at the vendor', async () => (await ai.batches.retrieve(running.id)).status === 'in_progress', 10_000);
  // A submit the vendor accepts at once but answers a minute later: cut by the kill, its client never hears of it.
  const cut = await upload(ai, jsonl(lines('cut')));
  const req = request(`${a.url}/v1/batches`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => res.resume());
  req.on('error', () => undefined);
  req.end(JSON.stringify({ input_file_id: cut.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { sim: '[sim submit_delay_ms=60000 polls=2]' } }));
  await until('the vendor has both batches', () => simBatches(sim.control).length === 2, 10_000);
  await a.kill();
  a = undefined;

  const b = await spawnGateway(env);
  cleanups.push(() => b.kill());
  const bi = new OpenAI({ apiKey: key, baseURL: `${b.url}/v1`, maxRetries: 0 });
  const done = await waitBatch(bi, running.id, 30_000);
  assert.equal(done.status, 'completed');
  let adopted: OpenAI.Batch | undefined;
  await until('the cut submit is found at the vendor and finishes', async () => {
    adopted = (await bi.batches.list()).data.find((x) => x.input_file_id === cut.id);
    return adopted?.status === 'completed';
  }, 30_000);
  const bills = [await fileLines(bi, done.output_file_id!), await fileLines(bi, adopted!.output_file_id!)].map((out) => billUnits('gpt-4o-mini', out));
  // At half of $0.15 / $0.075 cached / $0.60 per million: 20,000 × 0.075 + 9,000 × 0.3 = $0.0042 and 1,000 × 0.075 +
  // 1,000 × 0.0375 + 15,000 × 0.3 = $0.0046125, so $0.0088125 a batch → 9 units.
  assert.deepEqual(bills, [9, 9]);
  const money = await moneyAccountOf(store, account); // the gateway's start made the token a user's
  await until('both are charged', async () => (await store.quota.balance(money)) === 1_000_000 - 18, 10_000);
  const closes = (await store.quota.entries(account)).filter((e) => e.kind === 'settle' || e.kind === 'refund');
  assert.deepEqual(closes.map((e) => e.kind), ['settle', 'settle'], 'each charged once, nothing refunded');
  assert.deepEqual(await store.quota.openOwners(), [], 'no reservation is left open');
  assert.equal(simBatches(sim.control).length, 2, 'no batch was submitted twice');
  await b.stop();
});

/** The resident set of a process, from /proc (Linux). */
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

test('a 150 MB batch input file goes through a gateway process in bounded memory', { timeout: 120_000, skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const { sim, env, key } = await setup();
  const gw = await spawnGateway(env);
  cleanups.push(() => gw.kill());
  const filler = 'lorem ipsum dolor sit amet '.repeat(40_000); // about 1 MB a line
  const file = (lines: number) => jsonl(Array.from({ length: lines }, (_, i) => chatLine(`big-${i}`, 'gpt-4o-mini', undefined, { max_tokens: 100 }, filler)));
  const text = file(150);
  assert.ok(text.length > 150e6);
  const ai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0, timeout: 100_000 });
  // Warm: a 20 MB file of the same lines first, so the baseline is a gateway that has served one (its heap grown to
  // what one line takes), and what a 150 MB file adds shows.
  await upload(ai, file(20), 'warm.jsonl');
  const base = rssOf(gw.proc.pid!);
  let peak = base;
  const sampler = setInterval(() => { peak = Math.max(peak, rssOf(gw.proc.pid!)); }, 20);
  try {
    const file = await upload(ai, text, 'big.jsonl');
    assert.equal(file.bytes, Buffer.byteLength(text));
  } finally {
    clearInterval(sampler);
  }
  const stored = [...(await import('../simulator/server.js')).simFiles(sim.control).values()].at(-1)!;
  assert.equal(stored.data.length, Buffer.byteLength(text), 'the vendor got every byte');
  const grown = peak - base;
  console.log(`150 MB upload: gateway RSS ${Math.round(base / 1048576)} MB before, peak ${Math.round(peak / 1048576)} MB (+${Math.round(grown / 1048576)} MB)`);
  assert.ok(grown < 75 * 1048576, `the gateway's memory grew by ${Math.round(grown / 1048576)} MB for a 150 MB upload`);
  await gw.stop();
});
