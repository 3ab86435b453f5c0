// OpenAI Embeddings: `POST /v1/embeddings` with deterministic unit vectors (SHA-256 of the input), float or base64 encoded.
import { createHash } from 'node:crypto';
import { directedFailure } from './openai-status.js';
import { intDirective, parseDirectives } from './directives.js';
import { type Ctx, type Route, errorBody, openaiAuthorized, sendJson, sleep } from './http.js';
import { overriddenUsage, usageDirective } from './usage-directive.js';

/** Small on purpose: the real 1536/3072 would bloat every test body. `dimensions` overrides. */
export const DEFAULT_DIMENSIONS = 8;
export const TEXT_EMBEDDING_3_DIMENSIONS = 16;
const MAX_INPUTS = 2048;
const INVALID_INPUT = "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.";
/** Largest `dimensions` per model (the real output sizes); other models, the simulator's own cap. */
const MAX_DIMENSIONS: [RegExp, number][] = [[/^text-embedding-3-small/, 1536], [/^text-embedding-3-large/, 3072], [/./, 4096]];

interface Problem {
  status: number;
  message: string;
  param: string | null;
  code: string | null;
}

/** One input: text (tokens = whitespace words) or a token array (tokens = its length). */
type Item = { text: string } | { tokens: number[] };

function bad(message: string, param: string | null, code: string | null, status = 400): Problem {
  return { status, message, param, code };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isTokens = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((t) => Number.isInteger(t) && t >= 0);

/** string | string[] | number[] | number[][], none empty; undefined = invalid. */
function itemsOf(input: unknown): Item[] | undefined {
  if (typeof input === 'string') return input === '' ? undefined : [{ text: input }];
  if (!Array.isArray(input) || input.length === 0) return undefined;
  if (input.every((s) => typeof s === 'string')) return input.every((s) => s !== '') ? input.map((text: string) => ({ text })) : undefined;
  if (isTokens(input)) return [{ tokens: input }];
  return input.every(isTokens) ? input.map((tokens: number[]) => ({ tokens })) : undefined;
}

function defaultDimensions(model: string): number {
  return model.startsWith('text-embedding-3-') ? TEXT_EMBEDDING_3_DIMENSIONS : DEFAULT_DIMENSIONS;
}

function validate(body: unknown): Problem | { model: string; items: Item[]; base64: boolean; dimensions: number } {
  if (!isObject(body)) return bad('Invalid type for request body: expected an object.', null, 'invalid_type');
  if (typeof body.model !== 'string' || body.model === '') return bad('you must provide a model parameter', 'model', null);
  if (body.input === undefined) return bad("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  if (Array.isArray(body.input) && body.input.length > MAX_INPUTS) {
    return bad(`Invalid 'input': array too long. Expected an array with maximum length ${MAX_INPUTS}, but got an array with length ${body.input.length} instead.`, 'input', 'array_above_max_length');
  }
  const items = itemsOf(body.input);
  if (!items) return bad(INVALID_INPUT, null, null);
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64') return bad(`Invalid value: '${String(format)}'. Supported values are: 'float' and 'base64'.`, 'encoding_format', 'invalid_value');
  const model = body.model;
  let dimensions = defaultDimensions(model);
  if (body.dimensions !== undefined) {
    const d = body.dimensions;
    if (typeof d !== 'number' || !Number.isInteger(d)) return bad(`Invalid type for 'dimensions': expected an integer, but got ${typeof d} instead.`, 'dimensions', 'invalid_type');
    if (model.startsWith('text-embedding-ada-002')) return bad('This model does not support specifying dimensions.', null, null);
    if (d < 1) return bad(`Invalid 'dimensions': integer below minimum value. Expected a value >= 1, but got ${d} instead.`, 'dimensions', 'integer_below_min_value');
    const max = MAX_DIMENSIONS.find(([re]) => re.test(model))![1];
    if (d > max) return bad(`Invalid 'dimensions': integer above maximum value. Expected a value <= ${max}, but got ${d} instead.`, 'dimensions', 'integer_above_max_value');
    dimensions = d;
  }
  if (model.startsWith('missing-')) return bad(`The model \`${model}\` does not exist or you do not have access to it.`, null, 'model_not_found', 404);
  return { model, items, base64: format === 'base64', dimensions };
}

/**
 * Deterministic unit vector: SHA-256 blocks of `<block>:<seed>` give the raw components, then the whole is normalised.
 * The raw components do not depend on the length, so a shorter `dimensions` is the longer vector's prefix renormalised
 * (as with text-embedding-3 shortening). Values are float32 so `float` and `base64` answers carry the same numbers.
 */
export function embeddingVector(seed: string, dimensions: number): number[] {
  const raw: number[] = [];
  for (let block = 0; raw.length < dimensions; block++) {
    const h = createHash('sha256').update(`${block}:${seed}`).digest();
    for (let i = 0; i + 4 <= h.length && raw.length < dimensions; i += 4) raw.push((h.readUInt32BE(i) / 0xffffffff) * 2 - 1);
  }
  const norm = Math.sqrt(raw.reduce((s, v) => s + v * v, 0)) || 1;
  return raw.map((v) => Math.fround(v / norm));
}

/** The seed of an input: its text, or `tokens:<t1,t2,…>` for a token array. */
export function embeddingSeed(item: Item): string {
  return 'text' in item ? item.text : `tokens:${item.tokens.join(',')}`;
}

/** base64 of the float32 little-endian bytes, as the API sends with `encoding_format: "base64"`. */
export function float32Base64(vector: number[]): string {
  const buf = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => buf.writeFloatLE(v, i * 4));
  return buf.toString('base64');
}

async function handle(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  let body: unknown;
  try {
    body = JSON.parse(ctx.raw);
  } catch {
    return sendJson(ctx.res, 400, errorBody(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
      'invalid_request_error', null, null,
    ));
  }
  const v = validate(body);
  if ('status' in v) return sendJson(ctx.res, v.status, errorBody(v.message, 'invalid_request_error', v.param, v.code));
  const d = parseDirectives(v.items.map((it) => ('text' in it ? it.text : '')).join(' '));
  if (!(await sleep(intDirective(d, 'first_byte_ms', 0), ctx.signal))) return;
  if (directedFailure(ctx, d)) return;
  const data = v.items.map((item, index) => {
    const vector = embeddingVector(embeddingSeed(item), v.dimensions);
    return { object: 'embedding', index, embedding: v.base64 ? float32Base64(vector) : vector };
  });
  const tokens = v.items.reduce((n, it) => n + ('text' in it ? it.text.split(/\s+/).filter(Boolean).length : it.tokens.length), 0);
  // `[sim usage=B64]` merged in; total_tokens follows prompt_tokens (embeddings have no output) unless it is set too.
  const usage = overriddenUsage({ prompt_tokens: tokens, total_tokens: tokens }, usageDirective(d), { key: 'total_tokens', parts: ['prompt_tokens'] });
  sendJson(ctx.res, 200, { object: 'list', data, model: v.model, usage });
}

export const openaiEmbeddings: Route = { method: 'POST', path: '/v1/embeddings', handle };
