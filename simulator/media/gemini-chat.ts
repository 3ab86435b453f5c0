// Gemini chat models as Google's API serves them: generateContent (non-image models; the image file hands them here),
// streamGenerateContent (?alt=sse: SSE of GenerateContentResponse chunks; without it one JSON array), countTokens and
// GET /v1beta/models/{model}. Validation words follow Google's answers; directives as in the other chat simulators.
import { type Directives, intDirective, parseDirectives, toolArgs } from '../directives.js';
import { overriddenUsage, usageDirective } from '../usage-directive.js';
import { type Ctx, randomId, sendJson, sleep } from '../http.js';
import { playSteps, type Step } from '../stream-steps.js';
import { type Json, isObject, parseJson, pathParams, route } from '../video/common.js';
import { geminiAuthorized, geminiError, geminiFail as fail } from './gemini-common.js';
import { partsOf, signed, thinksInSignatures, validConfig, validContents, validTools, validTurns } from './gemini-chat-checks.js';

const STREAM = /^\/v1beta\/models\/([^/:]+):streamGenerateContent$/;
const COUNT = /^\/v1beta\/models\/([^/:]+):countTokens$/;
const MODEL = /^\/v1beta\/models\/([^/:]+)$/;

/** The chat models this simulator answers, with their limits as ListModels gives them. */
export const GEMINI_CHAT_MODELS: [string, string, number, number][] = [
  ['gemini-3.1-pro-preview', 'Gemini 3.1 Pro Preview', 1048576, 65536],
  ['gemini-3-flash-preview', 'Gemini 3 Flash Preview', 1048576, 65536],
  ['gemini-2.5-pro', 'Gemini 2.5 Pro', 1048576, 65536],
  ['gemini-2.5-flash', 'Gemini 2.5 Flash', 1048576, 65536],
  ['gemini-2.5-flash-lite', 'Gemini 2.5 Flash-Lite', 1048576, 65536],
];

interface Plan {
  pieces: string[];
  thought?: string;
  call?: string;
  /** The call's arguments, whole: Google sends a call in one part (the same directives as the other simulators). */
  args?: Json;
  /** Gemini 3: the call's thought signature. */
  signature?: string;
  finish: string;
  prompt: number;
  output: number;
  thoughts: number;
  /** `[sim usage=B64]`: merged over the final usageMetadata. */
  usage?: Json;
}

/** POST …:generateContent on a chat model (after the key and JSON were checked by the image handler). */
export async function generateChat(ctx: Ctx, model: string, body: Json): Promise<void> {
  const plan = await prepare(ctx, model, body);
  if (!plan) return;
  sendJson(ctx.res, 200, whole(model, plan, randomId('', 22)));
}

async function stream(ctx: Ctx): Promise<void> {
  if (!geminiAuthorized(ctx)) return;
  const [model] = pathParams(ctx, STREAM);
  const body = parseJson(ctx.raw);
  if (!body) return fail(ctx, 400, 'Invalid JSON payload received. Unexpected token.');
  const plan = await prepare(ctx, model, body);
  if (!plan) return;
  const sse = new URL(ctx.req.url ?? '/', 'http://sim').searchParams.get('alt') === 'sse';
  const d = directivesOf(body);
  const chunks = streamChunks(model, plan, randomId('', 22));
  const steps: Step[] = [];
  const frame = (c: Json, i: number) => (sse ? `data: ${JSON.stringify(c)}\r\n\r\n` : `${i === 0 ? '[' : '\r\n,'}${JSON.stringify(c)}`);
  const cutAfter = intDirective(d, 'cut_after');
  const errorAfter = intDirective(d, 'error_after');
  for (const [i, c] of chunks.entries()) {
    if (i === cutAfter) { steps.push({ cut: true }); break; }
    if (i === errorAfter) { steps.push({ data: frame({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }, i) }); break; }
    steps.push({ data: frame(c, i) });
  }
  if (!sse && !('cut' in (steps.at(-1) ?? {}))) steps.push({ data: ']' });
  await playSteps(ctx, steps, {
    contentType: sse ? 'text/event-stream' : 'application/json; charset=UTF-8', intervalMs: intDirective(d, 'interval_ms', 0),
    complete: (last) => last === ']' || last.includes('"finishReason"'),
  });
}

async function countTokens(ctx: Ctx): Promise<void> {
  if (!geminiAuthorized(ctx)) return;
  const [model] = pathParams(ctx, COUNT);
  const body = parseJson(ctx.raw);
  if (!body) return fail(ctx, 400, 'Invalid JSON payload received. Unexpected token.');
  const inner = isObject(body.generateContentRequest) ? body.generateContentRequest : body;
  if (body.contents !== undefined && body.generateContentRequest !== undefined) return fail(ctx, 400, 'contents and generateContentRequest are mutually exclusive.');
  const problem = validContents(inner.contents);
  if (problem) return fail(ctx, 400, problem);
  if (!known(model)) return notFound(ctx, model, 'countTokens');
  const tokens = promptTokens(inner);
  sendJson(ctx.res, 200, { totalTokens: tokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }] });
}

async function getModel(ctx: Ctx): Promise<void> {
  if (!geminiAuthorized(ctx)) return;
  const [model] = pathParams(ctx, MODEL);
  const m = GEMINI_CHAT_MODELS.find(([id]) => id === model);
  if (!m) return fail(ctx, 404, `models/${model} is not found for API version v1beta, or is not supported for getModel.`);
  const [id, displayName, inputTokenLimit, outputTokenLimit] = m;
  sendJson(ctx.res, 200, {
    name: `models/${id}`, version: '001', displayName, description: `${displayName} (simulated)`, inputTokenLimit, outputTokenLimit,
    supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'], temperature: 1, topP: 0.95, topK: 64, maxTemperature: 2, thinking: true,
  });
}

const known = (model: string) => GEMINI_CHAT_MODELS.some(([id]) => id === model);

function notFound(ctx: Ctx, model: string, method: string): void {
  fail(ctx, 404, `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`);
}

/** Validation, the model, directives (status, first_byte_ms): the plan, or undefined once answered. */
async function prepare(ctx: Ctx, model: string, body: Json): Promise<Plan | undefined> {
  const problem = validContents(body.contents) ?? validTurns(body.contents as Json[]) ?? validTools(body.tools) ?? validConfig(body.generationConfig)
    ?? (thinksInSignatures(model) ? signed(body.contents as Json[]) : undefined);
  if (problem) { fail(ctx, 400, problem); return undefined; }
  if (!known(model)) { notFound(ctx, model, 'generateContent'); return undefined; }
  const d = directivesOf(body);
  if (!(await sleep(intDirective(d, 'first_byte_ms', 0), ctx.signal))) return undefined;
  const status = intDirective(d, 'status');
  if (status === 0) { ctx.req.socket.destroy(); return undefined; }
  if (status !== undefined && status >= 400 && status <= 599) {
    const e = geminiError(status);
    sendJson(ctx.res, status, e.body, e.headers);
    return undefined;
  }
  return { ...plan(body, d, model), usage: usageDirective(d) };
}

/** Directives in the last user turn's text (a turn of function responses has none: the model answers in words). */
function directivesOf(body: Json): Directives {
  const contents = Array.isArray(body.contents) ? (body.contents as Json[]) : [];
  const last = [...contents].reverse().find((c) => c.role !== 'model');
  return parseDirectives(partsOf(last, 'text').map((p) => String(p.text)).join(' '));
}

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** Words of every text part (system instruction included); any other part counts one token. */
function promptTokens(body: Json): number {
  const count = (c: unknown) => (isObject(c) && Array.isArray(c.parts) ? (c.parts as Json[]).reduce((n, p) => n + (typeof p.text === 'string' ? words(p.text) : 1), 0) : 0);
  const contents = Array.isArray(body.contents) ? body.contents : [];
  return contents.reduce((n: number, c) => n + count(c), 0) + count(body.systemInstruction) + (typeof body.systemInstruction === 'string' ? words(body.systemInstruction) : 0);
}

/** The function to call: `[sim tool_call=NAME]` when declared, else what mode ANY forces (its allowed names, or the first). */
function chosenCall(body: Json, d: Directives): string | undefined {
  const names = (Array.isArray(body.tools) ? body.tools : []).flatMap((t) => (isObject(t) && Array.isArray(t.functionDeclarations) ? t.functionDeclarations : [])).map((f) => (f as Json).name as string);
  const cfg = isObject(body.toolConfig) && isObject(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : {};
  if (!names.length || cfg.mode === 'NONE') return undefined;
  if (d.tool_call && names.includes(d.tool_call)) return d.tool_call;
  if (cfg.mode === 'ANY') return Array.isArray(cfg.allowedFunctionNames) && cfg.allowedFunctionNames.length ? String(cfg.allowedFunctionNames[0]) : names[0];
  return undefined;
}

function plan(body: Json, d: Directives, model: string): Plan {
  const g = isObject(body.generationConfig) ? body.generationConfig : {};
  const prompt = promptTokens(body);
  const thinking = isObject(g.thinkingConfig) ? g.thinkingConfig : {};
  const thoughts = intDirective(d, 'thoughts', 0);
  const thought = thoughts && thinking.includeThoughts === true ? Array.from({ length: thoughts }, (_, i) => `think${i + 1}`).join(' ') : undefined;
  const call = chosenCall(body, d);
  const signature = thinksInSignatures(model) ? Buffer.from(randomId('sig-', 48)).toString('base64') : undefined;
  if (call) return { pieces: [], thought, call, args: toolArgs(d), signature, finish: 'STOP', prompt, output: 5, thoughts };
  if (d.finish_reason) return { pieces: [], thought, finish: d.finish_reason, prompt, output: 0, thoughts };
  const wanted = intDirective(d, 'chunks', 5);
  const limit = typeof g.maxOutputTokens === 'number' ? Math.min(wanted, Math.max(0, g.maxOutputTokens - thoughts)) : wanted;
  const stops = Array.isArray(g.stopSequences) ? g.stopSequences.map(String) : [];
  const pieces: string[] = [];
  for (let i = 0; i < limit; i++) {
    const piece = `tok${i + 1} `;
    const text = pieces.join('') + piece;
    const hit = stops.map((s) => text.indexOf(s)).filter((n) => n >= 0).sort((a, b) => a - b)[0];
    if (hit !== undefined) {
      const cut = text.slice(0, hit).slice(pieces.join('').length);
      return { pieces: cut ? [...pieces, cut] : pieces, thought, finish: 'STOP', prompt, output: i + 1, thoughts };
    }
    pieces.push(piece);
  }
  return { pieces, thought, finish: limit < wanted ? 'MAX_TOKENS' : 'STOP', prompt, output: limit, thoughts };
}

/** usageMetadata counting `output` words so far (zero counts left out, as Google leaves them out). */
function usage(p: Plan, output = p.output): Json {
  return {
    promptTokenCount: p.prompt, candidatesTokenCount: output, totalTokenCount: p.prompt + output + p.thoughts,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: p.prompt }], ...(p.thoughts ? { thoughtsTokenCount: p.thoughts } : {}),
  };
}

/** The final usageMetadata, `[sim usage=B64]` merged in; totalTokenCount adds up (as Google defines it) unless set. */
export function finalGeminiUsage(base: Json, over: Json | undefined): Json {
  return overriddenUsage(base, over, { key: 'totalTokenCount', parts: ['promptTokenCount', 'candidatesTokenCount', 'toolUsePromptTokenCount', 'thoughtsTokenCount'] });
}

const callPart = (p: Plan): Json => ({ functionCall: { name: p.call, args: p.args }, ...(p.signature && { thoughtSignature: p.signature }) });

function whole(model: string, p: Plan, responseId: string): Json {
  const parts: Json[] = [
    ...(p.thought ? [{ text: p.thought, thought: true }] : []),
    ...(p.call ? [callPart(p)] : p.pieces.length ? [{ text: p.pieces.join('') }] : []),
  ];
  const candidate: Json = parts.length ? { content: { parts, role: 'model' }, finishReason: p.finish, index: 0 } : { finishReason: p.finish, index: 0 };
  return { candidates: [candidate], usageMetadata: finalGeminiUsage(usage(p), p.usage), modelVersion: model, responseId };
}

/**
 * One chunk per word (thoughts first), the last with the finishReason; usageMetadata on each, counting so far, the last
 * the final figures (with `usage=` merged in: the last chunk's usage is what a stream is billed by).
 */
function streamChunks(model: string, p: Plan, responseId: string): Json[] {
  const parts: Json[] = [
    ...(p.thought ? [{ text: p.thought, thought: true }] : []),
    ...(p.call ? [callPart(p)] : p.pieces.map((text) => ({ text }))),
  ];
  if (!parts.length) return [{ candidates: [{ finishReason: p.finish, index: 0 }], usageMetadata: finalGeminiUsage(usage(p), p.usage), modelVersion: model, responseId }];
  const firstText = p.thought ? 1 : 0;
  return parts.map((part, i) => {
    const last = i === parts.length - 1;
    const sofar = last ? p.output : Math.max(0, i - firstText + 1);
    return {
      candidates: [{ content: { parts: [part], role: 'model' }, ...(last && { finishReason: p.finish }), index: 0 }],
      usageMetadata: last ? finalGeminiUsage(usage(p), p.usage) : usage(p, sofar), modelVersion: model, responseId,
    };
  });
}

export const geminiChatRoutes = [route('POST', STREAM, stream), route('POST', COUNT, countTokens), route('GET', MODEL, getModel)];
