// Price inputs that count items (a rerank's documents): units per `per_items` items, long items split into chunks of
// `item_tokens` (their bytes at the prompt estimate, the `item_context` fields' bytes added to each), the model's bounds
// checked before anything is reserved, and the units the vendor reports charged instead of those reserved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Model } from '../src/types/generated/channels.js';
import { compilePriceInputs, readPriceInputs } from '../src/billing/price-inputs.js';
import { chargeOf, reservationFor } from '../src/billing/price.js';
import { compilePrice } from '../src/billing/price-rules.js';
import { GatewayError } from '../src/http/errors.js';
import { compileUsagePaths, readUsage } from '../src/transform/usage-paths.js';

const spec = compilePriceInputs({ items: ['documents'], item_context: ['query'] });
const perSearch: Model = { owned_by: 'x', price: { per_call: 2, units: { min: 1, max: 5, per_items: 100, item_tokens: 500 } } };
const docs = (n: number, text = 'short') => Array.from({ length: n }, () => text);

test('items are counted per_items to a unit, rounded up', () => {
  for (const [n, want] of [[1, 1], [100, 1], [101, 2], [250, 3]] as const) {
    assert.equal(readPriceInputs(spec, perSearch, { query: 'q', documents: docs(n) }).units, want, `${n} documents`);
  }
});

test('an item longer than item_tokens counts once per chunk begun, with the context\'s bytes on each', () => {
  // 4 bytes a token: 500 tokens are 2,000 bytes. A 1,990-byte document with a 20-byte query is 2 chunks.
  const inputs = readPriceInputs(spec, perSearch, { query: 'q'.repeat(20), documents: [...docs(99), 'x'.repeat(1990)] });
  assert.equal(inputs.units, 2, '99 + 2 chunks are 101 items: two searches');
  assert.equal(readPriceInputs(spec, perSearch, { query: 'q', documents: [...docs(99), 'x'.repeat(1990)] }).units, 1);
  // A coarser estimate (2 bytes a token) counts more chunks: the reservation follows the operator's setting.
  assert.equal(readPriceInputs(spec, perSearch, { query: 'q', documents: ['x'.repeat(99_999)] }, 2).units, 1, '100 chunks of 1,000 bytes');
  assert.equal(readPriceInputs(spec, perSearch, { query: 'q', documents: ['x'.repeat(100_000)] }, 2).units, 2, '101 chunks');
  assert.equal(readPriceInputs(spec, perSearch, { query: 'q', documents: ['x'.repeat(200_000)] }, 2).units, 3, '201 chunks');
});

test('outside the model\'s bounds is 400 naming the field; a token price ignores items', () => {
  assert.throws(() => readPriceInputs(spec, perSearch, { query: 'q', documents: docs(501) }),
    (e) => e instanceof GatewayError && e.status === 400 && e.message.includes('`documents`') && e.message.includes('1 to 5'));
  assert.throws(() => readPriceInputs(spec, perSearch, { query: 'q', documents: [] }), (e) => e instanceof GatewayError && e.message.includes('`documents`'));
  const perToken: Model = { owned_by: 'x', price: { tokens: { input: 50 } } };
  assert.equal(readPriceInputs(spec, perToken, { query: 'q', documents: docs(5000) }).units, 1, 'not units at all: the default');
});

test('the units the vendor reports are charged at the per-call price; none reported, the units reserved', () => {
  const chosen = compilePrice('m', perSearch).base;
  const inputs = readPriceInputs(spec, perSearch, { query: 'q', documents: docs(250) });
  assert.equal(reservationFor(chosen, perSearch, inputs, 2000, 4).amount, 6);
  const paths = compileUsagePaths({ at: ['meta.billed_units'], prompt_tokens: ['input_tokens'], completion_tokens: [], units: ['search_units'] });
  const usage = readUsage(paths, { meta: { billed_units: { search_units: 2 } } });
  assert.deepEqual(usage, { prompt_tokens: 0, completion_tokens: 0, units: 2 });
  const c = chargeOf(chosen, usage, { units: inputs.units });
  assert.equal(c.total, 4);
  assert.deepEqual(c.lines, [{ item: 'call', quantity: 2, rate: 2, units: 4 }]);
  assert.equal(chargeOf(chosen, undefined, { units: inputs.units }).total, 6);
});
