// The import graph of a TypeScript tree, type-only imports included (they tie layers as much as value imports do),
// and the two things checked on it: circles among files, and imports that run up (or across) the layers named in
// docs/contributors/architecture.md.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface ImportGraph {
  root: string;
  /** Files relative to `root`, each with the files of the tree it imports (relative too). */
  edges: Map<string, Set<string>>;
}

// `import … from`, `import type … from`, `export … from`, a side-effect `import '…'` and a dynamic `import('…')`.
const importRe = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

export function importGraph(root: string, skip = /^generated$/): ImportGraph {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) { if (!skip.test(n)) walk(p); } else if (n.endsWith('.ts') && !n.endsWith('.d.ts')) files.push(p);
    }
  };
  walk(root);
  const known = new Set(files);
  const edges = new Map<string, Set<string>>();
  for (const f of files) {
    const to = new Set<string>();
    for (const m of readFileSync(f, 'utf8').matchAll(importRe)) {
      const base = resolve(dirname(f), m[1] ?? m[2]);
      const hit = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')].find((c) => known.has(c));
      if (hit && hit !== f) to.add(relative(root, hit));
    }
    edges.set(relative(root, f), to);
  }
  return { root, edges };
}

/** Every group of files that import each other in a loop (strongly connected components of more than one file). */
export function importCircles(g: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next); low.set(v, next); next++;
    stack.push(v); onStack.add(v);
    for (const w of g.edges.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do { w = stack.pop()!; onStack.delete(w); group.push(w); } while (w !== v);
    if (group.length > 1) circles.push(group.sort());
  };
  for (const v of g.edges.keys()) if (!index.has(v)) visit(v);
  return circles;
}

/** A file's layer unit: its directory under the root, or `.` for a file at the root. */
export const unitOf = (file: string) => (file.includes('/') ? file.split('/')[0] : '.');

/**
 * Imports that break the layering: `layers` lists the units (directories) bottom-up, one layer a list; a file may
 * import its own unit and any unit of a lower layer, nothing else. A unit in no layer is reported too, so a new
 * directory has to be placed before it is used.
 */
export function layerBreaches(g: ImportGraph, layers: string[][]): string[] {
  const rank = new Map<string, number>();
  layers.forEach((units, i) => units.forEach((u) => rank.set(u, i)));
  const out: string[] = [];
  for (const [from, tos] of g.edges) {
    const a = unitOf(from);
    if (!rank.has(a)) { out.push(`${from}: its directory ${a}/ is in no layer`); continue; }
    for (const to of tos) {
      const b = unitOf(to);
      if (a === b || !rank.has(b)) continue; // an unlayered target is reported as a file of its own
      if (rank.get(b)! > rank.get(a)!) out.push(`${from} imports ${to}: ${a} (layer ${rank.get(a)! + 1}) may not import ${b} (layer ${rank.get(b)! + 1}, above it)`);
      else if (rank.get(b) === rank.get(a)) out.push(`${from} imports ${to}: ${a} and ${b} share layer ${rank.get(a)! + 1}, and a layer imports only those below it`);
    }
  }
  return out.sort();
}

/**
 * The layers as `docs/contributors/architecture.md` names them: the table under its "Layers" heading, one row a
 * layer, numbered from the bottom, its directories in backticks (`pipeline/`; `*.ts` for the files at the root of src/).
 */
export function documentedLayers(markdown: string): string[][] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Layers'));
  if (!section) throw new Error('architecture.md has no "## Layers" section');
  const rows = [...section.matchAll(/^\|\s*(\d+)\s*\|([^|]*)\|/gm)].map((m) => ({ n: Number(m[1]), units: [...m[2].matchAll(/`([^`]+)`/g)].map((u) => unitNamed(u[1])) }));
  rows.sort((a, b) => a.n - b.n);
  rows.forEach((r, i) => { if (r.n !== i + 1) throw new Error(`the layers table skips or repeats layer ${i + 1}`); });
  return rows.map((r) => r.units);
}

const unitNamed = (text: string) => (text === '*.ts' ? '.' : text.replace(/^src\//, '').replace(/\/$/, ''));
