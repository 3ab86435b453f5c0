// The billing matrix: every way a request or task can end, its expected charge, and the ledger that must explain it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, fixture, until, type Stack } from './helpers/stack.js';
import { fastTasks, call, waitFinal } from './helpers/video.js';

let chat: Stack;
let tasks: Stack;
const rows: string[][] = [];
before(async () => {
  chat = await startStack({ configDir: fixture('failover'), env: { CLOSED_PORT_URL: 'http://127.0.0.1:9' } });
  tasks = await startStack();
  fastTasks(tasks);
});
after(async () => {
  console.log(['', '| ending | expected charge | charged | ledger entries |', '|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n'));
  await chat.close();
  await tasks.close();
});

const initial = 1_000_000;

/** One token per case; returns what it was charged after checking the ledger explains the balance exactly. */
async function charged(stack: Stack, tokenId: string): Promise<{ charge: number; kinds: string[] }> {
  // The close entry is written just after the response ends: the ledger is read once every reservation has one.
  await until('every reservation closed on the ledger', async () => {
    const kinds = (await stack.gw.store.quota.entries(tokenId)).map((e) => e.kind);
    const reserves = kinds.filter((k) => k === 'reserve').length;
    return reserves > 0 && reserves === kinds.filter((k) => k === 'settle' || k === 'refund').length;
  }, 10_000, 20);
  const entries = (await stack.gw.store.quota.entries(tokenId)).filter((e) => e.kind !== 'topup');
  const balance = (await stack.balance(tokenId))!;
  const sum = entries.reduce((s, e) => s + e.amount, 0);
  assert.equal(sum, initial - balance, 'the ledger sums to the balance change');
  const requests = new Set(entries.map((e) => e.request));
  for (const r of requests) {
    const kinds = entries.filter((e) => e.request === r).map((e) => e.kind);
    assert.equal(kinds.filter((k) => k === 'reserve').length, 1, 'one reservation per request');
    assert.equal(kinds.filter((k) => k === 'settle' || k === 'refund').length, 1, 'closed exactly once');
  }
  return { charge: initial - balance, kinds: entries.map((e) => e.kind) };
}

async function record(name: string, stack: Stack, tokenId: string, expected: number) {
  const { charge, kinds } = await charged(stack, tokenId);
  rows.push([name, String(expected), String(charge), kinds.join(', ')]);
  assert.equal(charge, expected, name);
}

const body = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra });
const send = (stack: Stack, key: string, b: unknown, signal?: AbortSignal) => fetch(`${stack.url}/v1/chat/completions`, {
  method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(b), signal,
});
const estimate = (b: unknown) => Math.ceil(Buffer.byteLength(JSON.stringify(b)) / 4);

test('completed, non-stream: the upstream usage', async () => {
  const { key, id } = await chat.token({ quota: initial });
  const r = await (await send(chat, key, body('one two three [sim chunks=7]'))).json() as { usage: { total_tokens: number } };
  await record('completed (JSON)', chat, id, r.usage.total_tokens);
});

test('completed, stream, client did not ask for usage: still the upstream usage', async () => {
  const { key, id } = await chat.token({ quota: initial });
  // The simulator is deterministic: the same request non-streamed (on another token) tells the usage to expect.
  const twin = await chat.token({ quota: initial });
  const truth = await (await send(chat, twin.key, body('one two three [sim chunks=7]'))).json() as { usage: { total_tokens: number } };
  const text = await (await send(chat, key, body('one two three [sim chunks=7]', { stream: true }))).text();
  assert.ok(!/"usage":\{/.test(text));
  await record('completed (stream, usage hidden)', chat, id, truth.usage.total_tokens);
});

test('client disconnect mid-stream: prompt estimate plus what was delivered', async () => {
  const { key, id } = await chat.token({ quota: initial });
  const b = body('go [sim chunks=50 interval_ms=40]', { stream: true });
  const ac = new AbortController();
  const res = await send(chat, key, b, ac.signal);
  const reader = res.body!.getReader();
  let seen = '';
  while ((seen.match(/"content":"tok/g) ?? []).length < 3) seen += new TextDecoder().decode((await reader.read()).value);
  ac.abort();
  const { charge } = await charged(chat, id); // once the gateway saw the client go and closed the reservation
  rows.push(['client disconnect', `estimate + delivered (${estimate(b)} + ≥4)`, String(charge), 'reserve, settle']);
  assert.ok(charge >= estimate(b) + 4 && charge <= estimate(b) + 8, `charge ${charge}`);
});

test('upstream EOF mid-stream: prompt estimate plus the role chunk and 3 content chunks', async () => {
  const { key, id } = await chat.token({ quota: initial });
  const b = body('go [sim chunks=10 cut_after=3]', { stream: true });
  await (await send(chat, key, b)).text();
  await record('upstream EOF', chat, id, estimate(b) + 4);
});

test('upstream error event mid-stream: the same, plus the error event', async () => {
  const { key, id } = await chat.token({ quota: initial });
  const b = body('go [sim chunks=10 error_after=3]', { stream: true });
  await (await send(chat, key, b)).text();
  await record('mid-stream upstream error', chat, id, estimate(b) + 5);
});

test('retry onto another channel: billed once, by the channel that answered', async () => {
  const { key, id } = await chat.token({ quota: initial });
  chat.sim.control.addFault({ key: 'key-a', status: 500, times: 1 });
  const r = await (await send(chat, key, body('one two three [sim chunks=7]'))).json() as { usage: { total_tokens: number } };
  await chat.gw.gateway.breakers.reset();
  await record('retried onto another channel', chat, id, r.usage.total_tokens);
});

test('timeout before the first byte on every channel: refunded', async () => {
  const { key, id } = await chat.token({ quota: initial });
  const chans = chat.gw.gateway.runtime.channels;
  const saved = chans.map((c) => c.timeouts.first_byte_ms);
  for (const c of chans) c.timeouts.first_byte_ms = 150;
  try {
    const r = await send(chat, key, body('slow [sim first_byte_ms=600]'));
    assert.equal(r.status, 504);
  } finally { chans.forEach((c, i) => { c.timeouts.first_byte_ms = saved[i]; }); await chat.gw.gateway.breakers.reset(); }
  await record('timeout', chat, id, 0);
});

test('upstream failure on every channel: refunded', async () => {
  const { key, id } = await chat.token({ quota: initial });
  chat.sim.control.addFault({ status: 500, times: 3 });
  assert.equal((await send(chat, key, body('x'))).status, 502);
  chat.sim.control.clearFaults();
  await chat.gw.gateway.breakers.reset();
  await record('upstream 5xx everywhere', chat, id, 0);
});

const submit = (key: string, prompt: string) => call(tasks, key, 'POST', '/v1/video/generations', { model: 'veo3', prompt });

test('task completed: its price, once', async () => {
  const { key, id } = await tasks.token({ quota: initial });
  const s = await submit(key, 'ok [sim polls=1]');
  await waitFinal(tasks, key, `/v1/videos/${s.json.id}`);
  await record('task completed', tasks, id, 1500);
});

test('task failed: refunded', async () => {
  const { key, id } = await tasks.token({ quota: initial });
  const s = await submit(key, 'bad [sim polls=1 fail=1]');
  await waitFinal(tasks, key, `/v1/videos/${s.json.id}`);
  await record('task failed', tasks, id, 0);
});

test('task timed out: refunded', async () => {
  const { key, id } = await tasks.token({ quota: initial });
  const settings = tasks.gw.gateway.runtime.tasks;
  const saved = settings.max_age_s;
  const s = await submit(key, 'forever [sim polls=100000]');
  settings.max_age_s = -1;
  try {
    const done = await waitFinal(tasks, key, `/v1/videos/${s.json.id}`);
    assert.equal(done.error.code, 'timeout');
  } finally { settings.max_age_s = saved; }
  await record('task timed out', tasks, id, 0);
});

test('gateway restart while tasks run: each settles once after the restart', async () => {
  const { key, id } = await tasks.token({ quota: initial });
  const ok = await submit(key, 'across [sim polls=3]');
  const bad = await submit(key, 'across-bad [sim polls=3 fail=1]');
  await tasks.restartGateway();
  fastTasks(tasks);
  await waitFinal(tasks, key, `/v1/videos/${ok.json.id}`);
  await waitFinal(tasks, key, `/v1/videos/${bad.json.id}`);
  await record('restart in between (one completes, one fails)', tasks, id, 1500);
});
