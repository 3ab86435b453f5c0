// OpenAI Images: JSON generations and multipart edits, per-model size/n/quality rules, url or b64_json (real PNGs), gpt-image usage.
import { intDirective } from '../directives.js';
import { overriddenUsage, usageDirective } from '../usage-directive.js';
import { type Ctx, errorBody, openaiAuthorized, sendJson, sleep, statusError } from '../http.js';
import { type Json, parseJson, planFrom, route, submitFailure, unixSeconds } from '../video/common.js';
import { rawBodyOf } from '../video/raw-body.js';
import { uuid } from '../video/task-store.js';
import { addFile, baseOf, mediaUrl } from './files.js';
import { pngBytes, pngDimensions } from './png.js';
import { mediaStoreOf } from './store.js';

interface ModelSpec { sizes: string[] | 'any' | 'flexible'; maxN: number; b64Only: boolean; edits: boolean; promptMax: number; qualities?: string[]; maxImages: number; mime: string[] }
type Problem = [message: string, param: string | null, code: string | null];

const ALL_MIME = ['image/png', 'image/jpeg', 'image/webp'];
const GPT_IMAGE: ModelSpec = {
  sizes: ['1024x1024', '1536x1024', '1024x1536', 'auto'], maxN: 10, b64Only: true, edits: true, promptMax: 32000,
  qualities: ['low', 'medium', 'high', 'auto'], maxImages: 16, mime: ALL_MIME,
};
/** gpt-image-2 and later: any <w>x<h> with sides in multiples of 16, a ratio within 1:3..3:1 and at most 4K's pixel count. */
const GPT_IMAGE_2: ModelSpec = { ...GPT_IMAGE, sizes: 'flexible', qualities: ['low', 'medium', 'high', 'xhigh', 'max', 'auto'] };
const MAX_PIXELS = 3840 * 2160;
const MODELS: Record<string, ModelSpec> = {
  'dall-e-2': { sizes: ['256x256', '512x512', '1024x1024'], maxN: 10, b64Only: false, edits: true, promptMax: 1000, qualities: ['standard'], maxImages: 1, mime: ['image/png'] },
  'dall-e-3': { sizes: ['1024x1024', '1792x1024', '1024x1792'], maxN: 1, b64Only: false, edits: false, promptMax: 4000, qualities: ['standard', 'hd'], maxImages: 0, mime: [] },
  'gpt-image-1': GPT_IMAGE, 'gpt-image-1-mini': GPT_IMAGE, 'gpt-image-1.5': GPT_IMAGE,
  // A permissive OpenAI-compatible reseller model: any <w>x<h>, and reference images via `image` on generations too.
  'img-any': { sizes: 'any', maxN: 10, b64Only: false, edits: true, promptMax: 32000, maxImages: 16, mime: ALL_MIME },
};
/**
 * gpt-image output tokens per image, by quality, for square and for 3:2/2:3 sizes (OpenAI's pricing table). xhigh and
 * max (gpt-image-2.5 on) and custom sizes are the simulator's extrapolation: 1.5× and 2× high, scaled by pixel count.
 */
const OUTPUT_TOKENS: Record<string, [number, number]> = {
  low: [272, 408], medium: [1056, 1584], high: [4160, 6240], xhigh: [6240, 9360], max: [8320, 12480],
};
const STANDARD = ['1024x1024', '1536x1024', '1024x1536'];
const URL_TTL_MS = 60 * 60 * 1000; // OpenAI's image URLs last an hour

const specOf = (model: string): ModelSpec | undefined =>
  MODELS[model] ?? (model.startsWith('gpt-image-2') ? GPT_IMAGE_2 : model.startsWith('gpt-image-') ? GPT_IMAGE : undefined);

function flexibleSize(size: string): boolean {
  const m = /^(\d{2,5})x(\d{2,5})$/.exec(size);
  if (!m) return size === 'auto';
  const [w, h] = [Number(m[1]), Number(m[2])];
  return w % 16 === 0 && h % 16 === 0 && Math.max(w, h) <= 3 * Math.min(w, h) && w * h <= MAX_PIXELS;
}

function outputTokens(quality: string, width: number, height: number): number {
  const [square, oblong] = OUTPUT_TOKENS[quality];
  if (STANDARD.includes(`${width}x${height}`)) return width === height ? square : oblong;
  return Math.round((square * width * height) / (1024 * 1024));
}
const list = (v: string[]): string => v.map((x) => `'${x}'`).join(', ');

function invalid(ctx: Ctx, [message, param, code]: Problem, status = 400): void {
  sendJson(ctx.res, status, errorBody(message, 'invalid_request_error', param, code));
}


interface Fields { model: string; prompt: unknown; n: unknown; size: unknown; quality: unknown; response_format: unknown; background: unknown; output_format: unknown }

function fieldProblem(f: Fields, spec: ModelSpec): Problem | undefined {
  if (typeof f.prompt !== 'string' || f.prompt === '') return ["Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter'];
  if (f.prompt.length > spec.promptMax) {
    return [`Invalid 'prompt': string too long. Expected a string with maximum length ${spec.promptMax}, but got a string with length ${f.prompt.length} instead.`, 'prompt', 'string_above_max_length'];
  }
  const n = f.n === undefined ? 1 : Number(f.n);
  if (!Number.isInteger(n) || n < 1) return [`Invalid 'n': integer below minimum value. Expected a value >= 1, but got ${String(f.n)} instead.`, 'n', 'integer_below_min_value'];
  if (n > spec.maxN) return [`Invalid 'n': integer above maximum value. Expected a value <= ${spec.maxN}, but got ${n} instead.`, 'n', 'integer_above_max_value'];
  const size = f.size === undefined ? undefined : String(f.size);
  if (size !== undefined && spec.sizes === 'flexible' && !flexibleSize(size)) {
    return [`Invalid value: '${size}'. Supported values are: 'auto' or '<width>x<height>' with both sides multiples of 16, an aspect ratio from 1:3 to 3:1 and at most ${MAX_PIXELS} pixels.`, 'size', 'invalid_value'];
  }
  if (size !== undefined && spec.sizes !== 'flexible' && (spec.sizes === 'any' ? !/^\d{2,5}x\d{2,5}$/.test(size) : !spec.sizes.includes(size))) {
    const supported = spec.sizes === 'any' ? "'<width>x<height>'" : list(spec.sizes);
    return [`Invalid value: '${size}'. Supported values are: ${supported}.`, 'size', 'invalid_value'];
  }
  if (f.quality !== undefined && spec.qualities && !spec.qualities.includes(String(f.quality))) {
    return [`Invalid value: '${String(f.quality)}'. Supported values are: ${list(spec.qualities)}.`, 'quality', 'invalid_value'];
  }
  if (f.response_format !== undefined && !['url', 'b64_json'].includes(String(f.response_format))) {
    return [`Invalid value: '${String(f.response_format)}'. Supported values are: 'url' and 'b64_json'.`, 'response_format', 'invalid_value'];
  }
  return undefined;
}

/** The answer, shared by generations and edits; `refs` = number of input images (for usage). */
async function answer(ctx: Ctx, f: Fields, spec: ModelSpec, refs: number): Promise<void> {
  const plan = planFrom(f.prompt as string);
  if (submitFailure(ctx, plan, (s) => statusError(s))) return;
  if (!(await sleep(intDirective(plan.directives, 'first_byte_ms', 0), ctx.signal))) return;
  const size = f.size === undefined || f.size === 'auto' ? '1024x1024' : String(f.size);
  const [width, height] = size.split('x').map(Number);
  const n = f.n === undefined ? 1 : Number(f.n);
  const b64 = spec.b64Only || f.response_format === 'b64_json';
  const store = mediaStoreOf(ctx.control);
  const data = Array.from({ length: n }, (): Json => {
    const name = `img-${uuid()}.png`;
    const item: Json = b64 ? { b64_json: pngBytes(width, height, name).toString('base64') } : { url: mediaUrl(baseOf(ctx.req), name) };
    if (!b64) addFile(store, { name, png: { width, height }, urlTtlMs: plan.urlTtlMs ?? URL_TTL_MS });
    if (f.model === 'dall-e-3') item.revised_prompt = f.prompt;
    return item;
  });
  // `[sim usage=B64]` in the prompt: merged over the usage; total_tokens adds up unless the directive sets it.
  const over = usageDirective(plan.directives);
  const total = { key: 'total_tokens', parts: ['input_tokens', 'output_tokens'] };
  // DALL·E reports no usage; a test that asks for one there gets the directive's object alone.
  if (!spec.b64Only) return sendJson(ctx.res, 200, { created: unixSeconds(), data, ...(over && { usage: overriddenUsage({}, over, total) }) });
  const quality = f.quality === undefined || f.quality === 'auto' ? 'medium' : String(f.quality);
  const textTokens = (f.prompt as string).split(/\s+/).filter(Boolean).length;
  const imageTokens = refs * 194;
  const output = outputTokens(quality, width, height) * n;
  const usage = { input_tokens: textTokens + imageTokens, output_tokens: output, total_tokens: textTokens + imageTokens + output, input_tokens_details: { text_tokens: textTokens, image_tokens: imageTokens } };
  sendJson(ctx.res, 200, {
    created: unixSeconds(), background: f.background ?? 'opaque', data, output_format: f.output_format ?? 'png', quality, size: `${width}x${height}`,
    usage: overriddenUsage(usage, over, total),
  });
}

function modelProblem(model: string, edits: boolean): Problem {
  const names = Object.keys(MODELS).filter((m) => m !== 'img-any' && (!edits || MODELS[m].edits));
  return [`Invalid value: '${model}'. Supported values are: ${list(names)}.`, 'model', 'invalid_value'];
}

async function generations(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const b = parseJson(ctx.raw);
  if (!b) return invalid(ctx, ["We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)", null, null]);
  const model = typeof b.model === 'string' ? b.model : 'dall-e-2';
  const refs = b.image === undefined ? [] : Array.isArray(b.image) ? b.image : [b.image];
  mediaStoreOf(ctx.control).images.push({
    vendor: 'openai', path: ctx.path, model, prompt: String(b.prompt ?? ''), n: b.n ?? 1, size: b.size ?? null, quality: b.quality ?? null,
    responseFormat: b.response_format ?? null, images: refs.length, contentType: 'json', at: Date.now(),
  });
  const spec = specOf(model);
  if (!spec) return invalid(ctx, modelProblem(model, false));
  // Official models have no reference input on this endpoint (that is /v1/images/edits); resellers accept `image`.
  if (refs.length > 0 && spec.sizes !== 'any') return invalid(ctx, ["Unknown parameter: 'image'.", 'image', 'unknown_parameter']);
  const f = { ...b, model } as unknown as Fields;
  const p = fieldProblem(f, spec);
  if (p) return invalid(ctx, p);
  return answer(ctx, f, spec, refs.length);
}

const typeOf = (f: File): string => f.type && f.type !== 'application/octet-stream' ? f.type
  : /\.png$/i.test(f.name) ? 'image/png' : /\.jpe?g$/i.test(f.name) ? 'image/jpeg' : /\.webp$/i.test(f.name) ? 'image/webp' : f.type;

async function imageProblem(files: File[], mask: File | undefined, spec: ModelSpec, model: string): Promise<Problem | undefined> {
  if (files.length === 0) return ["Missing required parameter: 'image'.", 'image', 'missing_required_parameter'];
  if (files.length > spec.maxImages) {
    return [`Invalid 'image': array too long. Expected an array with maximum length ${spec.maxImages}, but got an array with length ${files.length} instead.`, 'image', 'array_above_max_length'];
  }
  for (const file of files) {
    if (!spec.mime.includes(typeOf(file))) {
      return [`Invalid file 'image': unsupported mimetype ('${typeOf(file)}'). Supported file formats are ${list(spec.mime)}.`, 'image', 'invalid_image_format'];
    }
    if (model !== 'dall-e-2') continue;
    // DALL·E 2 edits take one square PNG under 4 MB.
    if (file.size >= 4 * 1024 * 1024) return ['Invalid input image - file must be less than 4 MB.', 'image', 'invalid_image'];
    const dims = pngDimensions(Buffer.from(await file.arrayBuffer()));
    if (dims && dims.width !== dims.height) return ['Invalid input image - image must be square.', 'image', 'invalid_image'];
  }
  if (mask && typeOf(mask) !== 'image/png') return [`Invalid file 'mask': unsupported mimetype ('${typeOf(mask)}'). Supported file formats are 'image/png'.`, 'mask', 'invalid_image_format'];
  return undefined;
}

async function edits(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const ct = String(ctx.req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data/i.test(ct)) {
    return invalid(ctx, [`Invalid Content-Type header (${ct || 'none'}), expected multipart/form-data. (HINT: If you're using curl, you can pass -H 'Content-Type: multipart/form-data')`, null, null]);
  }
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(rawBodyOf(ctx.req, ctx.raw)), { headers: { 'content-type': ct } }).formData();
  } catch {
    return invalid(ctx, ['Could not parse multipart form data.', null, null]);
  }
  const text = (k: string): string | undefined => (typeof form.get(k) === 'string' ? (form.get(k) as string) : undefined);
  const files = [...form.getAll('image'), ...form.getAll('image[]')].filter((v): v is File => v instanceof Blob);
  const maskField = form.get('mask');
  const mask = maskField instanceof Blob ? (maskField as File) : undefined;
  const model = text('model') ?? 'dall-e-2';
  mediaStoreOf(ctx.control).images.push({
    vendor: 'openai', path: ctx.path, model, prompt: text('prompt') ?? '', n: text('n') ?? null, size: text('size') ?? null, quality: text('quality') ?? null,
    responseFormat: text('response_format') ?? null, images: files.length, imageBytes: files.map((f) => f.size), imageTypes: files.map(typeOf),
    imageNames: files.map((f) => f.name), mask: mask ? mask.size : null, contentType: 'multipart', at: Date.now(),
  });
  const spec = specOf(model);
  if (!spec || !spec.edits) return invalid(ctx, modelProblem(model, true));
  const f: Fields = {
    model, prompt: text('prompt'), n: text('n'), size: text('size'), quality: text('quality'), response_format: text('response_format'),
    background: text('background'), output_format: text('output_format'),
  };
  const p = fieldProblem(f, spec) ?? (await imageProblem(files, mask, spec, model));
  if (p) return invalid(ctx, p);
  return answer(ctx, f, spec, files.length);
}

export const openaiImageRoutes = [route('POST', '/v1/images/generations', generations), route('POST', '/v1/images/edits', edits)];
