// Settling and refunding a reservation made across levels: each level closes under its own request id with the same
// charge (every level reserved the same amount, so the clamp to the reservation gives the same figure on each).
import type { CloseTags, Level, QuotaLedger, Settled } from '../store/quota-ledger.js';

/** The first level's close carries the usage (its rollup is the request's); the others only move money. */
export async function settleLevels(q: QuotaLedger, levels: readonly Level[], reserved: number, actual: number, tags?: CloseTags): Promise<Settled> {
  const first = q.settle(levels[0].account, levels[0].request, reserved, actual, tags);
  const rest = levels.slice(1).map((l) => q.settle(l.account, l.request, reserved, actual, tags));
  const [settled] = await Promise.all([first, ...rest]);
  return settled;
}

export async function refundLevels(q: QuotaLedger, levels: readonly Level[], reserved: number, tags?: CloseTags): Promise<void> {
  await Promise.all(levels.map((l) => q.refund(l.account, l.request, reserved, tags)));
}

/** A reservation's levels as a task keeps them: the first is the task's own (its token's account and id). */
export function levelsOfTask(token: string, id: string, more: readonly Level[] | undefined): Level[] {
  return [{ account: token, request: id }, ...(more ?? [])];
}
