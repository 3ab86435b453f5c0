// POST /v1/embeddings through the official openai client: float and base64 vectors, token inputs, and the money:
// reserved from the body's size, charged from the upstream's usage.prompt_tokens, never above the reservation.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startStack, type Stack } from './helpers/stack.js';
import { client, post, assertShapeA, ledgerOf, expectedCharge } from './helpers/api.js';
import { embeddingVector, float32Base64 } from '../simulator/server.js';

let stack: Stack;
before(async () => { stack = await startStack({ env: { OPENAI_API_KEY: '' } }); });
after(async () => { await stack.close(); });
beforeEach(() => stack.sim.control.clear());

const price = (model: string) => stack.gw.gateway.runtime.models.get(model)!.price;
const vector = (text: string, dims = 16) => embeddingVector(text, dims);

test('float: the simulator\'s deterministic vectors, exact usage, charged from usage.prompt_tokens', async () => {
  const { key, id } = await stack.token();
  const ai = client(stack, key);
  const before = (await stack.balance(id))!;
  const { data: r, response } = await ai.embeddings.create({ model: 'text-embedding-3-small', input: 'hello big world', encoding_format: 'float' }).withResponse();
  assert.equal(r.object, 'list');
  assert.equal(r.model, 'text-embedding-3-small');
  assert.deepEqual(r.data, [{ object: 'embedding', index: 0, embedding: vector('hello big world') }]);
  assert.deepEqual(r.usage, { prompt_tokens: 3, total_tokens: 3 });
  const charged = expectedCharge(price('text-embedding-3-small'), 3, 0);
  assert.equal(before - (await stack.balance(id))!, charged);
  const entries = await ledgerOf(stack, id, response.headers.get('x-request-id')!);
  assert.deepEqual(entries.map((e) => e.kind), ['reserve', 'settle']);
  const sent = stack.sim.control.requests().find((q) => q.path === '/v1/embeddings')!;
  assert.equal(sent.headers.authorization, 'Bearer sim-key', 'the channel\'s key, never the client\'s');
});

test('base64: the client\'s default (it asks base64 and decodes) and an explicit base64 string, batches and dimensions', async () => {
  const { key } = await stack.token();
  const ai = client(stack, key);
  const decoded = await ai.embeddings.create({ model: 'text-embedding-3-large', input: ['one two', 'three'], dimensions: 8 });
  assert.deepEqual(stack.sim.control.requests().at(-1)!.body, { model: 'text-embedding-3-large', input: ['one two', 'three'], dimensions: 8, encoding_format: 'base64' });
  assert.deepEqual(decoded.data.map((d) => d.embedding), [vector('one two', 8), vector('three', 8)]);
  assert.deepEqual(decoded.usage, { prompt_tokens: 3, total_tokens: 3 });
  const raw = await ai.embeddings.create({ model: 'text-embedding-3-small', input: 'hello', encoding_format: 'base64' });
  assert.equal(raw.data[0].embedding as unknown as string, float32Base64(vector('hello')));
});

test('token-id inputs: one array and a batch of arrays; usage counts the ids', async () => {
  const { key } = await stack.token();
  const ai = client(stack, key);
  const one = await ai.embeddings.create({ model: 'text-embedding-3-small', input: [1, 2, 3], encoding_format: 'float' });
  assert.equal(one.usage.prompt_tokens, 3);
  const many = await ai.embeddings.create({ model: 'text-embedding-3-small', input: [[1, 2, 3], [4, 5]], encoding_format: 'float' });
  assert.equal(many.data.length, 2);
  assert.equal(many.usage.prompt_tokens, 5);
});

test('the charge follows the reported usage below the estimate, and is capped at the reservation above it', async () => {
  const { key, id } = await stack.token();
  const model = 'text-embedding-3-large';
  // Text: 4 bytes per token is an overestimate here (one 5-byte word per token), so usage is charged, not the estimate.
  const text = 'word '.repeat(60_000);
  const below = await post(`${stack.url}/v1/embeddings`, { model, input: text, encoding_format: 'base64' }, key);
  assert.equal(below.status, 200, below.text);
  const [reserve, close] = await ledgerOf(stack, id, below.headers.get('x-request-id')!);
  const charged = expectedCharge(price(model), 60_000, 0);
  assert.ok(charged < reserve.amount, `${charged} < ${reserve.amount}`);
  assert.equal(reserve.amount + close.amount, charged);
  // Token ids: "0," is two bytes per token, twice the usage the size suggests; the excess is recorded, not taken.
  const ids = Array.from({ length: 100 }, () => Array(8000).fill(0));
  const before = (await stack.balance(id))!;
  const above = await post(`${stack.url}/v1/embeddings`, { model, input: ids, encoding_format: 'base64' }, key);
  assert.equal(above.status, 200, above.text.slice(0, 200));
  assert.equal(above.json.usage.prompt_tokens, 800_000);
  const [r2, c2] = await ledgerOf(stack, id, above.headers.get('x-request-id')!);
  assert.equal(c2.kind, 'settle');
  assert.equal(c2.amount, 0, 'charged the whole reservation');
  assert.equal(before - (await stack.balance(id))!, r2.amount);
  assert.equal(c2.uncharged, expectedCharge(price(model), 800_000, 0) - r2.amount);
});

test('bad inputs are 400 naming the field before anything is reserved; a chat model is not an embedding model', async () => {
  const { key, id } = await stack.token();
  const url = `${stack.url}/v1/embeddings`;
  const before = (await stack.balance(id))!;
  const cases: [unknown, string][] = [
    [{ model: 'text-embedding-3-small', input: '' }, 'input'],
    [{ model: 'text-embedding-3-small', input: [] }, 'input'],
    [{ model: 'text-embedding-3-small', input: Array(2049).fill('a') }, 'input'],
    [{ model: 'text-embedding-3-small', input: [[1, -2]] }, 'input'],
    [{ model: 'text-embedding-3-small', input: [1.5] }, 'input'],
    [{ model: 'text-embedding-3-small', input: 'a', encoding_format: 'int8' }, 'encoding_format'],
    [{ model: 'text-embedding-3-small', input: 'a', dimensions: 0 }, 'dimensions'],
    [{ model: 'text-embedding-3-small', input: 'a', dimensions: '8' }, 'dimensions'],
    [{ model: 'text-embedding-3-small' }, 'input'],
    [{ input: 'a' }, 'model'],
  ];
  for (const [body, field] of cases) assertShapeA(await post(url, body, key), 400, 'invalid_request', 'invalid_request_error', field);
  assertShapeA(await post(url, { model: 'gpt-4o-mini', input: 'a' }, key), 404, 'model_not_found', 'invalid_request_error');
  const chat = await post(`${stack.url}/v1/chat/completions`, { model: 'text-embedding-3-small', messages: [{ role: 'user', content: 'hi' }] }, key);
  assertShapeA(chat, 404, 'model_not_found', 'invalid_request_error');
  assert.equal(await stack.balance(id), before, 'nothing reserved or charged');
  assert.equal(stack.sim.control.requests().length, 0, 'nothing reached the vendor');
  const ai = client(stack, key);
  await assert.rejects(ai.embeddings.create({ model: 'text-embedding-3-small', input: '' }), (e: unknown) => e instanceof OpenAI.BadRequestError);
});

test('an upstream failure is relayed and refunded', async () => {
  const { key, id } = await stack.token();
  const before = (await stack.balance(id))!;
  const r = await post(`${stack.url}/v1/embeddings`, { model: 'text-embedding-3-small', input: 'x [sim status=500]' }, key);
  assertShapeA(r, 502, 'upstream_error', 'platform_api_error');
  assert.equal(await stack.balance(id), before);
});
