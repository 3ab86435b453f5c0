// Orders candidate channels: priority tiers first, weighted random inside a tier.
import type { CompiledChannel } from '../config/runtime.js';

/** A weighted shuffle (Efraimidis–Spirakis): each channel leads its tier with probability weight/sum. */
export function orderCandidates(cands: readonly CompiledChannel[], random = Math.random): readonly CompiledChannel[] {
  if (cands.length < 2) return cands;
  const keyed = cands.map((c) => ({ c, key: c.weight > 0 ? random() ** (1 / c.weight) : -random() }));
  keyed.sort((a, b) => b.c.priority - a.c.priority || b.key - a.key);
  return keyed.map((k) => k.c);
}
