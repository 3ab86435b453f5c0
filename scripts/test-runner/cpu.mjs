// CPU time of the runner's finished children (Linux: cutime + cstime of /proc/self/stat, which grow as a child is
// reaped, by what it and the descendants it waited for used). Read at each child's exit, the growth since the last
// read is that child's, unless two were reaped at once. Undefined where /proc is missing.
import { readFileSync } from 'node:fs';

const TICKS = 100; // USER_HZ, 100 on every Linux Node runs on

function childrenTicks() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[13]) + Number(f[14]); // cutime, cstime (fields 16 and 17 of proc(5))
  } catch {
    return undefined;
  }
}

let last = childrenTicks();

/** Milliseconds of CPU used by the children reaped since the last call. */
export function reapedCpuMs() {
  const now = childrenTicks();
  if (now === undefined || last === undefined) return undefined;
  const ms = ((now - last) * 1000) / TICKS;
  last = now;
  return ms;
}
