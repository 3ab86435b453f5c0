// Budget periods on the calendar of a configured time zone: a period is named by its key (its account's suffix) and
// ends at the next local midnight of a day, a Monday or a month's first day. Keys come from the local date alone, so
// every instance computes the same key for the same instant, and a new period is a new account: no reset job.
export const periods = ['day', 'week', 'month'] as const;
export type Period = (typeof periods)[number];

export const isPeriod = (v: unknown): v is Period => typeof v === 'string' && (periods as readonly string[]).includes(v);

interface LocalDate { y: number; m: number; d: number }

const formats = new Map<string, Intl.DateTimeFormat>();
/** One formatter per zone: building one costs more than a request's whole reservation. */
function formatOf(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    formats.set(zone, f);
  }
  return f;
}

/** Throws on a zone the runtime does not know (checked when the config loads). */
export function checkZone(zone: string): void {
  formatOf(zone);
}

function partsAt(ms: number, zone: string): LocalDate & { h: number; min: number; s: number } {
  const p: Record<string, number> = {};
  for (const x of formatOf(zone).formatToParts(ms)) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return { y: p.year, m: p.month, d: p.day, h: p.hour, min: p.minute, s: p.second };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const dateKey = (x: LocalDate) => `${pad(x.y, 4)}-${pad(x.m)}-${pad(x.d)}`;
/** Day arithmetic on the proleptic calendar, through UTC (no zone involved). */
const shift = (x: LocalDate, days: number): LocalDate => {
  const t = new Date(Date.UTC(x.y, x.m - 1, x.d + days));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
};

/** The local date a period holding `ms` starts on. */
function startOf(period: Period, ms: number, zone: string): LocalDate {
  const x = partsAt(ms, zone);
  if (period === 'day') return x;
  if (period === 'month') return { y: x.y, m: x.m, d: 1 };
  const weekday = (new Date(Date.UTC(x.y, x.m - 1, x.d)).getUTCDay() + 6) % 7; // Monday 0
  return shift(x, -weekday);
}

/** `d2026-11-29`, `w2026-11-23` (the week's Monday), `m2026-11`. */
export function periodKey(period: Period, ms: number, zone: string): string {
  const s = startOf(period, ms, zone);
  return period === 'month' ? `m${pad(s.y, 4)}-${pad(s.m)}` : `${period[0]}${dateKey(s)}`;
}

/** The instant a local date's midnight falls on in `zone` (the first instant of that date, across DST shifts). */
function midnight(x: LocalDate, zone: string): number {
  let guess = Date.UTC(x.y, x.m - 1, x.d);
  // Two corrections by the zone's offset at the guess converge for every real zone, DST days included.
  for (let i = 0; i < 3; i++) {
    const p = partsAt(guess, zone);
    const local = Date.UTC(p.y, p.m - 1, p.d, p.h, p.min, p.s);
    const want = Date.UTC(x.y, x.m - 1, x.d);
    if (local === want) return guess;
    guess += want - local;
  }
  return guess;
}

/** When the period holding `ms` ends (ms): the next one's first instant. */
export function periodEnd(period: Period, ms: number, zone: string): number {
  const s = startOf(period, ms, zone);
  const next = period === 'day' ? shift(s, 1) : period === 'week' ? shift(s, 7) : { y: s.m === 12 ? s.y + 1 : s.y, m: s.m === 12 ? 1 : s.m + 1, d: 1 };
  return midnight(next, zone);
}

export interface PeriodSpan { key: string; start: number; end: number }
const spans = new Map<string, PeriodSpan>();

/**
 * The period holding `ms`, remembered per zone and kind until it ends: a request asks for it once per level, and the
 * zone's calendar arithmetic costs several µs.
 */
export function periodAt(period: Period, ms: number, zone: string): PeriodSpan {
  const id = `${zone}\u0000${period}`;
  const s = spans.get(id);
  if (s && ms >= s.start && ms < s.end) return s;
  const span = { key: periodKey(period, ms, zone), start: midnight(startOf(period, ms, zone), zone), end: periodEnd(period, ms, zone) };
  spans.set(id, span);
  return span;
}
