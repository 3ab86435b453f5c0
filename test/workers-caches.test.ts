// What each worker caches stays true across workers (node:cluster on one SQLite store, as `npm run serve` runs): a
// token revoked in the store is refused by every worker once the token cache time has passed, a Responses answer the
// gateway kept on one worker is continued on the other, and a SIGHUP to the primary reloads every worker's config.
// Each request goes on a connection of its own, which the primary hands to the workers in turn; the worker that
// answered is read from the request id, whose prefix is drawn once per process.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { TokenStore } from '../src/store/token-store.js';
import { quickTaskConfig, simulatorAndStore, spawnGateway } from './helpers/child-gateway.js';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => undefined); });

interface Answer { status: number; worker: string; headers: Record<string, unknown>; body: string }

/** One request on a fresh connection (no keep-alive): the primary picks the next worker for it. */
function send(url: string, key: string, path: string, body: unknown): Promise<Answer> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, {
      method: 'POST', agent: false,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': data.length },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({
        status: res.statusCode ?? 0, worker: String(res.headers['x-request-id'] ?? '').slice(4, 12), headers: res.headers, body: text,
      }));
    });
    req.once('error', reject);
    req.end(data);
  });
}

const chat = (url: string, key: string) => send(url, key, '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

/** `n` requests one after another, each on its own connection: with two workers, both answer some. */
async function round(n: number, one: () => Promise<Answer>): Promise<Answer[]> {
  const out: Answer[] = [];
  for (let i = 0; i < n; i++) out.push(await one());
  return out;
}

const workersOf = (answers: Answer[]) => new Set(answers.map((a) => a.worker));

test('two workers: a revoked token, a kept answer and a reload hold on both', { timeout: 90_000 }, async () => {
  const { sim, storeUri, store } = await simulatorAndStore('switchyard-workers-caches-', cleanups);
  const config = quickTaskConfig();
  const gw = await spawnGateway({ SWITCHYARD_STORE: storeUri, SWITCHYARD_SIM_URL: sim.url, SWITCHYARD_CONFIG_DIR: config, SWITCHYARD_WORKERS: '2' });
  cleanups.push(() => gw.stop());
  const tokens = new TokenStore(store, 0);
  const { key, record } = await tokens.create({ group: 'vip', quota: 1_000_000 });

  // The gateway answers once its first worker listens: the second may still be starting.
  const before = await eventually(async () => {
    const r = await round(8, () => chat(gw.url, key));
    assert.deepEqual(r.map((a) => a.status), Array(8).fill(200));
    return workersOf(r).size === 2 ? r : undefined;
  });
  assert.ok(before, 'both workers answered');

  // A Responses answer on a chat-only model is kept by the gateway (in the store), not by the vendor: every worker
  // must find it to continue the conversation, even a continuation sent the moment the answer arrived. Streamed, the
  // answer is kept before its closing events (response.completed carries it whole) go out. Several turns: a lost race
  // shows only now and then.
  for (let turn = 0; turn < 4; turn++) {
    for (const stream of [false, true]) {
      const first = await send(gw.url, key, '/v1/responses', { model: 'compat-chat', input: `Remember the word kiwi ${turn}.`, stream });
      const id = /"id":"(resp_[^"]+)"/.exec(first.body)?.[1];
      assert.ok(first.status === 200 && id, first.body.slice(0, 300));
      const follow = await round(4, () => send(gw.url, key, '/v1/responses', { model: 'compat-chat', input: 'Which word?', previous_response_id: id }));
      assert.deepEqual(follow.map((a) => a.status), Array(4).fill(200),
        follow.map((a) => `${stream ? 'streamed' : 'JSON'} ${first.worker}→${a.worker} ${a.status} ${a.body.slice(0, 120)}`).join('\n'));
      assert.equal(workersOf(follow).size, 2, 'both workers continued the kept answer');
    }
  }

  // A SIGHUP to the primary reaches every worker: the vip group's new limit shows on both workers' answers.
  const channels = join(config, 'channels.yaml');
  const doc = parseDocument(readFileSync(channels, 'utf8'));
  const limit = Number(doc.getIn(['groups', 'vip', 'rate_limit', 'requests'])) - 7;
  doc.setIn(['groups', 'vip', 'rate_limit', 'requests'], limit);
  writeFileSync(channels, String(doc));
  gw.proc.kill('SIGHUP');
  const reloaded = await eventually(async () => {
    const r = await round(6, () => chat(gw.url, key));
    return r.every((a) => a.headers['x-ratelimit-limit-requests'] === String(limit)) && workersOf(r).size === 2 ? r : undefined;
  });
  assert.ok(reloaded, `both workers serve the reloaded limit ${limit}`);

  // Revoked in the store (as the CLI does): each worker's token cache holds the record at most token_cache_ms (2 s).
  assert.equal(await tokens.revoke(record.id), true);
  await new Promise((r) => setTimeout(r, 2500));
  const revoked = await round(8, () => chat(gw.url, key));
  assert.deepEqual(revoked.map((a) => a.status), Array(8).fill(401), 'refused by every worker once the cache time passed');
  assert.equal(workersOf(revoked).size, 2);
  assert.equal(await gw.stop(), 0);
});

/** Retries `check` for up to 5 s (a reload takes a moment in each worker). */
async function eventually<T>(check: () => Promise<T | undefined>): Promise<T | undefined> {
  const until = Date.now() + 5000;
  for (;;) {
    const v = await check();
    if (v !== undefined || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}
