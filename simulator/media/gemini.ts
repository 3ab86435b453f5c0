// Gemini generateContent: x-goog-api-key or ?key= auth, contents[].parts[] (text/inlineData), imageConfig → an inline PNG of
// the documented size. Chat models (gemini-chat.ts) are answered there.
import { intDirective } from '../directives.js';
import { usageDirective } from '../usage-directive.js';
import { type Ctx, randomId, sendJson, sleep } from '../http.js';
import { type Json, isObject, parseJson, pathParams, planFrom, route, submitFailure } from '../video/common.js';
import { geminiAuthorized as authorized, geminiError, geminiFail as fail } from './gemini-common.js';
import { GEMINI_CHAT_MODELS, finalGeminiUsage, generateChat, geminiChatRoutes } from './gemini-chat.js';
import { GEMINI_TTS_MODELS, generateTts, geminiTtsRoutes, isTtsModel } from './gemini-tts.js';

export { geminiError, googleKey } from './gemini-common.js';
import { pngBytes } from './png.js';
import { mediaStoreOf } from './store.js';

const PATH = /^\/v1beta\/models\/([^/:]+):generateContent$/;
const RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];
/** Output sizes per aspect ratio at 1K: Gemini 2.5 Flash Image, and the Gemini 3 image models (2K/4K are ×2/×4). */
const FLASH_1K: Record<string, [number, number]> = {
  '1:1': [1024, 1024], '2:3': [832, 1248], '3:2': [1248, 832], '3:4': [864, 1184], '4:3': [1184, 864],
  '4:5': [896, 1152], '5:4': [1152, 896], '9:16': [768, 1344], '16:9': [1344, 768], '21:9': [1536, 672],
};
const PRO_1K: Record<string, [number, number]> = {
  '1:1': [1024, 1024], '2:3': [848, 1264], '3:2': [1264, 848], '3:4': [896, 1200], '4:3': [1200, 896],
  '4:5': [928, 1152], '5:4': [1152, 928], '9:16': [768, 1376], '16:9': [1376, 768], '21:9': [1584, 672],
};
const SCALE: Record<string, number> = { '1K': 1, '2K': 2, '4K': 4 };
const isImageModel = (model: string): boolean => model.includes('image');
/** Gemini 3 image models render 1K/2K/4K; Gemini 2.5 Flash Image only 1K. */
const sizesFor = (model: string): string[] => (/^gemini-3/.test(model) ? ['1K', '2K', '4K'] : ['1K']);

/** Output tokens per image, as Google documents them: 3 Pro Image 1120 (1K/2K) or 2000 (4K), 3.1 Flash Image 1120/1680/2520, 2.5 Flash Image 1290. */
function imageTokensFor(model: string, size: string): number {
  if (/^gemini-3\.1-flash/.test(model)) return { '1K': 1120, '2K': 1680, '4K': 2520 }[size] ?? 1120;
  if (/^gemini-3/.test(model)) return size === '4K' ? 2000 : 1120;
  return 1290;
}

interface Scan { texts: string[]; images: string[]; problem?: string }

/** Collects text and inline images; REST accepts both `inlineData` and `inline_data`. */
function scan(contents: unknown[]): Scan {
  const out: Scan = { texts: [], images: [] };
  for (const [i, c] of contents.entries()) {
    const parts = isObject(c) && Array.isArray(c.parts) ? c.parts : undefined;
    if (!parts || parts.length === 0) return { ...out, problem: `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n` };
    for (const [j, p] of parts.entries()) {
      const inline = isObject(p) ? (p.inlineData ?? p.inline_data) : undefined;
      if (isObject(p) && typeof p.text === 'string') out.texts.push(p.text);
      else if (isObject(inline) && typeof inline.data === 'string' && typeof (inline.mimeType ?? inline.mime_type) === 'string') out.images.push(String(inline.mimeType ?? inline.mime_type));
      else if (!(isObject(p) && (p.fileData || p.file_data || p.functionCall || p.functionResponse))) {
        return { ...out, problem: `* GenerateContentRequest.contents[${i}].parts[${j}].data: required oneof field 'data' must have one initialized field\n` };
      }
    }
  }
  return out;
}

async function generate(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const [model] = pathParams(ctx, PATH);
  const body = parseJson(ctx.raw);
  if (!body) return fail(ctx, 400, 'Invalid JSON payload received. Unexpected token.');
  if (isTtsModel(model)) return generateTts(ctx, model, body);
  if (!isImageModel(model)) return generateChat(ctx, model, body);
  const gen = isObject(body.generationConfig) ? body.generationConfig : {};
  const imageConfig = isObject(gen.imageConfig) ? gen.imageConfig : undefined;
  const contents = Array.isArray(body.contents) ? body.contents : [];
  const s = scan(contents);
  mediaStoreOf(ctx.control).images.push({
    vendor: 'gemini', path: ctx.path, model, prompt: s.texts.join(' '), imageConfig: imageConfig ?? null, responseModalities: gen.responseModalities ?? null,
    images: s.images.length, imageTypes: s.images, keyVia: typeof ctx.req.headers['x-goog-api-key'] === 'string' ? 'header' : 'query', at: Date.now(),
  });
  if (contents.length === 0) return fail(ctx, 400, '* GenerateContentRequest.contents: contents is not specified\n');
  if (s.problem) return fail(ctx, 400, s.problem);
  if (model.startsWith('missing-')) {
    return fail(ctx, 404, `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`);
  }
  const plan = planFrom(s.texts.join(' '));
  if (submitFailure(ctx, plan, geminiError)) return;
  const ratio = String(imageConfig?.aspectRatio ?? '1:1');
  const size = String(imageConfig?.imageSize ?? '1K');
  if (isImageModel(model) && !RATIOS.includes(ratio)) return fail(ctx, 400, `Unsupported aspect ratio: ${ratio}. Supported values are: ${RATIOS.join(', ')}.`);
  if (isImageModel(model) && !sizesFor(model).includes(size)) return fail(ctx, 400, `Unsupported image size: ${size}. Model ${model} supports: ${sizesFor(model).join(', ')}.`);
  if (!(await sleep(intDirective(plan.directives, 'first_byte_ms', 0), ctx.signal))) return;
  const answer = reply(model, gen, ratio, size, s, plan.directives.finish_reason);
  // `[sim usage=B64]`, as on the chat models: merged over the usageMetadata (arrays given replace the simulator's).
  sendJson(ctx.res, 200, { ...answer, usageMetadata: finalGeminiUsage(answer.usageMetadata as Json, usageDirective(plan.directives)) });
}

function reply(model: string, gen: Json, ratio: string, size: string, s: Scan, finishReason = 'STOP'): Json {
  const responseId = randomId('', 22);
  const promptText = s.texts.join(' ').split(/\s+/).filter(Boolean).length;
  const promptTokens = promptText + 258 * s.images.length;
  const promptDetails = [{ modality: 'TEXT', tokenCount: promptText }, ...(s.images.length ? [{ modality: 'IMAGE', tokenCount: 258 * s.images.length }] : [])];
  const base = { modelVersion: model, responseId };
  // Blocked output (SAFETY, IMAGE_SAFETY, PROHIBITED_CONTENT, …): a candidate with no content, as Gemini sends it.
  if (finishReason !== 'STOP') {
    return { candidates: [{ finishReason, index: 0 }], usageMetadata: { promptTokenCount: promptTokens, totalTokenCount: promptTokens, promptTokensDetails: promptDetails }, ...base };
  }
  const modalities = Array.isArray(gen.responseModalities) ? gen.responseModalities.map(String) : undefined;
  const withImage = isImageModel(model) && (!modalities || modalities.includes('IMAGE'));
  const withText = !modalities || modalities.includes('TEXT') || !withImage;
  const text = withImage ? 'Here is the generated image.' : 'This is a simulated reply.';
  const parts: Json[] = withText ? [{ text }] : [];
  let imageTokens = 0;
  if (withImage) {
    const [w, h] = (/^gemini-3/.test(model) ? PRO_1K : FLASH_1K)[ratio].map((v) => v * SCALE[size]);
    parts.push({ inlineData: { mimeType: 'image/png', data: pngBytes(w, h, responseId).toString('base64') } });
    imageTokens = imageTokensFor(model, size);
  }
  const textTokens = withText ? text.split(/\s+/).length : 0;
  const candidateDetails = [...(textTokens ? [{ modality: 'TEXT', tokenCount: textTokens }] : []), ...(imageTokens ? [{ modality: 'IMAGE', tokenCount: imageTokens }] : [])];
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: promptTokens, candidatesTokenCount: textTokens + imageTokens, totalTokenCount: promptTokens + textTokens + imageTokens,
      promptTokensDetails: promptDetails, candidatesTokensDetails: candidateDetails,
    },
    ...base,
  };
}

/** The models `GET /v1beta/models` lists: the chat models (gemini-chat.ts) and the image models this file renders. */
const LISTED: [string, string, number, number][] = [
  ...GEMINI_CHAT_MODELS,
  ['gemini-2.5-flash-image', 'Nano Banana', 32768, 32768],
  ['gemini-3-pro-image-preview', 'Nano Banana Pro', 65536, 32768],
  ['gemini-3.1-flash-image-preview', 'Nano Banana 2', 131072, 32768],
  ...GEMINI_TTS_MODELS.map((id): [string, string, number, number] => [id, `${id} (text to speech)`, 8192, 16384]),
];

/**
 * `GET /v1beta/models` (ListModels): `pageSize` (default 50, at most 1000) and `pageToken` (the `nextPageToken` of the
 * page before), the key checked first as for every method.
 */
async function listModels(ctx: Ctx): Promise<void> {
  if (!authorized(ctx)) return;
  const q = new URL(ctx.req.url ?? '/', 'http://sim').searchParams;
  const size = Math.min(1000, Number(q.get('pageSize')) || 50);
  const start = q.get('pageToken') ? Number(Buffer.from(q.get('pageToken')!, 'base64url').toString()) || 0 : 0;
  const page = LISTED.slice(start, start + size).map(([id, displayName, inputTokenLimit, outputTokenLimit]) => ({
    name: `models/${id}`, version: '001', displayName, description: `${displayName} (simulated)`, inputTokenLimit, outputTokenLimit,
    supportedGenerationMethods: ['generateContent', 'countTokens'],
  }));
  const next = start + size < LISTED.length ? { nextPageToken: Buffer.from(String(start + size)).toString('base64url') } : {};
  sendJson(ctx.res, 200, { models: page, ...next });
}

// TTS streams first: their path matches the chat stream's pattern too.
export const geminiRoutes = [route('POST', PATH, generate), route('GET', '/v1beta/models', listModels), ...geminiTtsRoutes, ...geminiChatRoutes];
