// The totals the spec reporter prints at the end of a file's run ("ℹ tests 42", "ℹ pass 41", …).
const keys = ['tests', 'pass', 'fail', 'skipped', 'todo', 'cancelled'];

export const emptyCounts = () => Object.fromEntries(keys.map((k) => [k, 0]));

export function counts(output) {
  const c = emptyCounts();
  for (const k of keys) {
    const all = [...output.matchAll(new RegExp(`^ℹ ${k} (\\d+)$`, 'gm'))];
    if (all.length) c[k] = Number(all.at(-1)[1]);
  }
  return c;
}

export const addCounts = (a, b) => Object.fromEntries(keys.map((k) => [k, a[k] + b[k]]));
