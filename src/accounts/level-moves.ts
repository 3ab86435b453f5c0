// Settling and refunding a reservation made across levels: each level closes under its own request id with the same
// charge, clamped to its own reservation, all in one step of the ledger (QuotaLedger.settleLevels, refundLevels).
import type { CloseTags, Level, QuotaLedger, Settled } from '../store/quota-ledger.js';

/** The first level's close carries the usage (its rollup is the request's); the others only move money. */
export function settleLevels(q: QuotaLedger, levels: readonly Level[], reserved: number, actual: number, tags?: CloseTags): Promise<Settled> {
  return q.settleLevels(levels, reserved, actual, tags);
}

export function refundLevels(q: QuotaLedger, levels: readonly Level[], reserved: number, tags?: CloseTags): Promise<void> {
  return q.refundLevels(levels, reserved, tags);
}

/** A reservation's levels as a task keeps them: the first is the task's own (its token's account and id). */
export function levelsOfTask(token: string, id: string, more: readonly Level[] | undefined): Level[] {
  return [{ account: token, request: id }, ...(more ?? [])];
}
