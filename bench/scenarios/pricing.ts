// What pricing costs a request, in this process (the gateway is not involved): choosing the request's price from its
// body (dimensions, variants), the reservation, reading the vendor's usage by its declared paths, the charge line by
// line and the rollup's class counts — every step billing adds to a request between its body and its settle. Four
// shapes: an old two-rate price; gpt-4o-mini with its service tier and cached input; claude-sonnet-4-5 read from a
// Messages usage with cache reads and writes; kling-v2-6 with its mode and sound.
import { compilePrice } from '../../src/billing/price-rules.js';
import { choosePrice } from '../../src/billing/choose-price.js';
import { chargeOf, reservationFor } from '../../src/billing/price.js';
import { readPriceInputs, compilePriceInputs } from '../../src/billing/price-inputs.js';
import { classTags } from '../../src/billing/token-classes.js';
import { compileUsagePaths, readUsage } from '../../src/transform/usage-paths.js';
import type { Model } from '../../src/types/generated/channels.js';
import type { BenchContext, Row, Scenario, Section } from '../scenario.js';
import { fmt, median } from '../stats.js';

const chatUsage = compileUsagePaths({
  at: ['usage'], prompt_tokens: ['prompt_tokens'], completion_tokens: ['completion_tokens'],
  details: { cached: ['prompt_tokens_details.cached_tokens'], reasoning: ['completion_tokens_details.reasoning_tokens'] },
});
const messagesUsage = compileUsagePaths({
  at: ['usage', 'message.usage'], prompt_tokens: ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'], completion_tokens: ['output_tokens'],
  details: { cached: ['cache_read_input_tokens'], cache_write: ['cache_creation_input_tokens'], cache_write_5m: ['cache_creation.ephemeral_5m_input_tokens'], cache_write_1h: ['cache_creation.ephemeral_1h_input_tokens'] },
});

interface Case { name: string; model: Model; body: Record<string, unknown>; answer?: unknown; paths?: typeof chatUsage; inputs: Record<string, string[]> }

const cases: Case[] = [
  {
    name: 'two rates (old fields), chat usage', model: { max_output_tokens: 4096, price: { input_per_mtok: 150, output_per_mtok: 600 } },
    body: { model: 'm', max_tokens: 256 }, answer: { usage: { prompt_tokens: 1000, completion_tokens: 200 } }, paths: chatUsage, inputs: { completion_tokens: ['max_tokens'] },
  },
  {
    name: 'gpt-4o-mini: service tier, cached input', body: { model: 'm', service_tier: 'priority', max_tokens: 256 }, paths: chatUsage, inputs: { completion_tokens: ['max_tokens'] },
    model: { max_output_tokens: 16384, price: { tokens: { input: 150, cached_input: 75, output: 600 }, dimensions: { service_tier: { at: ['service_tier'], values: ['auto', 'default', 'priority'], default: 'auto' } }, variants: [{ when: { service_tier: 'priority' }, tokens: { input: 250, cached_input: 125, output: 1000 } }] } },
    answer: { usage: { prompt_tokens: 100_000, completion_tokens: 500, prompt_tokens_details: { cached_tokens: 90_000 }, completion_tokens_details: { reasoning_tokens: 0 } } },
  },
  {
    name: 'claude-sonnet-4-5: Messages usage, cache reads and writes, a tier', body: { model: 'm', max_tokens: 32_000 }, paths: messagesUsage, inputs: { completion_tokens: ['max_tokens'] },
    model: { max_output_tokens: 64000, price: { tokens: { input: 3000, cache_write: 3750, cache_write_5m: 3750, cache_write_1h: 6000, cached_input: 300, output: 15000 }, tiers: [{ above: 200_000, tokens: { input: 6000, output: 22500 } }], dimensions: { inference_geo: { at: ['inference_geo'], values: ['global'], default: 'global' } } } },
    answer: { usage: { input_tokens: 1000, cache_creation_input_tokens: 10_000, cache_read_input_tokens: 90_000, cache_creation: { ephemeral_5m_input_tokens: 10_000, ephemeral_1h_input_tokens: 0 }, output_tokens: 500 } },
  },
  {
    name: 'kling-v2-6: mode and sound (a task)', body: { model: 'm', seconds: 10, metadata: { mode: 'pro', sound: 'on' } }, inputs: { seconds: ['seconds', 'metadata.duration'] },
    model: { price: { per_second: 42, seconds: { min: 5, max: 10, default: 5 }, dimensions: { mode: { at: ['mode', 'metadata.mode'], values: ['std', 'pro'], default: 'std' }, sound: { at: ['sound', 'metadata.sound'], values: ['off', 'on'], default: 'off' } }, variants: [{ when: { mode: 'pro' }, per_second: 70 }, { when: { sound: 'on' }, per_second: 140 }] } },
  },
];

/** One request's pricing: choose, reserve, read the usage, charge, count the classes. */
function priceOnce(c: Case, compiled: ReturnType<typeof compilePrice>, inputSpec: ReturnType<typeof compilePriceInputs>): number {
  const chosen = choosePrice(compiled, c.body);
  const inputs = readPriceInputs(inputSpec, c.model, c.body);
  const { amount } = reservationFor(chosen, c.model, inputs, 2048, 4);
  const usage = c.paths ? readUsage(c.paths, c.answer) : undefined;
  const charge = chargeOf(chosen, usage, { units: inputs.units, seconds: inputs.seconds });
  if (charge.classes) classTags(charge.classes);
  return amount + charge.total;
}

function measure(c: Case, n: number): number {
  const compiled = compilePrice('m', c.model);
  const spec = compilePriceInputs(c.inputs);
  let sink = 0;
  for (let i = 0; i < 20_000; i++) sink += priceOnce(c, compiled, spec); // warm the JIT
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) sink += priceOnce(c, compiled, spec);
  const used = process.cpuUsage(t);
  if (sink < 0) throw new Error('unreachable');
  return ((used.user + used.system) / n);
}

export const pricing: Scenario = {
  name: 'pricing',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const n = 200_000;
    const rows: Row[] = [];
    for (const c of cases) {
      if (ctx.signal.aborted) break;
      const runs = Array.from({ length: ctx.runs }, () => measure(c, n));
      rows.push({ metric: c.name, gateway: `${fmt(median(runs), 2)} µs (runs ${runs.map((r) => fmt(r, 2)).join(', ')})` });
    }
    return {
      title: 'Pricing: CPU per request of choosing the price, reserving, reading the usage and charging (in process)', rows,
      notes: [`${n.toLocaleString('en')} requests a run after a warm-up of 20,000; the median of ${ctx.runs} runs, in µs of CPU per request.`],
    };
  },
};
