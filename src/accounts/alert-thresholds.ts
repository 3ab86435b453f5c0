// Budget alert thresholds: percentages of a budget, kept in ascending order so that a reading past several at once
// raises each of them, the lowest first.
export const defaultThresholds = [50, 80, 100];

/** The thresholds sorted without repeats; throws on one that is not a number above 0 (above 100 is fine: unchecked levels overrun). */
export function alertThresholds(given: number[] = defaultThresholds): number[] {
  for (const t of given) if (!(Number.isFinite(t) && t > 0)) throw new RangeError(`budget alert threshold must be a number above 0 (got ${t})`);
  return [...new Set(given)].sort((a, b) => a - b);
}

/** Whether `used` has reached `percent` % of `budget`, compared without a division (used·100 ≥ percent·budget). */
export const reached = (used: number, budget: number, percent: number): boolean => used * 100 >= percent * budget;

/** The index past the last of `thresholds` (from `from` on) that `used` of `budget` has reached. */
export function reachedUpTo(thresholds: number[], from: number, used: number, budget: number): number {
  let to = from;
  while (to < thresholds.length && reached(used, budget, thresholds[to])) to++;
  return to;
}
