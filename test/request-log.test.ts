// The request log end to end on the demo (its SQLite log beside the store): every finished request, task and topup
// is one record, found by the admin API's search (filters, newest first, cursor pages), read whole by id, exported as
// CSV and JSON Lines; a token sees its own records through /v1/requests and no one else's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, eventually, type Stack } from './helpers/stack.js';
import { fastTasks, waitFinal } from './helpers/video.js';
import { assertShapeA } from './helpers/api.js';
import type { RequestRecord } from '../src/request-log/log-store.js';

const adminKey = 'adm-' + 'l'.repeat(40);
let stack: Stack;
before(async () => { stack = await startStack({ env: { SWITCHYARD_ADMIN_KEY: adminKey, SWITCHYARD_LOG_FLUSH_MS: '20' } }); });
after(async () => { await stack?.close(); });

async function get(path: string, key = adminKey) {
  const res = await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

const chat = (key: string, content: string, extra: Record<string, unknown> = {}) => fetch(`${stack.url}/v1/chat/completions`, {
  method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra }),
});

/** The records of one request id, once the writer has written them. */
async function recordsOf(id: string, n = 1): Promise<RequestRecord[]> {
  let found: RequestRecord[] = [];
  await eventually(async () => { found = (await get(`/admin/requests/${id}`)).json?.data ?? []; return found.length >= n; });
  return found;
}

test('a chat request is one record: who, what, where, how it went, what it cost, how long it took', async () => {
  const { key, id: token } = await stack.token();
  const r = await chat(key, 'hello there [sim chunks=4]');
  assert.equal(r.status, 200);
  const [rec] = await recordsOf(r.headers.get('x-request-id')!);
  assert.equal(rec.kind, 'request');
  assert.equal(rec.token, token);
  assert.equal(rec.route, 'chat_completions');
  assert.equal(rec.path, '/v1/chat/completions');
  assert.equal(rec.model, 'gpt-4o-mini');
  assert.equal(rec.served_model, 'gpt-4o-mini');
  assert.equal(rec.channel, 'sim_openai');
  assert.deepEqual(rec.attempts?.map((a) => [a.channel, a.status]), [['sim_openai', 200]]);
  assert.equal(rec.status, 200);
  assert.deepEqual(rec.usage, { prompt_tokens: 4, completion_tokens: 4 }, 'the simulator counts words');
  assert.ok(rec.charged! >= 1 && rec.charged! <= rec.reserved!);
  assert.deepEqual(rec.charge_lines?.map((l) => l[0]), ['input', 'output']);
  assert.ok(rec.latency_ms! > 0 && rec.first_byte_ms! > 0 && rec.first_byte_ms! <= rec.latency_ms!);
  assert.equal(rec.client, '127.0.0.1');
  assert.ok(!JSON.stringify(rec).includes(key), 'never the key');
});

test('refusals are records too (a wrong key, an unpriced option), each with its status and error code', async () => {
  const { key, id: token } = await stack.token();
  const bad = await chat('sk-wrong-key', 'hi');
  assert.equal(bad.status, 401);
  const [unauth] = await recordsOf(bad.headers.get('x-request-id')!);
  assert.deepEqual([unauth.status, unauth.error_code, unauth.token], [401, 'invalid_api_key', null]);
  const tier = await chat(key, 'hi', { service_tier: 'scale' });
  assert.equal(tier.status, 400);
  const [refused] = await recordsOf(tier.headers.get('x-request-id')!);
  assert.deepEqual([refused.status, refused.error_code, refused.token, refused.reserved], [400, 'invalid_request', token, null]);
});

test('search: filters, newest first, cursor pages without gaps or repeats', async () => {
  const { key, id: token } = await stack.token();
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) ids.push((await chat(key, `page ${i}`)).headers.get('x-request-id')!);
  await recordsOf(ids.at(-1)!);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await get(`/admin/requests?token=${token}&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(page.status, 200, page.text);
    seen.push(...page.json.data.map((r: RequestRecord) => r.id));
    cursor = page.json.next_cursor;
  } while (cursor);
  assert.deepEqual(seen, [...ids].reverse(), 'newest first, each once');
  const byModel = await get(`/admin/requests?token=${token}&model=gpt-4o-mini&status=200&route=chat_completions&limit=1000`);
  assert.equal(byModel.json.data.length, 7);
  assert.equal((await get(`/admin/requests?token=${token}&model=gpt-4o`)).json.data.length, 0);
  assert.equal((await get(`/admin/requests?request_id=${ids[2]}`)).json.data[0].id, ids[2]);
  for (const [q, word] of [['status=abc', 'status'], ['kind=meal', 'kind'], ['cursor=!!', 'cursor'], ['limit=5000', 'limit'], ['from=yesterday', 'from']]) {
    const r = await get(`/admin/requests?${q}`);
    assertShapeA(r, 400, 'invalid_request', 'invalid_request_error');
    assert.match(r.json.error.message, new RegExp(`\`${word}\``));
  }
});

test('export: every record a search finds, as CSV and as JSON Lines', async () => {
  const { key, id: token } = await stack.token();
  const ids = [(await chat(key, 'one')).headers.get('x-request-id')!, (await chat(key, 'two')).headers.get('x-request-id')!];
  await recordsOf(ids[1]);
  const csv = await get(`/admin/requests/export?format=csv&token=${token}`);
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type')!, /text\/csv/);
  const lines = csv.text.trim().split('\r\n');
  assert.match(lines[0], /^id,kind,at,/);
  assert.deepEqual(lines.slice(1).map((l) => l.split(',')[0]), [...ids].reverse());
  const jsonl = await get(`/admin/requests/export?token=${token}`);
  assert.deepEqual(jsonl.text.trim().split('\n').map((l) => JSON.parse(l).id), [...ids].reverse());
  assertShapeA(await get('/admin/requests/export?format=xml'), 400, 'invalid_request', 'invalid_request_error');
});

test('a task is a record when it ends (its submit is a request of its own); a topup is one too', async () => {
  fastTasks(stack);
  const { key, id: token } = await stack.token();
  const sub = await fetch(`${stack.url}/v1/video/generations`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sora-2', prompt: 'a fox [sim polls=1]', seconds: '4' }) });
  const task = (await sub.json()).id as string;
  assert.equal((await waitFinal(stack, key, `/v1/videos/${task}`)).status, 'completed');
  // The task's id finds both: the task's record and its submit's (newest first).
  const [rec, submit] = await recordsOf(task, 2);
  assert.deepEqual([rec.kind, rec.token, rec.model, rec.outcome, rec.charged, rec.reserved, rec.units], ['task', token, 'sora-2', 'completed', 400, 400, 4]);
  assert.deepEqual(rec.charge_lines, [['second', 4, 100, 400]]);
  assert.deepEqual([submit.id, submit.kind, submit.task, submit.reserved, submit.charged], [sub.headers.get('x-request-id'), 'request', task, 400, null]);
  assert.deepEqual((await recordsOf(submit.id)).map((r) => r.kind), ['request']);
  // A submit its vendor refused made no task, but its reservation's id finds it.
  const refused = await fetch(`${stack.url}/v1/video/generations`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sora-2', prompt: 'no [sim submit_status=400]', seconds: '4' }) });
  assert.equal(refused.status, 400);
  const [no] = await recordsOf(refused.headers.get('x-request-id')!);
  assert.match(no.task ?? '', /^task_/);
  assert.deepEqual((await recordsOf(no.task!)).map((r) => [r.id, r.status, r.reserved, r.charged]), [[no.id, 400, 400, 0]]);
  const top = await fetch(`${stack.url}/admin/tokens/${token}/topup`, { method: 'POST', headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json', 'idempotency-key': 'invoice-7' }, body: JSON.stringify({ amount: 500 }) });
  assert.equal(top.status, 200);
  const [topup] = await recordsOf(`admin:idem:${token}:invoice-7`);
  assert.deepEqual([topup.kind, topup.token, topup.charged, topup.route], ['topup', token, 500, 'admin']);
  // A retry with the same idempotency key moves nothing and is not recorded again.
  const again = await fetch(`${stack.url}/admin/tokens/${token}/topup`, { method: 'POST', headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json', 'idempotency-key': 'invoice-7' }, body: JSON.stringify({ amount: 500 }) });
  assert.equal(again.status, 200);
  await stack.gw.gateway.requestLog!.flush();
  assert.equal((await get(`/admin/requests?kind=topup&token=${token}`)).json.data.length, 1);
});

test('a token sees its own records on /v1/requests, never another token\'s', async () => {
  const a = await stack.token();
  const b = await stack.token();
  const mine = (await chat(a.key, 'mine')).headers.get('x-request-id')!;
  const theirs = (await chat(b.key, 'theirs')).headers.get('x-request-id')!;
  await recordsOf(theirs);
  const list = await get('/v1/requests', a.key);
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.json.data.map((r: RequestRecord) => r.id), [mine]);
  assert.equal((await get(`/v1/requests/${mine}`, a.key)).json.data[0].id, mine);
  assertShapeA(await get(`/v1/requests/${theirs}`, a.key), 404, 'not_found', 'invalid_request_error');
  assertShapeA(await get(`/v1/requests?token=${b.id}`, a.key), 400, 'invalid_request', 'invalid_request_error');
  assertShapeA(await get('/admin/requests', a.key), 403, 'admin_key_required', 'invalid_request_error');
});
