// Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time, idle left out.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

export interface Hot { name: string; where: string; selfMs: number; share: number }

/** Newest profile in the directory, or undefined (the gateway writes one when it exits cleanly). */
export function findProfile(dir: string): string | undefined {
  try {
    const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort();
    return files.length ? join(dir, files.at(-1)!) : undefined;
  } catch {
    return undefined;
  }
}

export function topSelfTime(file: string, root: string, top = 15): { hot: Hot[]; busyMs: number; idleMs: number } {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, { name: string; where: string; us: number }>();
  let idleUs = 0;
  let busyUs = 0;
  // timeDeltas[i] is the time since the previous sample; V8 attributes it to the sample it precedes.
  for (let i = 0; i < p.samples.length; i++) {
    const cf = byId.get(p.samples[i])?.callFrame;
    const dt = p.timeDeltas[i] ?? 0;
    if (!cf) continue;
    if (cf.functionName === '(idle)') { idleUs += dt; continue; }
    busyUs += dt;
    const url = cf.url.startsWith('file://') ? relative(root, new URL(cf.url).pathname) : cf.url;
    const where = url ? `${url}:${cf.lineNumber + 1}` : '';
    const key = `${cf.functionName}\u0000${where}`;
    const e = self.get(key) ?? { name: cf.functionName || '(anonymous)', where, us: 0 };
    e.us += dt;
    self.set(key, e);
  }
  const hot = [...self.values()].sort((a, b) => b.us - a.us).slice(0, top)
    .map((e) => ({ name: e.name, where: e.where, selfMs: e.us / 1000, share: busyUs ? e.us / busyUs : 0 }));
  return { hot, busyMs: busyUs / 1000, idleMs: idleUs / 1000 };
}
