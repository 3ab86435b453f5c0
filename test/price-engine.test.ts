// The pricing engine on its own: token classes from overlapping vendor counts, charge lines, prompt-size tiers,
// prices chosen by request fields (and refused when unpriced), and the reservation as an upper bound of the charge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Model } from '../src/types/generated/channels.js';
import { compilePrice } from '../src/billing/price-rules.js';
import { choosePrice } from '../src/billing/choose-price.js';
import { chargeOf, reservationFor } from '../src/billing/price.js';
import { classTags, tokenClasses } from '../src/billing/token-classes.js';
import { readPriceInputs } from '../src/billing/price-inputs.js';
import { GatewayError } from '../src/http/errors.js';

const sonnet: Model = { max_output_tokens: 64000, price: { tokens: { input: 3000, cached_input: 300, cache_write: 3750, cache_write_5m: 3750, cache_write_1h: 6000, output: 15000 } } };
const chosen = (m: Model, body: Record<string, unknown> = {}) => choosePrice(compilePrice('m', m), body);

test('token classes: overlapping vendor counts become disjoint classes summing to the totals', () => {
  assert.deepEqual(tokenClasses({ prompt_tokens: 100, completion_tokens: 10, details: { cached: 90 } }), { cached_input: 90, input: 10, output: 10 });
  // Anthropic: the prompt sums input, writes and reads; writes split by lifetime, the unsplit rest is the default lifetime.
  assert.deepEqual(
    tokenClasses({ prompt_tokens: 101_000, completion_tokens: 500, details: { cached: 90_000, cache_write: 10_000, cache_write_1h: 4000 } }),
    { cached_input: 90_000, cache_write_1h: 4000, cache_write: 6000, input: 1000, output: 500 },
  );
  // Modality counts include their cached part (OpenAI realtime, Gemini): the cached audio is taken once.
  assert.deepEqual(
    tokenClasses({ prompt_tokens: 1000, completion_tokens: 300, details: { cached: 500, cached_audio: 200, input_audio: 600, reasoning: 100, output_audio: 50 } }),
    { cached_input_audio: 200, cached_input: 300, input_audio: 400, input: 100, reasoning: 100, output_audio: 50, output: 150 },
  );
  assert.deepEqual(classTags(tokenClasses({ prompt_tokens: 1000, completion_tokens: 300, details: { cached: 500, cached_audio: 200, input_audio: 600, reasoning: 100 } })),
    { cached_tokens: 500, cache_write_tokens: 0, reasoning_tokens: 100, audio_tokens: 600, image_tokens: 0 });
});

test('token classes never bill more tokens than the totals, whatever the vendor reports', () => {
  const n = fc.integer({ min: 0, max: 1e9 });
  fc.assert(fc.property(n, n, fc.dictionary(fc.constantFrom('cached', 'cached_audio', 'cache_write', 'cache_write_1h', 'input_audio', 'input_image', 'reasoning', 'output_image'), n), (p, c, details) => {
    const classes = tokenClasses({ prompt_tokens: p, completion_tokens: c, details });
    const input = Object.entries(classes).filter(([k]) => !['output', 'reasoning', 'output_audio', 'output_image'].includes(k)).reduce((s, [, v]) => s + v, 0);
    const output = Object.values(classes).reduce((s, v) => s + v, 0) - input;
    assert.equal(input, p);
    assert.equal(output, c);
    assert.ok(Object.values(classes).every((v) => v > 0 && Number.isSafeInteger(v)));
  }));
});

test("the issue's Messages answer: 1,000 input, 10,000 cache writes, 90,000 cache reads, 500 output on claude-sonnet-4-5 cost 75", () => {
  const c = chargeOf(chosen(sonnet), { prompt_tokens: 101_000, completion_tokens: 500, details: { cached: 90_000, cache_write: 10_000 } }, { units: 1 });
  assert.equal(c.total, 75);
  assert.deepEqual(c.lines.map((l) => [l.item, l.quantity, l.rate, l.units]), [
    ['cached_input', 90_000, 300, 27], ['cache_write', 10_000, 3750, 37.5], ['input', 1000, 3000, 3], ['output', 500, 15000, 7.5],
  ]);
});

test('a class the price does not name falls back: cache_write_1h → cache_write → input; reasoning → output', () => {
  const p = chosen({ price: { tokens: { input: 1000, cache_write: 1250, output: 5000 } } });
  const c = chargeOf(p, { prompt_tokens: 3000, completion_tokens: 2000, details: { cache_write: 2000, cache_write_1h: 1000, reasoning: 1500 } }, { units: 1 });
  assert.deepEqual(c.lines.map((l) => [l.item, l.rate]), [['cache_write_1h', 1250], ['cache_write', 1250], ['input', 1000], ['reasoning', 5000], ['output', 5000]]);
  // The old fields are the same rates.
  assert.deepEqual(chosen({ price: { input_per_mtok: 150, output_per_mtok: 600 } }).tokens, { input: 150, output: 600 });
});

test('tiers: the whole request at the rates of the last tier its prompt is above', () => {
  const haiku: Model = { price: { tokens: { input: 100, cached_input: 10, output: 500 }, tiers: [{ above: 100_000, tokens: { input: 500, cached_input: 50, output: 2500 } }] } };
  const at = (prompt: number) => chargeOf(chosen(haiku), { prompt_tokens: prompt, completion_tokens: 1000, details: { cached: prompt / 2 } }, { units: 1 });
  assert.equal(at(100_000).tier, undefined);
  assert.equal(at(100_000).total, Math.ceil((50_000 * 100 + 50_000 * 10 + 1000 * 500) / 1e6));
  assert.equal(at(100_002).tier, 100_000);
  assert.equal(at(100_002).total, Math.ceil((50_001 * 500 + 50_001 * 50 + 1000 * 2500) / 1e6));
});

const kling: Model = {
  price: {
    per_second: 42,
    seconds: { min: 5, max: 10, default: 5 },
    dimensions: { mode: { at: ['mode', 'metadata.mode'], values: ['std', 'pro'], default: 'std' }, sound: { at: ['sound', 'metadata.sound'], values: ['off', 'on'], default: 'off' } },
    variants: [{ when: { mode: 'pro' }, per_second: 70 }, { when: { mode: 'pro', sound: 'on' }, per_second: 140 }],
  },
};

test('dimensions choose variants; every matching variant applies in order', () => {
  assert.equal(chosen(kling).per_second, 42);
  assert.equal(chosen(kling, { metadata: { mode: 'PRO' } }).per_second, 70);
  assert.equal(chosen(kling, { mode: 'pro', metadata: { sound: 'on' } }).per_second, 140);
  assert.deepEqual(chosen(kling, { mode: 'pro' }).chose, { mode: 'pro' }, 'the options that moved the price from its defaults');
  assert.equal(chosen(kling).chose, undefined);
  // A factor multiplies every rate; the older `{ field, in }` still selects.
  const p = chosen({ price: { tokens: { input: 100, output: 200 }, dimensions: { service_tier: { at: ['service_tier'], values: ['default', 'priority'], default: 'default' } }, variants: [{ when: { service_tier: 'priority' }, multiply: 2 }] } }, { service_tier: 'priority' });
  assert.equal(chargeOf(p, { prompt_tokens: 1e6, completion_tokens: 1e6 }, { units: 1 }).total, 600);
  const sora = chosen({ price: { per_second: 300, variants: [{ when: { field: 'size', in: ['1024x1792'] }, per_second: 500 }] } }, { size: '1024x1792' });
  assert.equal(sora.per_second, 500);
  // A surcharge adds to whatever the variants before it chose.
  const q2: Model = {
    price: {
      per_call: 25, per_second: 50,
      dimensions: { resolution: { at: ['resolution'], values: ['720p', '1080p'], default: '720p' }, audio: { at: ['audio'], values: [false, true], default: false } },
      variants: [{ when: { resolution: '1080p' }, per_call: 200, per_second: 75 }, { when: { audio: true }, add: { per_call: 75 } }],
    },
  };
  assert.deepEqual([chosen(q2, { audio: true }).per_call, chosen(q2, { audio: true, resolution: '1080p' }).per_call, chosen(q2, { resolution: '1080p' }).per_call], [100, 275, 200]);
});

test('a value the price does not cover is refused before anything is reserved, naming the field; two paths must agree', () => {
  const refused = (body: Record<string, unknown>, words: RegExp) => assert.throws(() => chosen(kling, body), (e) => e instanceof GatewayError && e.code === 'invalid_request' && words.test(e.message));
  refused({ metadata: { mode: 'master' } }, /`metadata\.mode` "master" is not offered for model m \(its prices cover "std", "pro"\)/);
  refused({ mode: 'pro', metadata: { mode: 'std' } }, /`mode` \("pro"\) and `metadata\.mode` \("std"\) disagree/);
  refused({ sound: { on: true } }, /`sound` must be one of "off", "on"/);
  // Absent or null: the vendor's default.
  assert.equal(chosen(kling, { mode: null }).per_second, 42);
});

test('a present-or-not dimension: an array element picked by a field', () => {
  const ark: Model = { price: { tokens: { output: 6571 }, tokens_per_second: 22_000, dimensions: { reference_video: { at: ['content[type=video_url]', 'video'], present: true } }, variants: [{ when: { reference_video: true }, tokens: { output: 4000 } }] } };
  assert.equal(chosen(ark, { content: [{ type: 'text' }] }).tokens.output, 6571);
  assert.equal(chosen(ark, { content: [{ type: 'text' }, { type: 'video_url' }] }).tokens.output, 4000);
});

test('the reservation covers the charge of any usage the request can report within its limits', () => {
  const models: Model[] = [
    sonnet,
    { max_output_tokens: 16384, price: { tokens: { input: 5000, cached_input: 1250, input_image: 8000, cached_input_image: 2000, output_image: 30000, output: 10000 } } },
    { max_output_tokens: 128000, price: { tokens: { input: 2000, cached_input: 100, cache_write: 2500, output: 10000 }, tiers: [{ above: 272_000, tokens: { input: 4000, cached_input: 200, cache_write: 5000, output: 15000 } }] } },
  ];
  const n = fc.integer({ min: 0, max: 50_000 });
  fc.assert(fc.property(fc.constantFrom(...models), n, n, n, n, fc.integer({ min: 1, max: 4096 }), (m, prompt, cached, writes, image, completion) => {
    const p = chosen(m);
    const inputs = readPriceInputs({ completion_tokens: [['max_tokens']] }, m, { max_tokens: completion });
    const promptTokens = prompt + cached + writes + image;
    // A body of 4 bytes per token: the estimate equals the prompt, as it does for plain ASCII text.
    const { amount } = reservationFor(p, m, inputs, promptTokens * 4, 4);
    const c = chargeOf(p, { prompt_tokens: promptTokens, completion_tokens: completion, details: { cached, cache_write: writes, cache_write_1h: writes, input_image: image, output_image: completion } }, { units: 1 });
    assert.ok(c.total <= amount, `${c.total} > ${amount}`);
  }));
});

test('media priced by tokens reserve their tokens per second; a per-call price counts units', () => {
  const m: Model = { price: { tokens: { output: 6571 }, tokens_per_second: 21_600, seconds: { min: 4, max: 12, default: 5 } } };
  const inputs = readPriceInputs({ seconds: [['seconds']] }, m, { seconds: 10 });
  assert.equal(reservationFor(chosen(m), m, inputs, 100, 4).amount, Math.ceil((10 * 21_600 * 6571) / 1e6));
  const img: Model = { price: { per_call: 39, units: { max: 4 } } };
  const four = readPriceInputs({ units: [['n']] }, img, { n: 4 });
  assert.equal(reservationFor(chosen(img), img, four, 100, 4).amount, 156);
  assert.equal(chargeOf(chosen(img), undefined, { units: 4 }).total, 156);
});
