// What a file was doing when it ran out of time: the tests it had started and not ended (the progress reporter's
// file), and Node's diagnostic report of the process (asked for with SIGUSR2 before the kill): where its JavaScript
// stood and which handles (sockets, timers, child processes) kept it alive.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { unfinished } from './progress-reporter.mjs';

/** The flags that make a test process write its report into `dir` on SIGUSR2. */
export function reportArgs(dir) {
  mkdirSync(dir, { recursive: true });
  return ['--report-on-signal', '--report-signal=SIGUSR2', `--report-directory=${dir}`];
}

/** Asks the process for its report and describes the hang; resolves within a few seconds whatever happens. */
export async function hangReport(pid, dir, progressFile) {
  const lines = [];
  const progress = progressFile && existsSync(progressFile) ? readFileSync(progressFile, 'utf8') : '';
  const open = unfinished(progress);
  if (open.length) lines.push(`running: ${open.join('; ')}`);
  else lines.push(progress ? 'every test it started had ended: an after hook or an open handle kept the process alive' : 'no test had started');
  try { process.kill(pid, 'SIGUSR2'); } catch { return lines.join('\n'); }
  let file;
  for (let i = 0; i < 60 && !file; i++) {
    await new Promise((r) => setTimeout(r, 50));
    file = readdirSync(dir).find((f) => f.endsWith('.json'));
  }
  if (!file) return [...lines, 'no diagnostic report (the process did not answer SIGUSR2)'].join('\n');
  await new Promise((r) => setTimeout(r, 200)); // the report is written in one go, but give it time to finish
  try {
    const report = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8'));
    const stack = report.javascriptStack?.stack?.filter((l) => !l.includes('node:internal')).slice(0, 8) ?? [];
    lines.push(`JavaScript: ${report.javascriptStack?.message ?? '?'}`, ...stack.map((l) => `  ${l.trim()}`));
    const handles = (report.libuv ?? []).filter((h) => h.is_active && h.is_referenced && h.type !== 'signal');
    lines.push('handles keeping it alive:', ...handles.map((h) => `  ${h.type}${h.localEndpoint ? ` ${JSON.stringify(h.localEndpoint)}` : ''}${h.remoteEndpoint ? ` → ${JSON.stringify(h.remoteEndpoint)}` : ''}${h.pid ? ` pid ${h.pid}` : ''}${h.timeout !== undefined ? ` timeout ${h.timeout}` : ''}`));
  } catch (err) {
    lines.push(`the diagnostic report did not parse: ${err.message}`);
  }
  return lines.join('\n');
}
