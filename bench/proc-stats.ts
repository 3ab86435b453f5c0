// Reads a process's CPU time and RSS from /proc, and samples RSS in the background to find the peak.
import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

let clkTck: number | undefined;

/** Clock ticks per second for /proc/<pid>/stat times; 100 is the Linux default when getconf is missing. */
export function clockTicks(): number {
  if (clkTck === undefined) {
    const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    const n = Number(r.stdout?.trim());
    clkTck = r.status === 0 && n > 0 ? n : 100;
  }
  return clkTck;
}

/**
 * utime+stime of the whole thread group, in seconds, so libuv's threadpool (where SQLite runs) counts too.
 * Fields 14 and 15 counted after the `(comm)` part, which may itself contain spaces.
 */
export function cpuSeconds(pid: number): number {
  return ticksIn(`/proc/${pid}/stat`);
}

/** The main (JavaScript) thread alone: its tid is the pid. The rest of the process's time is helper threads. */
export function mainThreadCpuSeconds(pid: number): number {
  return ticksIn(`/proc/${pid}/task/${pid}/stat`);
}

function ticksIn(file: string): number {
  const stat = readFileSync(file, 'utf8');
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state), so utime (field 14) is rest[11] and stime (field 15) is rest[12].
  return (Number(rest[11]) + Number(rest[12])) / clockTicks();
}

/** Machine-wide CPU time from /proc/stat's `cpu` line, in seconds: busy (user, nice, system, irq, softirq) and steal. */
export function systemCpuSeconds(): { busy: number; steal: number } {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f;
    return { busy: (user + nice + system + irq + softirq) / clockTicks(), steal: (steal ?? 0) / clockTicks() };
  } catch {
    return { busy: NaN, steal: NaN };
  }
}

/** Busy seconds (user, nice, system, irq, softirq) of each CPU from /proc/stat's `cpuN` lines, indexed by N. */
export function perCpuBusySeconds(): number[] {
  const out: number[] = [];
  try {
    for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
      const m = /^cpu(\d+)\s+(.*)$/.exec(line);
      if (!m) continue;
      const [user, nice, system, , , irq, softirq] = m[2].trim().split(/\s+/).map(Number);
      out[Number(m[1])] = (user + nice + system + irq + softirq) / clockTicks();
    }
  } catch { /* not Linux */ }
  return out;
}

/** Resident set size in bytes from VmRSS, or NaN when the process is gone. */
export function rssBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * The pids of a process's children (a cluster primary's workers): from each of its threads'
 * /proc/<pid>/task/<tid>/children, or, on a kernel without that file, by scanning every /proc/<n>/stat for the ppid.
 */
export function childPids(pid: number): number[] {
  const out = new Set<number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/)) if (c) out.add(Number(c));
    }
    return [...out].sort((a, b) => a - b);
  } catch { /* no children files (CONFIG_PROC_CHILDREN off), or the process is gone */ }
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
      // Field 4 (ppid) is the second after the `(comm)` part.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.add(Number(n));
    } catch { /* exited meanwhile */ }
  }
  return [...out].sort((a, b) => a - b);
}

/** Soft "Max open files" of a process, so the report can say when a stream level is limited by fds, not code. */
export function openFileLimit(pid: number | 'self'): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
    return !m ? NaN : m[1] === 'unlimited' ? Infinity : Number(m[1]);
  } catch {
    return NaN;
  }
}

/** Polls VmRSS on a timer; the peak covers every scenario because the sampler runs for the whole bench. */
export class RssSampler {
  peak = 0;
  samples = 0;
  private timer?: NodeJS.Timeout;

  constructor(private readonly pid: number, private readonly everyMs = 200) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.everyMs);
    this.timer.unref(); // never keeps the bench alive on its own
  }

  sample(): number {
    const rss = rssBytes(this.pid);
    if (Number.isFinite(rss)) {
      this.samples++;
      if (rss > this.peak) this.peak = rss;
    }
    return rss;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
