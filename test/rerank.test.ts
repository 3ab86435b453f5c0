// POST /v1/rerank with a plain HTTP client (fetch) on both rerank vendors of the demo: Cohere (v2, billed per search)
// and Jina (billed per token). Results ordered by relevance, top_n, return_documents, what each vendor received, and
// the money: the charge is the vendor's formula for the usage it reported (Cohere: $2 per 1,000 searches, a search one
// query with up to 100 documents, a document over 500 tokens with the query one per chunk; Jina: $0.05 per million
// tokens), computed here from those list prices, never read from the vendor files, and never above the reservation.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { loggedRecords, startStack, type Stack } from './helpers/stack.js';
import { post, assertShapeA, ledgerOf } from './helpers/api.js';

let stack: Stack;
before(async () => { stack = await startStack(); });
after(async () => { await stack.close(); });
beforeEach(() => stack.sim.control.clear());

const url = () => `${stack.url}/v1/rerank`;
const USD_PER_SEARCH = 2 / 1000;
const JINA_USD_PER_TOKEN = 0.05 / 1e6;
/** Units for USD: 1,000 a dollar, rounded up to a whole unit. */
const units = (usd: number) => Math.ceil(usd * 1000 - 1e-9);
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
/** Cohere's searches, from its pricing FAQ: chunks of 500 tokens (query + document), up to 100 a search. */
const searches = (query: string, docs: string[]) => Math.ceil(docs.reduce((n, d) => n + Math.ceil((words(query) + words(d)) / 500), 0) / 100);

// For "capital of France": all three words, two, one, none.
const QUERY = 'capital of France';
const DOCS = ['Carson City is the capital city of Nevada.', 'Paris is the capital of France.', 'France exports wine.', 'Bananas are rich in potassium.'];

/** The reservation and charge of one request, from the ledger. */
async function money(id: string, res: { headers: Headers }) {
  const [reserve, close] = await ledgerOf(stack, id, res.headers.get('x-request-id')!);
  assert.equal(reserve.kind, 'reserve');
  assert.equal(close.kind, 'settle');
  return { reserved: reserve.amount, charged: reserve.amount + close.amount, uncharged: close.uncharged ?? 0 };
}

test('Cohere: ordered by relevance, top_n, documents returned from the request; a v2 body upstream; charged 2 units a search', async () => {
  const { key, id } = await stack.token();
  const query = QUERY;
  const docs = [DOCS[0], { text: DOCS[1] }, DOCS[2], DOCS[3]];
  const r = await post(url(), { model: 'rerank-v3.5', query, documents: docs, top_n: 3, return_documents: true }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.model, 'rerank-v3.5');
  assert.equal(typeof r.json.id, 'string');
  assert.deepEqual(r.json.results.map((x: any) => x.index), [1, 0, 2], 'best first, cut to top_n');
  const scores = r.json.results.map((x: any) => x.relevance_score);
  assert.deepEqual([...scores].sort((a, b) => b - a), scores);
  assert.deepEqual(r.json.results.map((x: any) => x.document), [{ text: DOCS[1] }, { text: DOCS[0] }, { text: DOCS[2] }]);
  assert.deepEqual(r.json.meta.billed_units, { search_units: 1 });
  const sent = stack.sim.control.requests().find((q) => q.path === '/v2/rerank')!;
  assert.deepEqual(sent.body, { model: 'rerank-v3.5', query, documents: DOCS, top_n: 3 }, 'strings only, and no return_documents: v2 has none');
  assert.equal(sent.headers.authorization, 'Bearer sim-key');
  const m = await money(id, r);
  assert.equal(m.charged, units(1 * USD_PER_SEARCH));
  assert.equal(m.charged, 2);
  assert.ok(m.reserved >= m.charged);

  const plain = await post(url(), { model: 'rerank-v3.5', query, documents: DOCS }, key);
  assert.equal(plain.status, 200);
  assert.equal(plain.json.results.length, 4, 'no top_n: every document');
  assert.ok(plain.json.results.every((x: any) => !('document' in x)), 'return_documents defaults to false');
});

test('Cohere: 250 documents and a long one are the searches Cohere bills, reserved before and charged what it reports', async () => {
  const { key, id } = await stack.token();
  const query = 'capital of France';
  // 249 short documents and one of 1,200 words: with the query, 3 chunks of 500; 252 chunks are 3 searches.
  const docs = [...Array.from({ length: 249 }, (_, i) => `document number ${i} about France`), 'word '.repeat(1200).trim()];
  assert.equal(searches(query, docs), 3);
  const r = await post(url(), { model: 'rerank-v3.5', query, documents: docs, top_n: 5 }, key);
  assert.equal(r.status, 200, r.text.slice(0, 300));
  assert.equal(r.json.results.length, 5);
  assert.deepEqual(r.json.meta.billed_units, { search_units: 3 });
  const m = await money(id, r);
  assert.equal(m.charged, units(3 * USD_PER_SEARCH));
  assert.equal(m.charged, 6);
  assert.equal(m.uncharged, 0);
  assert.ok(m.reserved >= m.charged, `reserved ${m.reserved}`);
  const [rec] = await recordsOf(r.headers.get('x-request-id')!);
  assert.equal(rec.units, 3, 'the record names the searches billed');
  assert.deepEqual(rec.charge_lines, [['call', 3, 2, 6]]);
});

test('Cohere: the charge is what Cohere reports, within the reservation; more than reserved is recorded, not taken', async () => {
  const { key, id } = await stack.token();
  const usage = (u: object) => Buffer.from(JSON.stringify(u)).toString('base64url');
  const r = await post(url(), { model: 'rerank-v3.5', query: `France [sim usage=${usage({ search_units: 5 })}]`, documents: DOCS }, key);
  assert.equal(r.status, 200, r.text);
  const m = await money(id, r);
  assert.equal(m.reserved, 2, 'one search of 4 short documents');
  assert.equal(m.charged, 2, 'capped at the reservation');
  assert.equal(m.uncharged, units(5 * USD_PER_SEARCH) - 2);
});

test('Jina: ordered by relevance, top_n, return_documents as asked (false by default), charged its tokens', async () => {
  const { key, id } = await stack.token();
  const query = QUERY;
  const r = await post(url(), { model: 'jina-reranker-v2-base-multilingual', query, documents: [DOCS[0], { text: DOCS[1] }, DOCS[2], DOCS[3]], top_n: 2, return_documents: true }, key);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.model, 'jina-reranker-v2-base-multilingual');
  assert.deepEqual(r.json.results.map((x: any) => [x.index, x.document]), [[1, { text: DOCS[1] }], [0, { text: DOCS[0] }]]);
  assert.ok(r.json.results[0].relevance_score > r.json.results[1].relevance_score);
  const tokens = words(query) + DOCS.reduce((n, d) => n + words(d), 0);
  assert.deepEqual(r.json.usage, { total_tokens: tokens });
  const sent = stack.sim.control.requests().find((q) => q.path === '/v1/rerank')!;
  assert.deepEqual(sent.body, { model: 'jina-reranker-v2-base-multilingual', query, documents: DOCS, top_n: 2, return_documents: true });
  const m = await money(id, r);
  assert.equal(m.charged, units(tokens * JINA_USD_PER_TOKEN));
  assert.ok(m.reserved >= m.charged);

  const plain = await post(url(), { model: 'jina-reranker-m0', query, documents: DOCS }, key);
  assert.equal(plain.status, 200);
  assert.equal(plain.json.results.length, 4);
  assert.ok(plain.json.results.every((x: any) => !('document' in x)), 'Jina returns documents by default; the route does not');
  assert.equal((stack.sim.control.requests().at(-1)!.body as any).return_documents, false);
});

test('Jina: a large request is charged its tokens at $0.05 per million, within the reservation', async () => {
  const { key, id } = await stack.token();
  const docs = Array.from({ length: 100 }, (_, i) => `pad${i % 10} ${'pad '.repeat(999).trim()}`);
  const r = await post(url(), { model: 'jina-reranker-v3', query: 'pad', documents: docs, top_n: 1 }, key);
  assert.equal(r.status, 200, r.text.slice(0, 300));
  const tokens = 1 + 100 * 1000;
  assert.equal(r.json.usage.total_tokens, tokens);
  const m = await money(id, r);
  assert.equal(m.charged, units(tokens * JINA_USD_PER_TOKEN));
  assert.equal(m.charged, 6);
  assert.equal(m.uncharged, 0);
  assert.ok(m.reserved >= m.charged, `reserved ${m.reserved}`);
});

test('invalid bodies are 400 naming the field, before anything is reserved or sent; other models are not rerank models', async () => {
  const { key, id } = await stack.token();
  const before = (await stack.balance(id))!;
  const ok = { model: 'rerank-v3.5', query: 'q', documents: ['a'] };
  const cases: [unknown, string][] = [
    [{ ...ok, model: undefined }, 'model'],
    [{ ...ok, query: undefined }, 'query'],
    [{ ...ok, query: '' }, 'query'],
    [{ ...ok, documents: undefined }, 'documents'],
    [{ ...ok, documents: [] }, 'documents'],
    [{ ...ok, documents: 'a' }, 'documents'],
    [{ ...ok, documents: [1] }, 'documents'],
    [{ ...ok, documents: [{ txt: 'a' }] }, 'documents'],
    [{ ...ok, top_n: 0 }, 'top_n'],
    [{ ...ok, top_n: 1.5 }, 'top_n'],
    [{ ...ok, return_documents: 'yes' }, 'return_documents'],
    [{ ...ok, rank_fields: ['x'] }, 'rank_fields'],
  ];
  for (const [body, field] of cases) assertShapeA(await post(url(), body, key), 400, 'invalid_request', 'invalid_request_error', field);
  assertShapeA(await post(url(), { ...ok, model: 'gpt-4o-mini' }, key), 404, 'model_not_found', 'invalid_request_error');
  assertShapeA(await post(`${stack.url}/v1/embeddings`, { model: 'rerank-v3.5', input: 'a' }, key), 404, 'model_not_found', 'invalid_request_error');
  assert.equal(await stack.balance(id), before, 'nothing reserved or charged');
  assert.equal(stack.sim.control.requests().length, 0, 'nothing reached a vendor');
});

test('a vendor error is relayed in the contract\'s shape and refunded; a broken answer too', async () => {
  const { key, id } = await stack.token();
  const before = (await stack.balance(id))!;
  for (const model of ['rerank-v3.5', 'jina-reranker-m0']) {
    assertShapeA(await post(url(), { model, query: 'q [sim status=500]', documents: ['a'] }, key), 502, 'upstream_error', 'platform_api_error');
    assertShapeA(await post(url(), { model, query: 'q [sim malformed=1]', documents: ['a'] }, key), 502, 'bad_response_body', 'platform_api_error');
  }
  assert.equal(await stack.balance(id), before);
});

const recordsOf = (requestId: string) => loggedRecords(stack, requestId);
