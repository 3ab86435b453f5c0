// The Realtime relay at its edges, with a plain `ws` client as a browser or an attacker would drive it: the key in a
// subprotocol, refusals before the upgrade in the contract's shape, client secrets that expire, the per-token session
// limit, idle and over-long sessions, a balance that runs dry, fuzzed and oversized frames, a client that vanishes
// mid-response and a gateway stop, each ending with both sockets closed and the money settled.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import WebSocket from 'ws';
import { startStack, eventually } from './helpers/stack.js';
import { quickTaskConfig } from './helpers/child-gateway.js';
import { projectRoot } from '../src/config/load-config.js';

const routes = parse(readFileSync(join(projectRoot, 'routes.yaml'), 'utf8')).routes as { id: string }[];
const at = routes.findIndex((r) => r.id === 'realtime');
const limits = { idle_s: 1, max_session_s: 3, max_sessions_per_token: 2, max_frame_bytes: 1 << 20 };
const stack = await startStack({ configDir: quickTaskConfig({}, [], Object.entries(limits).map(([k, v]) => [['routes', at, 'realtime', k], v])) });
after(() => stack.close());
const wsUrl = (model = 'gpt-realtime-2.1-mini') => `${stack.url.replace(/^http/, 'ws')}/v1/realtime?model=${model}`;

interface Session { ws: WebSocket; events: any[]; closed: Promise<number>; next(type: string): Promise<any> }

function connect(auth: { key?: string; protocols?: string[] }, model?: string): Promise<Session> {
  const ws = new WebSocket(wsUrl(model), auth.protocols ?? [], auth.key ? { headers: { authorization: `Bearer ${auth.key}` } } : {});
  const events: any[] = [];
  const waiters: [string, (e: any) => void][] = [];
  ws.on('message', (d) => {
    const e = JSON.parse(String(d));
    events.push(e);
    for (const [i, [type, resolve]] of [...waiters.entries()].reverse()) if (type === e.type) { waiters.splice(i, 1); resolve(e); }
  });
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  const s: Session = {
    ws, events, closed,
    next: (type) => new Promise((resolve) => { const seen = events.find((e) => e.type === type && !e.taken); if (seen) { seen.taken = true; resolve(seen); } else waiters.push([type, resolve]); }),
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(s));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => reject(Object.assign(new Error(`refused ${res.statusCode}`), { status: res.statusCode, body: JSON.parse(body || '{}') })));
    });
    ws.once('error', reject);
  });
}

const say = (s: Session, text: string) => {
  s.ws.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } }));
  s.ws.send(JSON.stringify({ type: 'response.create' }));
};

async function record(id: string): Promise<Record<string, any>> {
  let rec: Record<string, any> | undefined;
  await eventually(() => { rec = stack.logs().find((l) => l.msg === 'request' && l.token_id === id && l.route === 'realtime'); return rec !== undefined; }, 6000);
  return rec!;
}

/** Money conserved for a finished session: the balance lost exactly its charge, never more than it held. */
async function settled(id: string, quota: number): Promise<Record<string, any>> {
  const rec = await record(id);
  assert.equal(await stack.balance(id), quota - rec.charged);
  assert.ok(rec.charged >= 0 && rec.charged <= rec.reserved);
  return rec;
}

const noneOpen = () => eventually(() => stack.sim.control.openRealtimeSessions() === 0, 4000);

test('the browser form: the key in a subprotocol, answered with the realtime subprotocol, never the key', async () => {
  const { key, id } = await stack.token();
  const s = await connect({ protocols: ['realtime', `openai-insecure-api-key.${key}`] });
  assert.equal(s.ws.protocol, 'realtime');
  await s.next('session.created');
  say(s, 'hi');
  await s.next('response.done');
  s.ws.close();
  await s.closed;
  const rec = await settled(id, 1_000_000);
  assert.ok(rec.charged >= 1);
  assert.equal(stack.sim.control.realtimeSessions().at(-1)!.key, 'sim-key', 'the vendor saw the channel key only');
});

test('refusals before the upgrade come as HTTP errors in the contract shape', async () => {
  const bad: any = await connect({ key: 'sk-nope' }).catch((e) => e);
  assert.equal(bad.status, 401);
  assert.equal(bad.body.error.code, 'invalid_api_key');
  const { key } = await stack.token();
  const unknown: any = await connect({ key }, 'gpt-nonexistent').catch((e) => e);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'model_not_found');
  const { key: poor } = await stack.token({ quota: 0 });
  const broke: any = await connect({ key: poor }).catch((e) => e);
  assert.equal(broke.status, 403);
  assert.equal(broke.body.error.code, 'insufficient_user_quota');
  const plain = await fetch(`${stack.url}/v1/realtime?model=gpt-realtime-2.1`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(plain.status, 426);
  assert.equal((await plain.json()).error.code, 'upgrade_required');
  const upgradeElsewhere: any = await new Promise((resolve) => {
    const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` } });
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode));
    ws.once('error', () => resolve('error'));
  });
  assert.ok(upgradeElsewhere >= 400 && upgradeElsewhere < 500, `got ${upgradeElsewhere}`);
});

test('client secrets: minted for a token, refused once expired, and never minted by a secret', async () => {
  const { key } = await stack.token();
  const mint = (auth: string, body: unknown) => fetch(`${stack.url}/v1/realtime/client_secrets`, { method: 'POST', headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const tooShort = await mint(key, { expires_after: { anchor: 'created_at', seconds: 5 } });
  assert.equal(tooShort.status, 400);
  assert.match(JSON.stringify(await tooShort.json()), /expires_after/);
  const r = await mint(key, { expires_after: { anchor: 'created_at', seconds: 10 }, session: { type: 'realtime', model: 'gpt-realtime-2.1-mini' } });
  assert.equal(r.status, 200);
  const secret = await r.json();
  const s = await connect({ protocols: ['realtime', `openai-insecure-api-key.${secret.value}`] });
  await s.next('session.created');
  s.ws.close();
  await s.closed;
  assert.equal((await mint(secret.value, {})).status, 401);
  // Expiry is checked on the gateway's clock: move it past the secret's end.
  const realNow = Date.now;
  Date.now = () => realNow() + 11_000;
  try {
    const expired: any = await connect({ protocols: ['realtime', `openai-insecure-api-key.${secret.value}`] }).catch((e) => e);
    assert.equal(expired.status, 401);
  } finally {
    Date.now = realNow;
  }
});

test('a token may hold max_sessions_per_token sessions; one more is 429 until one closes', async () => {
  const { key } = await stack.token();
  const a = await connect({ key });
  const b = await connect({ key });
  const c: any = await connect({ key }).catch((e) => e);
  assert.equal(c.status, 429);
  assert.match(c.body.error.message, /2 realtime sessions/);
  a.ws.close();
  await a.closed;
  await eventually(async () => (await connect({ key }).then((d) => { d.ws.close(); return true; }, () => false)), 3000);
  b.ws.close();
  await b.closed;
});

test('an idle session and an over-long one are closed with an error event saying why', async () => {
  const { key, id } = await stack.token();
  const idle = await connect({ key });
  const idleError = await idle.next('error');
  assert.equal(idleError.error.code, 'idle_timeout');
  assert.equal(await idle.closed, 1000);
  await settled(id, 1_000_000);

  const { key: k2 } = await stack.token();
  const long = await connect({ key: k2 });
  const keepAlive = setInterval(() => long.ws.send(JSON.stringify({ type: 'input_audio_buffer.clear' })), 300);
  const expired = await long.next('error').finally(() => clearInterval(keepAlive));
  assert.equal(expired.error.code, 'session_expired');
  await long.closed;
  await noneOpen();
});

test('a balance that runs dry mid-session ends it with insufficient_quota, charged no more than it held', async () => {
  // A response's hold on gpt-realtime-2.1 is about 394 units (a 4,096-token turn and 4,096 tokens out, at the audio
  // rates): 600 cover one hold; the first response costs about 301 (4,700 audio tokens out at $64 per million), after
  // which the next hold cannot be taken.
  const quota = 600;
  const { key, id } = await stack.token({ quota });
  const s = await connect({ key }, 'gpt-realtime-2.1');
  await s.next('session.created');
  const usage = Buffer.from(JSON.stringify({ output_tokens: 4700, output_token_details: { text_tokens: 0, audio_tokens: 4700 } })).toString('base64url');
  say(s, `go [sim usage=${usage}]`);
  const done = await s.next('response.done');
  assert.equal(done.response.usage.output_token_details.audio_tokens, 4700);
  const err = await s.next('error');
  assert.equal(err.error.type, 'insufficient_quota');
  assert.equal(await s.closed, 1008);
  const rec = await record(id);
  assert.equal(rec.error_code, 'insufficient_user_quota');
  assert.ok(rec.charged >= 301 && rec.charged <= 302, `charged the response in full (${rec.charged})`);
  assert.equal(await stack.balance(id), quota - rec.charged);
  await noneOpen();
});

test('fuzzed frames pass to the vendor untouched; an oversized one closes the session with 1009', async () => {
  const { key, id } = await stack.token();
  const s = await connect({ key });
  await s.next('session.created');
  for (const junk of ['{', 'null', '[]', '{"type":42}', '\u0000\uffff', JSON.stringify({ type: 'x'.repeat(5000) })]) s.ws.send(junk);
  s.ws.send(Buffer.from([0, 1, 2, 3]), { binary: true });
  await eventually(() => s.events.filter((e) => e.type === 'error').length >= 6, 3000);
  assert.equal(s.ws.readyState, s.ws.OPEN, 'the vendor answered each with an error event; the session lives');
  say(s, 'still there?');
  await s.next('response.done');
  s.ws.send('x'.repeat((1 << 20) + 10));
  assert.equal(await s.closed, 1009);
  await settled(id, 1_000_000);
  await noneOpen();
});

test('a client that vanishes mid-response: the vendor is told to stop, what it made is charged, nothing left open', async () => {
  const { key, id } = await stack.token();
  const s = await connect({ key });
  await s.next('session.created');
  say(s, 'tell me a long story [sim chunks=40 interval_ms=50]');
  await s.next('response.output_audio.delta');
  s.ws.terminate();
  const rec = await settled(id, 1_000_000);
  assert.ok(rec.charged >= 1, 'the cancelled response was charged what the vendor reported');
  const vendor = stack.sim.control.realtimeSessions().at(-1)!;
  assert.equal(vendor.clientEvents['response.cancel'], 1);
  await noneOpen();
});

test('a stop ends open sessions with an error event and settles them', async () => {
  const { key, id } = await stack.token();
  const s = await connect({ key });
  await s.next('session.created');
  say(s, 'hi');
  await s.next('response.done');
  const err = s.next('error');
  const keepAlive = setInterval(() => s.ws.readyState === s.ws.OPEN && s.ws.send(JSON.stringify({ type: 'input_audio_buffer.clear' })), 300);
  await stack.restartGateway().finally(() => clearInterval(keepAlive));
  assert.equal((await err).error.code, 'shutting_down');
  assert.equal(await s.closed, 1001);
  assert.equal(await stack.balance(id), 1_000_000 - (await record(id)).charged);
  await noneOpen();
});
