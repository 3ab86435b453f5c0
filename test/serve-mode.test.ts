// `npm run serve`: the gateway on deploy/config, the operator's side of the split. No simulator starts, the shipped
// routes that no real channel serves are left out, and a token of the `default` group really reaches the vendor
// (here a stand-in for OpenAI on loopback, through OPENAI_BASE_URL) with the channel's key, which the client never sees.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { parse } from 'yaml';
import { projectRoot } from '../src/config/load-config.js';
import { openStore } from '../src/store/open-store.js';
import { TokenStore } from '../src/store/token-store.js';
import { spawnGateway, type ChildGateway } from './helpers/child-gateway.js';

const vendorKey = 'sk-real-vendor-key-0123456789abcdef';
const seen: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
let vendor: Server;
let gw: ChildGateway;
let key: string;

function fakeOpenAI(): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, body });
      const model = JSON.parse(body).model;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id: 'chatcmpl-real', object: 'chat.completion', created: 1, model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'from the real vendor' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
      }));
    });
  });
}

before(async () => {
  vendor = fakeOpenAI();
  await new Promise<void>((r) => vendor.listen(0, '127.0.0.1', r));
  const uri = `sqlite://${join(mkdtempSync(join(tmpdir(), 'switchyard-serve-')), 'store.sqlite')}`;
  const store = await openStore(uri, { quotaFlushMs: 0 });
  ({ key } = await new TokenStore(store, 0).create({ group: 'default', quota: 100_000 }));
  await store.close();
  gw = await spawnGateway({
    SWITCHYARD_STORE: uri,
    SWITCHYARD_CONFIG_DIR: join(projectRoot, 'deploy', 'config'),
    OPENAI_BASE_URL: `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`,
    OPENAI_API_KEY: vendorKey,
    ANTHROPIC_API_KEY: '',
    SWITCHYARD_SIM_URL: 'http://127.0.0.1:1', // were any simulator channel left, it would fail here
    LOG_LEVEL: 'info',
  });
});
after(async () => {
  await gw?.kill();
  vendor?.close();
});

test('a default-group token reaches the real channel with its key; the client never sees the key', async () => {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(answer.choices[0].message.content, 'from the real vendor');
  assert.equal(seen.length, 1);
  assert.equal(seen[0].path, '/v1/chat/completions');
  assert.equal(seen[0].headers.authorization, `Bearer ${vendorKey}`);
  assert.ok(!JSON.stringify(answer).includes(vendorKey));
});

test('only the deployment config is served: the enabled vendors\' models, no simulator, no routes without a channel', async () => {
  const auth = { authorization: `Bearer ${key}` };
  const models = await (await fetch(`${gw.url}/v1/models`, { headers: auth })).json() as { data: { id: string }[] };
  const ids = models.data.map((m) => m.id).sort();
  // Only OPENAI_API_KEY is set: exactly OpenAI's models are listed (chat, embeddings, images, Sora), no other vendor's.
  const openai = parse(readFileSync(join(projectRoot, 'vendors', 'openai.yaml'), 'utf8')) as { models: Record<string, unknown> };
  assert.deepEqual(ids, Object.keys(openai.models).sort());
  assert.ok(!ids.some((id) => /^(veo|kling|claude|gemini|art-|suno)/.test(id)), ids.join(','));
  const video = await fetch(`${gw.url}/v1/video/generations`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"model":"kling-v2-6","prompt":"x"}' });
  assert.equal(video.status, 404, 'Kling has no key: its models are not served');
  const claude = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.ok(claude.status >= 400 && claude.status < 600 && claude.status !== 500, `claude without a key: ${claude.status}`);
  assert.equal(seen.filter((s) => s.path !== '/v1/chat/completions').length, 0);
  const out = gw.output();
  assert.doesNotMatch(out, /vendor simulator/);
  assert.ok(!out.includes(vendorKey), 'the vendor key is in the log');
});
