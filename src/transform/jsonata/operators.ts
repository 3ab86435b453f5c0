// JSONata's binary operators other than `and` and `or` (evaluateBinary() and the functions it calls).
import { JsonataError, deepEqual, isNumeric, seq, maxSequence } from './values.js';
import { natives } from './natives.js';

const stringOf = natives.string.implementation as (v: unknown) => string | undefined;

function numeric(op: (a: number, b: number) => number) {
  return (a: unknown, b: unknown) => {
    if (a !== undefined && !isNumeric(a)) throw new JsonataError('T2001', a);
    if (b !== undefined && !isNumeric(b)) throw new JsonataError('T2002', b);
    return a === undefined || b === undefined ? undefined : op(a as number, b as number);
  };
}

function compare(op: (a: string | number, b: string | number) => boolean) {
  return (a: unknown, b: unknown) => {
    const ta = typeof a;
    const tb = typeof b;
    const la = ta === 'undefined' || ta === 'string' || ta === 'number';
    const lb = tb === 'undefined' || tb === 'string' || tb === 'number';
    if (!la || !lb) throw new JsonataError('T2010', !(ta === 'string' || ta === 'number') ? a : b);
    if (ta === 'undefined' || tb === 'undefined') return undefined;
    if (ta !== tb) throw new JsonataError('T2009', a);
    return op(a as string | number, b as string | number);
  };
}

function range(a: unknown, b: unknown): unknown {
  if (a !== undefined && !Number.isInteger(a)) throw new JsonataError('T2003', a);
  if (b !== undefined && !Number.isInteger(b)) throw new JsonataError('T2004', b);
  if (a === undefined || b === undefined || (a as number) > (b as number)) return undefined;
  const size = (b as number) - (a as number) + 1;
  if (size > 1e7) throw new JsonataError('D2014', size);
  if (size > maxSequence) throw new JsonataError('D2015', size);
  const out = seq();
  out.length = size;
  for (let i = 0; i < size; i++) out[i] = (a as number) + i;
  return out;
}

export const binary: Record<string, (a: unknown, b: unknown) => unknown> = {
  '+': numeric((a, b) => a + b),
  '-': numeric((a, b) => a - b),
  '*': numeric((a, b) => a * b),
  '/': numeric((a, b) => a / b),
  '%': numeric((a, b) => a % b),
  '=': (a, b) => (a === undefined || b === undefined ? false : deepEqual(a, b)),
  '!=': (a, b) => (a === undefined || b === undefined ? false : !deepEqual(a, b)),
  '<': compare((a, b) => a < b),
  '<=': compare((a, b) => a <= b),
  '>': compare((a, b) => a > b),
  '>=': compare((a, b) => a >= b),
  '&': (a, b) => (a === undefined ? '' : stringOf(a))!.concat((b === undefined ? '' : stringOf(b))!),
  '..': range,
  in: (a, b) => {
    if (a === undefined || b === undefined) return false;
    const list = Array.isArray(b) ? b : [b];
    for (let i = 0; i < list.length; i++) if (list[i] === a) return true;
    return false;
  },
};
