// Image routes: OpenAI generations and edits through the openai client, size tables, native content format, signed visual API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import { eventually, startStack, type Stack } from './helpers/stack.js';
import { call } from './helpers/video.js';

let stack: Stack;
before(async () => { stack = await startStack(); });
after(async () => { await stack.close(); });

const lastImageRequest = () => stack.sim.control.imageRequests().at(-1)!;
const sentBody = (path: string) => stack.sim.control.requests().filter((r) => r.path === path).at(-1)!.body as Record<string, any>;

// OpenAI prices its image models per token (the model pages): text input $5 and image input $8 per million, images
// out $30 per million; an edit's input images are image tokens.
type ImageUsage = { input_tokens: number; output_tokens: number; input_tokens_details?: { image_tokens?: number } };
const imageCharge = (u: ImageUsage) => {
  const image = u.input_tokens_details?.image_tokens ?? 0;
  return Math.ceil(((u.input_tokens - image) * 5000 + image * 8000 + u.output_tokens * 30000) / 1e6);
};

test('images.generate and images.edit work with the official openai client; the tokens of every image are billed', async () => {
  const { key, id } = await stack.token({ quota: 10_000 });
  const client = new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  const gen = await client.images.generate({ model: 'gpt-image-2.5-flare', prompt: 'a red kite', size: '1024x1024', n: 2 });
  assert.equal(gen.data?.length, 2);
  assert.ok(gen.data![0].b64_json);
  assert.equal(gen.usage!.output_tokens, 2 * 1056, 'two medium squares');
  const first = imageCharge(gen.usage!);
  await eventually(async () => (await stack.balance(id)) === 10_000 - first);
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000400000004008060000', 'hex');
  const edit = await client.images.edit({
    model: 'gpt-image-2.6-sunburst', prompt: 'add a moon', image: [await toFile(png, 'a.png', { type: 'image/png' }), await toFile(png, 'b.png', { type: 'image/png' })],
    mask: await toFile(png, 'mask.png', { type: 'image/png' }),
  });
  assert.ok(edit.data?.[0]);
  const rec = lastImageRequest();
  assert.equal(rec.path, '/v1/images/edits');
  assert.equal(rec.images, 2, JSON.stringify(rec));
  assert.equal(edit.usage!.input_tokens_details.image_tokens, 2 * 194, 'the two input images are input tokens');
  await eventually(async () => (await stack.balance(id)) === 10_000 - first - imageCharge(edit.usage!));
});

test('size forms and the ratio tables: WxH, W*H, ratio at 1k/2k/4k, sizes in 16s, and the prompt note where the model lacks the size', async () => {
  const { key } = await stack.token();
  const cases: [Record<string, unknown>, string, RegExp?][] = [
    [{ model: 'img-any', size: '1024*1536' }, '1024x1536'],
    [{ model: 'img-any', size: '16:9' }, '1920x1080'],
    [{ model: 'img-any', size: '3:2' }, '1536x1024'],
    [{ model: 'img-any', size: '4:3' }, '1536x1152'],
    [{ model: 'img-any', size: '9:16', resolution: '2k' }, '1440x2560'],
    [{ model: 'img-any', size: '1:1', resolution: '2k' }, '2048x2048'],
    [{ model: 'img-any', size: '16:9', resolution: '2k' }, '2560x1440'],
    [{ model: 'gpt-image-2.5-flare', size: '16:9' }, '1920x1088'],
    [{ model: 'gpt-image-2', size: '21:9', resolution: '4k' }, '4384x1872'],
    [{ model: 'gpt-image-2', size: '5:4' }, 'auto', /\(aspect ratio 5:4\)$/],
    [{ model: 'dall-e-3', size: '9:16' }, '1024x1792', /\(aspect ratio 9:16\)$/],
    [{ model: 'gpt-image-2.6-sunburst', size: '2:3' }, '1024x1536'],
  ];
  for (const [extra, size, note] of cases) {
    const r = await call(stack, key, 'POST', '/v1/images/generations', { prompt: 'a cat', ...extra });
    assert.equal(r.status, 200, `${JSON.stringify(extra)}: ${r.text}`);
    const body = sentBody('/v1/images/generations');
    assert.equal(body.size, size, JSON.stringify(extra));
    if (note) assert.match(body.prompt, note); else assert.equal(body.prompt, 'a cat');
    assert.equal(body.resolution, undefined);
  }
  const bad = await call(stack, key, 'POST', '/v1/images/generations', { model: 'img-any', prompt: 'x', size: 'huge' });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error.message, /`size`/);
});

test('native generateContent: the body passes untouched at every size, each image charged by the image tokens Google reports', async () => {
  const { key, id } = await stack.token({ quota: 100_000 });
  const body = (size: string) => ({
    contents: [{ role: 'user', parts: [{ text: 'a fox' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }],
    generationConfig: { imageConfig: { aspectRatio: '16:9', imageSize: size } },
  });
  // Google's prices: 3 Pro Image draws 1K and 2K in 1120 image tokens, 4K in 2000, at $120 a million; text at $2/$12.
  for (const [model, size, imageTokens] of [['gemini-3-pro-image-preview', '2K', 1120], ['gemini-3-pro-image-preview', '4K', 2000]] as const) {
    const before = (await stack.balance(id))!;
    const r = await call(stack, key, 'POST', `/v1beta/models/${model}:generateContent`, body(size));
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.candidates[0].content.parts.some((p: any) => p.inlineData?.mimeType === 'image/png'));
    const up = sentBody(`/v1beta/models/${model}:generateContent`);
    assert.deepEqual({ ...up, model: undefined }, { ...body(size), model: undefined }, 'the client\'s own body (the model named as the upstream knows it)');
    const u = r.json.usageMetadata;
    assert.equal(u.candidatesTokensDetails.find((d: any) => d.modality === 'IMAGE').tokenCount, imageTokens);
    const text = u.candidatesTokenCount - imageTokens;
    await eventually(async () => before - (await stack.balance(id))! === Math.ceil((u.promptTokenCount * 2000 + text * 12000 + imageTokens * 120000) / 1e6));
  }
  // A size the model does not draw is Google's to refuse; its words are relayed and nothing is charged.
  const before = (await stack.balance(id))!;
  const flash = await call(stack, key, 'POST', '/v1beta/models/gemini-2.5-flash-image:generateContent', body('2K'));
  assert.equal(flash.status, 400, flash.text);
  assert.match(flash.json.error.message, /Unsupported image size: 2K/);
  assert.equal(await stack.balance(id), before);
  const sent = stack.sim.control.requests().filter((r) => r.path.includes(':generateContent')).at(-1)!;
  assert.equal(sent.headers['x-goog-api-key'], 'sim-key');
  assert.equal(sent.headers.authorization, undefined, 'the client key never reaches the vendor');
});

test('the visual API route is signed with HMAC-SHA256 V4 and the vendor verifies it', async () => {
  const { key, id } = await stack.token({ quota: 1_000 });
  const submit = await call(stack, key, 'POST', '/art-official?Action=CVSync2AsyncSubmitTask&Version=2022-08-31', { req_key: 'jimeng_t2i_v40', prompt: 'a bridge [sim polls=0]' });
  assert.equal(submit.status, 200, submit.text);
  assert.equal(submit.json.code, 10000);
  const result = await call(stack, key, 'POST', '/art-official?Action=CVSync2AsyncGetResult&Version=2022-08-31', { req_key: 'jimeng_t2i_v40', task_id: submit.json.data.task_id });
  assert.equal(result.status, 200, result.text);
  assert.equal(result.json.data.status, 'done');
  const sigs = stack.sim.control.signatures();
  assert.deepEqual(sigs.slice(-2).map((s) => [s.service, s.action, s.ok]), [['cv', 'CVSync2AsyncSubmitTask', true], ['cv', 'CVSync2AsyncGetResult', true]]);
  assert.equal(await stack.balance(id), 1_000 - 29, 'the submit is billed (one image), the result query is free');
});
