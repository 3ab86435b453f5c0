// Number helpers shared by the scenarios: percentiles, medians, paired differences, formatting.

/** Nearest-rank percentile of unsorted samples (copied, so callers keep their order); NaN when empty. */
export function percentile(samples: ArrayLike<number>, p: number): number {
  const n = samples.length;
  if (n === 0) return NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
  return sorted[rank];
}

/** Several percentiles with one sort: the closed-loop runs hold up to a few hundred thousand samples. */
export function percentiles(samples: ArrayLike<number>, ps: number[]): number[] {
  const n = samples.length;
  if (n === 0) return ps.map(() => NaN);
  const sorted = Float64Array.from(samples).sort();
  return ps.map((p) => sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))]);
}

export function median(values: number[]): number {
  const v = values.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b); // Infinity (a failed run) stays: it must not look fast
  if (v.length === 0) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** Median of per-run differences: interleaved pairs cancel drift (thermal, noisy neighbours) better than median(a) − median(b). */
export function pairedDelta(gateway: number[], direct: number[]): number {
  const n = Math.min(gateway.length, direct.length);
  const d: number[] = [];
  for (let i = 0; i < n; i++) d.push(gateway[i] - direct[i]);
  return median(d);
}

/** Least-squares slope of y over x; NaN with fewer than two points. */
export function slope(xs: number[], ys: number[]): number {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return NaN;
  let sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (let i = 0; i < n; i++) { sx += xs[i]; sy += ys[i]; sxx += xs[i] * xs[i]; sxy += xs[i] * ys[i]; }
  const den = n * sxx - sx * sx;
  return den === 0 ? NaN : (n * sxy - sx * sy) / den;
}

/** Fixed decimals, with a dash for "not measured" so tables never show NaN. */
export function fmt(v: number | undefined, digits = 2, unit = ''): string {
  if (v === Infinity) return '∞ (failed)';
  if (v === undefined || !Number.isFinite(v)) return '—';
  return `${v.toFixed(digits)}${unit}`;
}

/** Thousands separators for counts and rates. */
export function fmtInt(v: number | undefined, unit = ''): string {
  if (v === undefined || !Number.isFinite(v)) return '—';
  return `${Math.round(v).toLocaleString('en-US')}${unit}`;
}

export function signed(v: number | undefined, digits = 3, unit = ' ms'): string {
  if (v === Infinity) return '∞ (failed)';
  if (v === undefined || !Number.isFinite(v)) return '—';
  return `${v >= 0 ? '+' : ''}${v.toFixed(digits)}${unit}`;
}

/** Median of per-run ratios a[i] ÷ b[i]: the gateway against the bare pass-through of the same run. */
export function pairedRatio(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  const r: number[] = [];
  for (let i = 0; i < n; i++) r.push(a[i] / b[i]);
  return median(r);
}

/** A ratio for the tables: `1.42×`. */
export function fmtRatio(v: number | undefined, digits = 2): string {
  return fmt(v, digits, '×');
}
