// A report's time range from the query: `from` and `to` as unix seconds or ISO 8601 dates or times (a date alone is
// UTC midnight), `to` exclusive. Ranges are bounded so a report never walks years of hours.
import { GatewayError, clip } from '../http/errors.js';

const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const day = 86_400_000;

export interface TimeRange { from: number; to: number }

/** Throws invalid_request (400) naming the parameter. `defaultDays`: how far back `from` goes when absent. */
export function readRange(q: Record<string, string | undefined>, names: [string, string], defaultDays: number, maxDays: number, now = Date.now()): TimeRange {
  const to = q[names[1]] === undefined ? now : instant(q[names[1]]!, names[1]);
  const from = q[names[0]] === undefined ? to - defaultDays * day : instant(q[names[0]]!, names[0]);
  if (from >= to) throw new GatewayError('invalid_request', `\`${names[0]}\` must be before \`${names[1]}\``);
  if (to - from > maxDays * day) throw new GatewayError('invalid_request', `the range from \`${names[0]}\` to \`${names[1]}\` must be at most ${maxDays} days`);
  return { from, to };
}

function instant(v: string, name: string): number {
  const ms = /^\d{1,11}$/.test(v) ? Number(v) * 1000 : iso.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms)) throw new GatewayError('invalid_request', `\`${name}\` must be unix seconds or an ISO 8601 date or time (got ${clip(v, 40)})`);
  return ms;
}
