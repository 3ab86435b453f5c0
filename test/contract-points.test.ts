// Contract points: every error on the unified video routes is typed platform_api_error; id-list queries are validated
// and refused in their family's own shape.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './helpers/stack.js';
import { post, assertShapeA } from './helpers/api.js';
import { call } from './helpers/video.js';

let stack: Stack;
let key: string;
before(async () => {
  stack = await startStack();
  ({ key } = await stack.token());
});
after(() => stack.close());

test('unified video routes type every error platform_api_error, request and key errors included', async () => {
  assertShapeA(await post(`${stack.url}/v1/video/generations`, { model: 'sora-2' }, key), 400, 'invalid_request', 'platform_api_error', '`prompt`');
  assertShapeA(await post(`${stack.url}/v1/video/generations`, { model: 'sora-2', prompt: 'x' }, 'sk-wrong'), 401, 'invalid_api_key', 'platform_api_error');
  assertShapeA(await post(`${stack.url}/v1/videos`, { model: 'sora-2', prompt: 'x', seconds: '99' }, key), 400, 'invalid_request', 'platform_api_error', '`seconds`');
  for (const path of ['/v1/videos/task_nope', '/v1/video/generations/task_nope', '/v1/videos/task_nope/content']) {
    const r = await call(stack, key, 'GET', path);
    assertShapeA({ ...r, json: r.json }, 404, 'task_not_found', 'platform_api_error');
  }
});

test('chat keeps the contract\'s split: request and key errors invalid_request_error, gateway faults platform_api_error', async () => {
  assertShapeA(await post(`${stack.url}/v1/chat/completions`, { messages: [] }, key), 400, 'invalid_request', 'invalid_request_error');
  const { key: poor } = await stack.token({ quota: 0 });
  assertShapeA(await post(`${stack.url}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }, poor), 403, 'insufficient_user_quota', 'platform_api_error');
});

test('id-list queries: a missing or non-array `ids` is refused in the family\'s own shape, never an empty success', async () => {
  for (const body of [{}, { ids: 'task_x' }, { ids: [1, 2] }]) {
    const art = await call(stack, key, 'POST', '/art/task/list-by-condition', body);
    assert.equal(art.status, 400, art.text);
    assert.deepEqual(Object.keys(art.json).sort(), ['code', 'description', 'properties', 'result']);
    assert.equal(art.json.code, 4);
    assert.match(art.json.description, /`ids/);
    const music = await call(stack, key, 'POST', '/music/fetch', body);
    assert.equal(music.status, 400, music.text);
    assert.deepEqual(music.json, { code: 'invalid_request', message: music.json.message, data: null });
    assert.match(music.json.message, /`ids/);
  }
  const ok = await call(stack, key, 'POST', '/art/task/list-by-condition', { ids: [] });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.json, []);
});

test('files and batches answer every refusal in Shape A, naming the field or the line', async () => {
  const form = (purpose: string, text: string) => {
    const f = new FormData();
    f.set('purpose', purpose);
    f.set('file', new Blob([text]), 'in.jsonl');
    return f;
  };
  const upload = async (body: FormData) => {
    const res = await fetch(`${stack.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
  };
  const line = (extra: object) => `${JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }, ...extra })}\n`;
  assertShapeA(await upload(form('fine-tune', line({}))), 400, 'invalid_request', 'invalid_request_error', '`purpose`');
  assertShapeA(await upload(form('batch', line({ method: 'PUT' }))), 400, 'invalid_request', 'invalid_request_error', 'Line 1: `method`');
  assertShapeA(await post(`${stack.url}/v1/files`, { purpose: 'batch', file: { filename: 'x', size: 1, path: '/etc/hostname' } }, key), 400, 'invalid_request', 'invalid_request_error', '`file`');
  for (const path of ['/v1/files/file-nope', '/v1/files/file-nope/content']) {
    const r = await call(stack, key, 'GET', path);
    assertShapeA({ ...r, json: r.json }, 404, 'file_not_found', 'invalid_request_error');
  }
  const limit = await call(stack, key, 'GET', '/v1/files?limit=0');
  assertShapeA({ ...limit, json: limit.json }, 400, 'invalid_request', 'invalid_request_error', '`limit`');
  assertShapeA(await post(`${stack.url}/v1/batches`, { endpoint: '/v1/chat/completions', completion_window: '24h' }, key), 400, 'invalid_request', 'invalid_request_error', '`input_file_id`');
  assertShapeA(await post(`${stack.url}/v1/batches`, { input_file_id: 'file-x', endpoint: '/v1/chat/completions', completion_window: '1h' }, key), 400, 'invalid_request', 'invalid_request_error', '`completion_window`');
  assertShapeA(await post(`${stack.url}/v1/batches`, { input_file_id: 'file-x', endpoint: '/v1/chat/completions', completion_window: '24h' }, key), 404, 'file_not_found', 'invalid_request_error', '`input_file_id`');
  const unknown = await call(stack, key, 'GET', '/v1/batches/task_nope');
  assertShapeA({ ...unknown, json: unknown.json }, 404, 'task_not_found', 'invalid_request_error');
});
