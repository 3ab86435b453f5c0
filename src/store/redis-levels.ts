// A reservation across levels on a Redis Cluster, where a script runs on one slot and a request's levels live on up to
// three (its token's, its user's, its team's: acctKey in redis-quota-scripts.ts). Each run of consecutive levels that
// share a tag is taken by one script, in level order; when a run refuses, the runs taken before it are refunded and the
// reservation answers that level's index, as one script would on one server. Later runs are never tried, so a team's
// budget is not held, even for a moment, by a request its user's wallet refuses.
// What this gives up against one script: between two runs, other requests may find a level held that will be given
// back, and be refused where one script would have let them through; never the reverse, so no level is overdrawn.
// A process that dies between runs leaves open reservations that its owner index points at (written before the first
// run), and the sweep of dead owners refunds them like any other. Closing needs no order: one script per tag, all at once.
import type { Level } from './quota-ledger.js';
import { slotTag } from './redis-quota-scripts.js';

/** The runs of consecutive levels that share a tag, as [from, to) each, in level order. */
export function slotRuns(levels: Level[]): [number, number][] {
  const runs: [number, number][] = [];
  levels.forEach((l, i) => {
    if (i > 0 && slotTag(l.account) === slotTag(levels[i - 1].account)) runs[runs.length - 1][1] = i + 1;
    else runs.push([i, i + 1]);
  });
  return runs;
}

/** The levels' indexes grouped by tag, wherever they stand: what one close script per slot takes on a cluster. */
export function tagGroups(levels: readonly Level[]): number[][] {
  const groups = new Map<string, number[]>();
  levels.forEach((l, i) => groups.set(slotTag(l.account), [...(groups.get(slotTag(l.account)) ?? []), i]));
  return [...groups.values()];
}

/**
 * `take(from, to)` runs one run's script: the index within the run of the level that refused, or -1 − the number of
 * levels it took (0 when each was a repeat). `giveBack(taken, untaken)` refunds the levels taken and forgets the ones
 * never taken. Returns -1 when every run is taken, else the refusing level's index, after giving back the runs this
 * call took (a repeat's are left as they were). A run that fails gives back the runs before it and fails the
 * reservation; whether the failed run was taken is unknown, so it stays for a settle, a refund or the sweep, as a lone
 * reserve that fails does.
 */
export async function reserveByRuns(levels: Level[], take: (from: number, to: number) => Promise<number>,
  giveBack: (taken: Level[], untaken: Level[]) => Promise<void>): Promise<number> {
  const taken: Level[] = [];
  for (const [from, to] of slotRuns(levels)) {
    let r: number;
    try {
      r = await take(from, to);
    } catch (err) {
      await giveBack(taken, []).catch(() => undefined);
      throw err;
    }
    if (r >= 0) {
      await giveBack(taken, levels.slice(from));
      return from + r;
    }
    if (r < -1) taken.push(...levels.slice(from, to));
  }
  return -1;
}
