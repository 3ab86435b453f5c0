// The order files start in: longest first, so that a long file does not start last and run on alone. A file's
// duration is its last passing run's on this checkout (kept in dist/, so a fresh clone has none), else the committed
// estimate (test-durations.json beside this file, `--save-estimates` rewrites it from a whole run), else it counts
// as short.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const kept = fileURLToPath(new URL('../../dist/.test-durations.json', import.meta.url));
const estimates = fileURLToPath(new URL('./test-durations.json', import.meta.url));
const read = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {});

/** The jobs, longest first (a job's name is its file, relative to the checkout). */
export function order(jobs) {
  const last = { ...read(estimates), ...read(kept) };
  const ms = (job) => last[job.name] ?? 0;
  return [...jobs].sort((a, b) => ms(b) - ms(a) || a.name.localeCompare(b.name));
}

/** Keeps the durations of the files that passed (name → ms), for the next run's order. */
export function remember(entries) {
  if (!existsSync(fileURLToPath(new URL('../../dist', import.meta.url)))) return;
  writeFileSync(kept, `${JSON.stringify({ ...read(kept), ...Object.fromEntries(entries) }, null, 1)}\n`);
}

/** Rewrites the committed estimates from a whole run's durations, to the second. */
export function saveEstimates(entries) {
  const sorted = [...entries].sort(([a], [b]) => a.localeCompare(b)).map(([name, ms]) => [name, Math.max(1000, Math.round(ms / 1000) * 1000)]);
  writeFileSync(estimates, `${JSON.stringify(Object.fromEntries(sorted), null, 1)}\n`);
}
