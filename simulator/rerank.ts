// Rerank: Cohere's `POST /v2/rerank` and Jina's `POST /v1/rerank`, scored deterministically (the query's words found in
// each document, ties by a hash), billed as each vendor documents it: Cohere in search units (a query with up to 100
// documents, a document of more than 500 tokens with the query counting once per chunk of 500), Jina in tokens.
import { createHash } from 'node:crypto';
import { type Directives, flagDirective, intDirective, parseDirectives } from './directives.js';
import { type Ctx, type Route, bearerKey, randomId, sendJson, sleep } from './http.js';
import { deepMerge, usageDirective } from './usage-directive.js';

/** Cohere's chunking: 500 tokens with the query, each chunk a document of a search of up to 100. */
export const COHERE_CHUNK_TOKENS = 500;
export const COHERE_DOCS_PER_SEARCH = 100;
const COHERE_MAX_DOCS = 10_000;
const COHERE_MAX_TOKENS_PER_DOC = 4096;
const JINA_MAX_DOCS = 2048;

/** Tokens as the simulators count them everywhere: whitespace-separated words. */
export const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** A document's text, string or `{text}`; undefined when neither. */
const textOf = (d: unknown): string | undefined =>
  typeof d === 'string' ? d : d && typeof d === 'object' && typeof (d as { text?: unknown }).text === 'string' ? (d as { text: string }).text : undefined;

/**
 * The relevance of a document to a query: the share of the query's words it contains (case-insensitive), plus a
 * hash-derived tie-break below 0.01, kept within (0, 1).
 */
export function relevance(query: string, doc: string): number {
  const q = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const d = new Set(doc.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const hits = q.filter((w) => d.has(w)).length;
  const tie = createHash('sha256').update(`${query}\u0000${doc}`).digest().readUInt32BE(0) / 0xffffffff;
  return Number((0.001 + (q.length ? (hits / q.length) * 0.98 : 0) + tie * 0.009).toFixed(8));
}

/** Indices by relevance, best first (equal scores keep their order), cut to `topN`. */
export function ranked(query: string, docs: string[], topN: number | undefined): { index: number; relevance_score: number }[] {
  const scored = docs.map((d, index) => ({ index, relevance_score: relevance(query, d) }));
  scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  return topN === undefined ? scored : scored.slice(0, topN);
}

/** Cohere's search units: chunks (query + document, the document cut at max_tokens_per_doc) over 100, rounded up. */
export function cohereSearchUnits(query: string, docs: string[], maxTokensPerDoc = COHERE_MAX_TOKENS_PER_DOC): number {
  const q = words(query);
  const chunks = docs.reduce((n, d) => n + Math.max(1, Math.ceil((q + Math.min(words(d), maxTokensPerDoc)) / COHERE_CHUNK_TOKENS)), 0);
  return Math.ceil(chunks / COHERE_DOCS_PER_SEARCH);
}

/** Jina's tokens: the query's and every document's. */
export const jinaTokens = (query: string, docs: string[]) => words(query) + docs.reduce((n, d) => n + words(d), 0);

type Parsed = { query: string; docs: string[]; topN?: number; d: Directives; body: Record<string, unknown> };

/** The common checks; a string is the vendor's error message (400), with the field it names. */
function parse(raw: string, maxDocs: number): Parsed | { message: string } {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { message: 'invalid request: the body is not valid JSON' };
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { message: 'invalid request: the body must be a JSON object' };
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || !b.model) return { message: 'invalid request: model must be a non-empty string' };
  if (typeof b.query !== 'string' || !b.query.trim()) return { message: 'invalid request: query must be a non-empty string' };
  if (!Array.isArray(b.documents) || b.documents.length === 0) return { message: 'invalid request: documents must be a non-empty list' };
  if (b.documents.length > maxDocs) return { message: `invalid request: documents may hold at most ${maxDocs} items, got ${b.documents.length}` };
  const docs = b.documents.map(textOf);
  const bad = docs.findIndex((t) => t === undefined);
  if (bad >= 0) return { message: `invalid request: documents[${bad}] must be a string or an object with a text field` };
  const topN = b.top_n;
  if (topN !== undefined && (typeof topN !== 'number' || !Number.isInteger(topN) || topN < 1)) return { message: 'invalid request: top_n must be an integer of at least 1' };
  if (b.model.startsWith('missing-')) return { message: `model '${b.model}' not found` };
  return { query: b.query, docs: docs as string[], topN: topN as number | undefined, d: parseDirectives(b.query), body: b };
}

/** The directives every rerank vendor obeys before answering: delay, a dropped connection, a status, a broken body. */
async function directed(ctx: Ctx, d: Directives, error: (status: number) => unknown): Promise<boolean> {
  if (!(await sleep(intDirective(d, 'first_byte_ms', 0), ctx.signal))) return true;
  const status = intDirective(d, 'status');
  if (status === 0) {
    ctx.req.socket.destroy();
    return true;
  }
  if (status !== undefined && status >= 400 && status <= 599) {
    sendJson(ctx.res, status, error(status), status === 429 ? { 'retry-after': '1' } : {});
    return true;
  }
  if (flagDirective(d, 'malformed')) {
    ctx.res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "broken');
    return true;
  }
  return false;
}

// ---- Cohere v2 ---------------------------------------------------------------------------------------------------
const cohereError = (status: number, message?: string) => ({
  id: randomUUID(),
  message: message ?? (status === 429 ? 'You are using a Trial key, which is limited to 10 API calls / minute. You can continue to use the Trial key for free or upgrade to a Production key with higher rate limits at \'https://dashboard.cohere.com/api-keys\'.'
    : status === 401 ? 'invalid api token' : status >= 500 ? 'internal server error, this has been reported to our developers' : `simulated error (HTTP ${status})`),
});

const randomUUID = () => {
  const h = randomId('', 32).toLowerCase().replace(/[^0-9a-f]/g, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

async function cohere(ctx: Ctx): Promise<void> {
  const key = bearerKey(ctx.req);
  if (key === undefined || !ctx.keys.has(key)) return sendJson(ctx.res, 401, cohereError(401, key === undefined ? 'no api key supplied' : 'invalid api token'));
  const p = parse(ctx.raw, COHERE_MAX_DOCS);
  if ('message' in p) return sendJson(ctx.res, p.message.includes('not found') ? 404 : 400, cohereError(400, p.message));
  // v2 took documents as strings only and dropped return_documents; rank_fields and max_chunks_per_doc are v1's.
  if (p.body.documents && (p.body.documents as unknown[]).some((x) => typeof x !== 'string')) return sendJson(ctx.res, 400, cohereError(400, 'invalid request: documents must be a list of strings'));
  for (const gone of ['return_documents', 'rank_fields', 'max_chunks_per_doc']) {
    if (gone in p.body) return sendJson(ctx.res, 400, cohereError(400, `invalid request: unknown field: parameter ${gone} is not a valid field`));
  }
  const maxTokens = p.body.max_tokens_per_doc === undefined ? COHERE_MAX_TOKENS_PER_DOC : Number(p.body.max_tokens_per_doc);
  if (!Number.isInteger(maxTokens) || maxTokens < 1) return sendJson(ctx.res, 400, cohereError(400, 'invalid request: max_tokens_per_doc must be a positive integer'));
  if (await directed(ctx, p.d, (s) => cohereError(s))) return;
  const billed = deepMerge({ search_units: cohereSearchUnits(p.query, p.docs, maxTokens) }, usageDirective(p.d));
  sendJson(ctx.res, 200, {
    id: randomUUID(),
    results: ranked(p.query, p.docs, p.topN),
    meta: { api_version: { version: '2', is_experimental: false }, billed_units: billed },
  });
}

// ---- Jina --------------------------------------------------------------------------------------------------------
const jinaError = (status: number, detail?: string) => ({
  detail: detail ?? (status === 429 ? 'Rate limit exceeded: 500 requests per minute' : status === 401 ? 'Unauthorized: invalid API key' : status === 402 ? 'Insufficient balance' : `Simulated error (HTTP ${status})`),
});

async function jina(ctx: Ctx): Promise<void> {
  const key = bearerKey(ctx.req);
  if (key === undefined || !ctx.keys.has(key)) return sendJson(ctx.res, 401, jinaError(401));
  const p = parse(ctx.raw, JINA_MAX_DOCS);
  if ('message' in p) return sendJson(ctx.res, 422, jinaError(422, p.message));
  if (await directed(ctx, p.d, (s) => jinaError(s))) return;
  // Jina returns the documents unless asked not to.
  const withDocs = p.body.return_documents !== false;
  const results = ranked(p.query, p.docs, p.topN).map((r) => (withDocs ? { ...r, document: { text: p.docs[r.index] } } : r));
  const usage = deepMerge({ total_tokens: jinaTokens(p.query, p.docs) }, usageDirective(p.d));
  sendJson(ctx.res, 200, { model: p.body.model, usage, results });
}

export const cohereRerank: Route = { method: 'POST', path: '/v2/rerank', handle: cohere };
export const jinaRerank: Route = { method: 'POST', path: '/v1/rerank', handle: jina };
export const rerankRoutes: Route[] = [cohereRerank, jinaRerank];
