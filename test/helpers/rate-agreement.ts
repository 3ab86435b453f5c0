// The same random window ops on a store and on the rule (slideWindow), op for op: shared by the SQLite, Redis and
// Redis Cluster tests.
import assert from 'node:assert/strict';
import { slideWindow, windowSpec, type Ring, type WindowOp, type RateWindows } from '../../src/store/rate-window.js';

/** A small deterministic generator, so a failure can be replayed. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}

/** The same random ops on a store and on slideWindow, op for op. */
export async function agrees(w: RateWindows, seed: number): Promise<void> {
  const rnd = random(seed);
  const rings = new Map<string, Ring>();
  let now = 1_700_000_000_000;
  for (let i = 0; i < 300; i++) {
    now += rnd() < 0.6 ? Math.floor(rnd() * 200) : Math.floor(rnd() * 4000);
    const spec = windowSpec(rnd() < 0.5 ? 2000 : 3000);
    const key = `{tok_${seed}_${Math.floor(rnd() * 3)}}:${spec.bucketMs}`;
    const o: WindowOp = {
      key, spec, limit: 1 + Math.floor(rnd() * 20), take: Math.floor(rnd() * 6), add: rnd() < 0.2 ? Math.floor(rnd() * 9) : 0,
      give: rnd() < 0.3 ? Math.floor(rnd() * 4) : 0, giveBucket: Math.floor(now / spec.bucketMs) - Math.floor(rnd() * 25),
    };
    const want = slideWindow(rings.get(key), o, now);
    rings.set(key, want.ring);
    const [got] = await w.slide([o], now);
    assert.deepEqual(got, want.result, `seed ${seed}, op ${i}: ${JSON.stringify(o)}`);
  }
}
