// OpenAI Moderations: `POST /v1/moderations` with a string, an array of strings, or (omni models) an array of text and
// image_url parts. One result per string, or one for the whole multimodal array, as OpenAI answers. Nothing is
// flagged unless `[sim flag=CATEGORY,…]` says so; scores are small and deterministic.
import { createHash } from 'node:crypto';
import { directedFailure } from './openai-status.js';
import { intDirective, parseDirectives } from './directives.js';
import { type Ctx, type Route, errorBody, openaiAuthorized, randomId, sendJson, sleep } from './http.js';

const OMNI = ['harassment', 'harassment/threatening', 'hate', 'hate/threatening', 'illicit', 'illicit/violent', 'self-harm',
  'self-harm/intent', 'self-harm/instructions', 'sexual', 'sexual/minors', 'violence', 'violence/graphic'];
const TEXT = OMNI.filter((c) => !c.startsWith('illicit'));
/** The categories omni-moderation also scores on images. */
const IMAGE = new Set(['self-harm', 'self-harm/intent', 'self-harm/instructions', 'sexual', 'violence', 'violence/graphic']);
/** What `-latest` resolves to in the answer's `model`. */
const SNAPSHOT: Record<string, string> = { 'omni-moderation-latest': 'omni-moderation-2024-09-26', 'text-moderation-latest': 'text-moderation-007' };

type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
type Input = { texts: string[]; images: number }[];

function bad(message: string, param: string | null, code: string | null) {
  return { status: 400, body: errorBody(message, 'invalid_request_error', param, code) };
}

/** The inputs as OpenAI groups them: each string alone, or all parts of a multimodal array together. */
function inputsOf(input: unknown, omni: boolean): Input | ReturnType<typeof bad> {
  if (typeof input === 'string') return [{ texts: [input], images: 0 }];
  if (!Array.isArray(input) || input.length === 0) return bad("Invalid 'input': expected a string, an array of strings, or an array of content parts.", 'input', 'invalid_type');
  if (input.every((s) => typeof s === 'string')) return input.map((s: string) => ({ texts: [s], images: 0 }));
  if (!omni) return bad('This model does not support multimodal inputs; use omni-moderation-latest.', 'input', 'invalid_value');
  const one = { texts: [] as string[], images: 0 };
  for (const [i, p] of (input as Part[]).entries()) {
    if (p && p.type === 'text' && typeof p.text === 'string') one.texts.push(p.text);
    else if (p && p.type === 'image_url' && typeof p.image_url?.url === 'string') one.images++;
    else return bad(`Invalid 'input[${i}]': expected a text part or an image_url part.`, `input[${i}]`, 'invalid_value');
  }
  if (one.images > 1) return bad('Only one image can be moderated per request.', 'input', 'invalid_value');
  return [one];
}

const score = (seed: string, category: string) => Number(((createHash('sha256').update(`${category}\u0000${seed}`).digest().readUInt32BE(0) / 0xffffffff) * 0.001).toFixed(9));

/** Each input's own `flag=` directive flags it alone. */
function result(item: Input[number], categories: string[], omni: boolean) {
  const seed = item.texts.join('\n');
  const flag = new Set((parseDirectives(item.texts.join(' ')).flag ?? '').split(',').filter(Boolean));
  const flagged = categories.filter((c) => flag.has(c));
  const out: Record<string, unknown> = {
    flagged: flagged.length > 0,
    categories: Object.fromEntries(categories.map((c) => [c, flag.has(c)])),
    category_scores: Object.fromEntries(categories.map((c) => [c, flag.has(c) ? 0.97 : score(seed, c)])),
  };
  if (omni) {
    const types = (c: string) => [...(item.texts.length ? ['text'] : []), ...(item.images && IMAGE.has(c) ? ['image'] : [])];
    out.category_applied_input_types = Object.fromEntries(categories.map((c) => [c, types(c)]));
  }
  return out;
}

async function handle(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(ctx.raw) as Record<string, unknown>;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error();
  } catch {
    return sendJson(ctx.res, 400, errorBody('We could not parse the JSON body of your request.', 'invalid_request_error', null, null));
  }
  if (body.input === undefined) return sendJson(ctx.res, 400, errorBody("Missing required parameter: 'input'.", 'invalid_request_error', 'input', 'missing_required_parameter'));
  const model = typeof body.model === 'string' ? body.model : 'omni-moderation-latest';
  if (!model.startsWith('omni-moderation') && !model.startsWith('text-moderation')) {
    return sendJson(ctx.res, 404, errorBody(`The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', null, 'model_not_found'));
  }
  const omni = model.startsWith('omni-');
  const items = inputsOf(body.input, omni);
  if ('status' in items) return sendJson(ctx.res, items.status, items.body);
  const d = parseDirectives(items.flatMap((i) => i.texts).join(' '));
  if (!(await sleep(intDirective(d, 'first_byte_ms', 0), ctx.signal))) return;
  if (directedFailure(ctx, d)) return;
  const categories = omni ? OMNI : TEXT;
  sendJson(ctx.res, 200, { id: randomId('modr-'), model: SNAPSHOT[model] ?? model, results: items.map((i) => result(i, categories, omni)) });
}

export const openaiModerations: Route = { method: 'POST', path: '/v1/moderations', handle };
