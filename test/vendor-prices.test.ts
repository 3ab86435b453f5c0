// Every shipped vendor file prices every model it lists from its vendor's price pages, with the day they were read,
// and every dimension a price declares can be chosen: each value of each dimension gets a price (no 400 for a value
// the file says it prices), and a value it does not list is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../src/config/load-config.js';
import type { VendorFile } from '../src/types/generated/vendor.js';
import { compilePrice } from '../src/billing/price-rules.js';
import { choosePrice } from '../src/billing/choose-price.js';
import { GatewayError } from '../src/http/errors.js';

const dir = join(projectRoot, 'vendors');
const vendors = readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => [f, parse(readFileSync(join(dir, f), 'utf8'), { merge: true }) as VendorFile] as const);

test('every vendor file names its price pages and the day they were read', () => {
  assert.ok(vendors.length >= 12);
  for (const [file, v] of vendors) {
    assert.ok(v.prices, `${file} has no prices`);
    assert.ok(v.prices.source.every((u) => /^https:\/\//.test(u)), `${file}: sources are https URLs`);
    assert.match(v.prices.as_of, /^2026-\d{2}-\d{2}$/, file);
  }
});

test('every model has a price that charges something, except the free calls its file says are free', () => {
  const free = new Set(['visual-result', 'vendor-assets', 'suno_lyrics', 'art-relax', 'omni-moderation-latest', 'text-moderation-latest']);
  for (const [file, v] of vendors) {
    for (const [name, m] of Object.entries(v.models)) {
      const p = compilePrice(name, m).base;
      const charges = Object.values(p.tokens).some((r) => r > 0) || p.per_call > 0 || p.per_second > 0;
      assert.equal(charges, !free.has(name), `${file} ${name}`);
    }
  }
});

test('each value of each dimension is priced, its default too; a value not listed is refused with 400 naming the path', () => {
  let dimensions = 0;
  for (const [file, v] of vendors) {
    for (const [name, m] of Object.entries(v.models)) {
      const cp = compilePrice(name, m);
      for (const d of cp.dimensions) {
        dimensions++;
        const path = d.at[0].replace(/\[.*$/, '');
        const body = (value: unknown) => path.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
        for (const value of d.present ? [] : d.values!) assert.doesNotThrow(() => choosePrice(cp, body(value)), `${file} ${name} ${d.name}=${String(value)}`);
        assert.doesNotThrow(() => choosePrice(cp, {}), `${file} ${name}: the defaults`);
        if (d.present) continue;
        assert.throws(() => choosePrice(cp, body('unpriced-value')), (e) => e instanceof GatewayError && e.status === 400 && e.message.includes(`\`${path}\``), `${file} ${name} ${d.name}`);
      }
    }
  }
  assert.ok(dimensions > 100, `${dimensions} dimensions`);
});
