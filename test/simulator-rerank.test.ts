// Simulator: Cohere's v2 rerank, Jina's rerank and OpenAI's moderations as their docs describe them (shapes, defaults,
// what each bills, their errors), and the directives that force errors and usage.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Simulator, cohereSearchUnits, startSimulator } from '../simulator/server.js';

let sim: Simulator;
before(async () => { sim = await startSimulator({ keys: ['sim-key'] }); });
after(async () => { await sim.close(); });

async function call(path: string, body: unknown, key = 'sim-key'): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${sim.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown;
  try { parsed = JSON.parse(text); } catch { parsed = text; }
  return { status: res.status, body: parsed, headers: res.headers };
}
const usage = (u: object) => Buffer.from(JSON.stringify(u)).toString('base64url');
const DOCS = ['Carson City is the capital city of Nevada.', 'Paris is the capital of France.', 'France exports wine.'];

test('Cohere v2: {id, results: [{index, relevance_score}], meta: {api_version, billed_units: {search_units}}}, best first', async () => {
  const r = await call('/v2/rerank', { model: 'rerank-v3.5', query: 'capital of France', documents: DOCS, top_n: 2 });
  assert.equal(r.status, 200);
  assert.deepEqual(Object.keys(r.body), ['id', 'results', 'meta']);
  assert.match(r.body.id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(r.body.results.map((x: any) => Object.keys(x)), [['index', 'relevance_score'], ['index', 'relevance_score']]);
  assert.deepEqual(r.body.results.map((x: any) => x.index), [1, 0]);
  assert.deepEqual(r.body.meta, { api_version: { version: '2', is_experimental: false }, billed_units: { search_units: 1 } });
});

test('Cohere search units: 100 chunks a search, a document of more than 500 tokens with the query one chunk per 500', () => {
  const short = (n: number) => Array.from({ length: n }, () => 'a b');
  assert.equal(cohereSearchUnits('q', short(100)), 1);
  assert.equal(cohereSearchUnits('q', short(101)), 2);
  assert.equal(cohereSearchUnits('q q', [...short(98), 'w '.repeat(498)]), 1, '498 + 2 words: one chunk');
  assert.equal(cohereSearchUnits('q q', [...short(99), 'w '.repeat(499)]), 2, '501 words: two chunks, 101 in all');
  assert.equal(cohereSearchUnits('q', ['w '.repeat(10_000)], 4096), 1, 'cut at max_tokens_per_doc: 9 chunks');
});

test('Cohere errors: a key, v1\'s fields, objects as documents, a missing query, a model; directives in the query', async () => {
  assert.equal((await call('/v2/rerank', { model: 'rerank-v3.5', query: 'q', documents: ['a'] }, 'wrong')).status, 401);
  for (const body of [
    { model: 'rerank-v3.5', query: 'q', documents: ['a'], return_documents: true },
    { model: 'rerank-v3.5', query: 'q', documents: [{ text: 'a' }] },
    { model: 'rerank-v3.5', documents: ['a'] },
    { model: 'rerank-v3.5', query: 'q', documents: [] },
  ]) {
    const r = await call('/v2/rerank', body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.deepEqual(Object.keys(r.body), ['id', 'message']);
  }
  assert.equal((await call('/v2/rerank', { model: 'missing-model', query: 'q', documents: ['a'] })).status, 404);
  const limited = await call('/v2/rerank', { model: 'rerank-v3.5', query: 'q [sim status=429]', documents: ['a'] });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '1');
  assert.match(limited.body.message, /Trial key/);
  const billed = await call('/v2/rerank', { model: 'rerank-v3.5', query: `q [sim usage=${usage({ search_units: 7 })}]`, documents: ['a'] });
  assert.deepEqual(billed.body.meta.billed_units, { search_units: 7 });
});

test('Jina: {model, usage: {total_tokens}, results: [{index, relevance_score, document: {text}}]}, documents back by default', async () => {
  const r = await call('/v1/rerank', { model: 'jina-reranker-m0', query: 'capital of France', documents: [DOCS[0], { text: DOCS[1] }, DOCS[2]] });
  assert.equal(r.status, 200);
  assert.deepEqual(Object.keys(r.body), ['model', 'usage', 'results']);
  assert.deepEqual(r.body.results.map((x: any) => [x.index, x.document]), [[1, { text: DOCS[1] }], [0, { text: DOCS[0] }], [2, { text: DOCS[2] }]]);
  assert.deepEqual(r.body.usage, { total_tokens: 3 + 8 + 6 + 3 });
  const bare = await call('/v1/rerank', { model: 'jina-reranker-m0', query: 'capital', documents: DOCS, return_documents: false, top_n: 1 });
  assert.deepEqual(Object.keys(bare.body.results[0]), ['index', 'relevance_score']);
  assert.equal(bare.body.results.length, 1);
  assert.deepEqual((await call('/v1/rerank', { model: 'm', query: 'q', documents: [] })).body.detail, 'invalid request: documents must be a non-empty list');
  assert.equal((await call('/v1/rerank', { model: 'm', query: 'q', documents: [] })).status, 422);
  assert.equal((await call('/v1/rerank', { model: 'm', query: 'q', documents: ['a'] }, 'wrong')).status, 401);
  assert.equal((await call('/v1/rerank', { model: 'm', query: `q [sim usage=${usage({ total_tokens: 99 })}]`, documents: ['a'] })).body.usage.total_tokens, 99);
  const broken = await fetch(`${sim.url}/v1/rerank`, { method: 'POST', headers: { authorization: 'Bearer sim-key' }, body: JSON.stringify({ model: 'm', query: 'q [sim malformed=1]', documents: ['a'] }) });
  assert.equal(await broken.text(), '{"id": "broken');
});

test('OpenAI moderations: one result per string, one for omni\'s parts; text-moderation\'s categories; errors', async () => {
  const r = await call('/v1/moderations', { input: ['fine', 'not fine [sim flag=hate]'] });
  assert.equal(r.status, 200);
  assert.deepEqual(Object.keys(r.body), ['id', 'model', 'results']);
  assert.equal(r.body.model, 'omni-moderation-2024-09-26');
  assert.deepEqual(r.body.results.map((x: any) => Object.keys(x)), Array(2).fill(['flagged', 'categories', 'category_scores', 'category_applied_input_types']));
  assert.deepEqual(r.body.results.map((x: any) => [x.flagged, x.categories.hate]), [[false, false], [true, true]]);
  assert.equal(Object.keys(r.body.results[0].categories).length, 13);
  const text = await call('/v1/moderations', { model: 'text-moderation-latest', input: 'x' });
  assert.equal(text.body.model, 'text-moderation-007');
  assert.equal(Object.keys(text.body.results[0].categories).length, 11);
  assert.ok(!('category_applied_input_types' in text.body.results[0]));
  const parts = [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }];
  const omni = await call('/v1/moderations', { model: 'omni-moderation-latest', input: parts });
  assert.equal(omni.body.results.length, 1);
  assert.deepEqual(omni.body.results[0].category_applied_input_types.sexual, ['text', 'image']);
  assert.deepEqual(omni.body.results[0].category_applied_input_types['sexual/minors'], ['text']);
  assert.equal((await call('/v1/moderations', { model: 'text-moderation-latest', input: parts })).body.error.code, 'invalid_value');
  assert.equal((await call('/v1/moderations', {})).body.error.param, 'input');
  assert.equal((await call('/v1/moderations', { model: 'gpt-4o', input: 'x' })).status, 404);
  assert.equal((await call('/v1/moderations', { input: 'x [sim status=503]' })).status, 503);
  assert.equal((await call('/v1/moderations', { input: 'x' }, 'wrong-key-0123456789')).body.error.code, 'invalid_api_key');
});
