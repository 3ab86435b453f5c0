// Renders the results as Markdown: the machine and run settings, then one table per scenario with target and pass/miss.
import { readFileSync } from 'node:fs';
import { cpus, release } from 'node:os';
import type { Mode, Row, Section } from './scenario.js';

export interface Machine { nproc: number; cpu: string; node: string; kernel: string; pinning: string; fdLimit: string }

export function describeMachine(pinning: string, fdLimit: number): Machine {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu;
  } catch { /* not Linux: os.cpus() is good enough */ }
  return {
    nproc: cpus().length, cpu: cpu.trim(), node: process.version, kernel: release(), pinning,
    fdLimit: Number.isFinite(fdLimit) ? String(fdLimit) : 'unlimited',
  };
}

export interface ReportInput {
  mode: Mode;
  date: Date;
  runs: number;
  seconds: number;
  machine: Machine;
  interference: string;
  sections: Section[];
  notes: string[];
  complete: boolean;
  /** Speed targets whose scenario did not run (not selected, skipped, failed), named in the summary. */
  missingHeadlines?: string[];
}

const cell = (s: string | undefined) => (s ?? '').replace(/\|/g, '\\|');
const verdict = (r: Row) => (r.pass === undefined ? '' : r.pass ? 'pass' : '**miss**');

function table(rows: Row[]): string[] {
  // The bare pass-through's columns only where a scenario measured it.
  const withBare = rows.some((r) => r.bare !== undefined || r.vsBare !== undefined);
  const head = withBare
    ? ['metric', 'target', 'gateway', 'bare', 'direct', 'gateway vs bare', 'gateway − direct', 'result']
    : ['metric', 'target', 'gateway', 'direct', 'gateway − direct', 'result'];
  const out = [`| ${head.join(' | ')} |`, `|${head.map(() => '---|').join('')}`];
  for (const r of rows) {
    const cells = withBare
      ? [r.metric, r.target, r.gateway, r.bare, r.direct, r.vsBare, r.delta, verdict(r)]
      : [r.metric, r.target, r.gateway, r.direct, r.delta, verdict(r)];
    out.push(`| ${cells.map(cell).join(' | ')} |`);
  }
  return out;
}

/** The speed targets, gathered from the scenarios that measure them, in one table at the top. */
function summary(rows: Row[], missing: string[]): string[] {
  if (!rows.length) return []; // none of those scenarios ran (e.g. `--soak` alone)
  const out = ['', '## Speed targets (issue: ratios to a bare node:http pass-through in the same run)', ''];
  out.push('| metric | target | gateway | bare | gateway vs bare | result |', '|---|---|---|---|---|---|');
  for (const r of rows) out.push(`| ${[r.metric, r.target, r.gateway, r.bare, r.vsBare, verdict(r)].map(cell).join(' | ')} |`);
  out.push('');
  out.push(
    '- Bare = `bench/bare-proxy.ts`, ~40 lines of `node:http`: pooled keep-alive agent, key swapped, status, headers and',
    '  bodies piped, nothing else. It runs on the gateway\'s core, loaded only while the gateway idles, in the same run.',
    '- A ratio compares the gateway with that baseline on this machine, minutes apart: machine speed and slow drift largely cancel out, the gateway\'s code does not.',
  );
  if (missing.length) out.push(`- Not measured in this run: ${missing.join('; ')}.`);
  return out;
}

export function renderReport(i: ReportInput): string {
  const m = i.machine;
  const all = i.sections.flatMap((s) => s.rows).filter((r) => r.pass !== undefined);
  const passed = all.filter((r) => r.pass).length;
  const lines = [
    `# Switchyard benchmark — ${i.mode} mode`,
    '',
    `- date: ${i.date.toISOString()}${i.complete ? '' : ' (**incomplete: aborted**)'}`,
    `- machine: ${m.nproc} CPUs (${m.cpu}), Linux ${m.kernel}, Node ${m.node}, open-file limit ${m.fdLimit}`,
    `- pinning: ${m.pinning}`,
    `- interference: ${i.interference}`,
    `- runs: ${i.runs} per measurement, gateway, bare pass-through (where measured) and direct interleaved; figures are medians of the runs`,
    `- took: ${i.seconds.toFixed(0)} s; targets met: ${passed} of ${all.length}`,
    '',
    'Direct = the same request sent straight to the simulator with its own key; "gateway − direct" is the median of',
    'the per-run differences. The load generator shares a core with the simulator, so absolute figures are this',
    "rig's, and the differences are what the gateway adds. Bare = a bare node:http pass-through on the gateway's core",
    '(`bench/bare-proxy.ts`): what any proxy costs; "gateway vs bare" is what the gateway costs beyond that.',
    ...summary(i.sections.flatMap((s) => s.headline ?? []), i.missingHeadlines ?? []),
  ];
  for (const s of i.sections) {
    lines.push('', `## ${s.title}`);
    if (s.rows.length) lines.push('', ...table(s.rows));
    if (s.notes?.length) lines.push('', ...s.notes.map((n) => `- ${n}`));
    if (s.perRun && Object.keys(s.perRun).length) {
      lines.push('', 'Per-run values:', '');
      for (const [k, v] of Object.entries(s.perRun)) lines.push(`- ${k}: ${v.map((x) => (Number.isFinite(x) ? +x.toFixed(3) : '—')).join(', ')}`);
    }
  }
  if (i.notes.length) lines.push('', '## Notes', '', ...i.notes.map((n) => `- ${n}`));
  return `${lines.join('\n')}\n`;
}
