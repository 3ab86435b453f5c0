// Checks of an operation that stands in for another (`instead_of`): the bytes of one dialect's clients pass untouched to
// it, so it must name that dialect and an operation of the same channel that serves everyone else.
import type { Operation } from '../types/generated/channels.js';

export function insteadOfRules(op: Operation, ops: Record<string, Operation>, p: string, at: (level: 'error', path: string, msg: string) => void): void {
  const base = ops[op.instead_of!];
  if (!op.dialect) at('error', `${p}/instead_of`, 'an operation that stands in for another needs the `dialect` whose clients it carries');
  if (!base) at('error', `${p}/instead_of`, `"${op.instead_of}" is not an operation of this channel`);
  else if (base.instead_of) at('error', `${p}/instead_of`, `"${op.instead_of}" stands in for another operation itself`);
  else if (base.dialect && base.dialect === op.dialect) at('error', `${p}/instead_of`, `"${op.instead_of}" already speaks ${op.dialect}`);
  (op.models ?? []).forEach((m, j) => {
    if (base?.models && !base.models.includes(m)) at('error', `${p}/models/${j}`, `"${m}" is not a model of operation ${op.instead_of}`);
  });
}
