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
}

const cell = (s: string | undefined) => (s ?? '').replace(/\|/g, '\\|');
const verdict = (r: Row) => (r.pass === undefined ? '' : r.pass ? 'pass' : '**miss**');

function table(rows: Row[]): string[] {
  const out = ['| metric | target | gateway | direct | gateway − direct | result |', '|---|---|---|---|---|---|'];
  for (const r of rows) out.push(`| ${[r.metric, r.target, r.gateway, r.direct, r.delta, verdict(r)].map(cell).join(' | ')} |`);
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
    `- runs: ${i.runs} per measurement, gateway and direct interleaved; figures are medians of the runs`,
    `- took: ${i.seconds.toFixed(0)} s; targets met: ${passed} of ${all.length}`,
    '',
    'Direct = the same request sent straight to the simulator with its own key; "gateway − direct" is the median of',
    'the per-run differences. The load generator shares a core with the simulator, so absolute figures are this',
    "rig's, and the differences are what the gateway adds.",
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
