// Runs the test files of dist/test/ (or the files and directories named) a few at a time, each in a node --test
// process of its own, longest first, and prints one line per file as it ends, the whole output of a file that failed,
// the totals and the ten slowest files. Exits non-zero when a file failed, timed out or left processes running.
//
//   node scripts/run-tests.mjs [--concurrency N] [--file-timeout S] [--verbose] [--also 'command'] [--save-estimates] [path ...]
//
// --concurrency: files at once (default: TEST_CONCURRENCY, else 3); --file-timeout: seconds a file may take before it
// is killed and failed (default 600); --verbose: every file's output, not only a failed one's; --also: a command run
// in the same pool as a file is (the generated-file checks), failing the run as one does; --save-estimates: after a
// whole run that passed, rewrite the committed durations the order goes by on a fresh clone.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { leftovers } from './test-runner/leftovers.mjs';
import { order, remember, saveEstimates } from './test-runner/durations.mjs';
import { counts, emptyCounts, addCounts } from './test-runner/counts.mjs';
import { reapedCpuMs } from './test-runner/cpu.mjs';
import { hangReport, reportArgs } from './test-runner/hang-report.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    concurrency: { type: 'string', default: process.env.TEST_CONCURRENCY ?? '3' },
    'file-timeout': { type: 'string', default: '600' },
    verbose: { type: 'boolean', default: false },
    also: { type: 'string', multiple: true, default: [] },
    'save-estimates': { type: 'boolean', default: false },
  },
});
const concurrency = Math.max(1, Number(opts.concurrency) || 1);
const fileTimeoutMs = Number(opts['file-timeout']) * 1000;

/** The test files: `*.test.js` in a directory named (not its helpers/), or a file named as it is. */
function testFiles(paths) {
  const out = [];
  for (const p of paths.length ? paths : ['dist/test']) {
    const abs = resolve(p);
    if (!existsSync(abs)) throw new Error(`no such test file or directory: ${p}`);
    if (statSync(abs).isDirectory()) out.push(...readdirSync(abs).filter((f) => f.endsWith('.test.js')).sort().map((f) => join(abs, f)));
    else out.push(abs);
  }
  return out;
}

const scratch = mkdtempSync(join(tmpdir(), 'switchyard-run-tests-'));
const reporter = new URL('./test-runner/progress-reporter.mjs', import.meta.url).href;
const jobs = [
  ...opts.also.map((command) => ({ name: command, command: 'bash', args: ['-c', command], check: true })),
  // The file is the process's main module (no `node --test` runner above it: one process less per file); the spec
  // reporter writes what a reader sees, the progress reporter what was running if the file has to be killed.
  ...testFiles(positionals).map((file, i) => {
    const [progress, reports, cwd] = [join(scratch, `${i}.progress`), join(scratch, `${i}.reports`), join(scratch, `${i}.cwd`)];
    const args = [...reportArgs(reports), '--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${reporter}`, `--test-reporter-destination=${progress}`, file];
    // A working directory of its own: what a test writes to a relative path (a default such as data/) lands neither
    // in the checkout nor where another file writes.
    mkdirSync(cwd);
    return { name: relative(root, file), command: process.execPath, args, progress, reports, cwd };
  }),
];
const queue = order(jobs);
const running = new Map(); // pid → job, for the signal handler
const results = [];
const t0 = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const cpu = (r) => (r.cpuMs === undefined ? '' : ` (cpu ${seconds(r.cpuMs)})`);

/** Runs one job in a process group of its own, so that what it started can be found and stopped when it ends. */
function run(job) {
  return new Promise((done) => {
    const started = Date.now();
    const child = spawn(job.command, job.args, { cwd: job.cwd ?? root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    running.set(child.pid, job);
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    let timedOut = false;
    let hang = '';
    const timer = setTimeout(async () => {
      timedOut = true;
      if (job.reports) hang = await hangReport(child.pid, job.reports, job.progress);
      killGroup(child.pid);
    }, fileTimeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      const cpuMs = reapedCpuMs();
      // A process the file started and did not stop keeps the group alive; it would hold the pipes open too.
      const left = timedOut ? [] : leftovers(child.pid);
      killGroup(child.pid);
      running.delete(child.pid);
      const finish = () => done({ job, ms, cpuMs, code, signal, timedOut, hang, left, output });
      // The pipes close once the last writer is gone; wait briefly for output still in flight.
      let closed = false;
      child.once('close', () => { closed = true; finish(); });
      setTimeout(() => { if (!closed) { child.stdout.destroy(); child.stderr.destroy(); finish(); } }, 2000).unref();
    });
  }).then((r) => {
    const c = r.job.check ? emptyCounts() : counts(r.output);
    const problems = [];
    if (r.timedOut) problems.push(`timed out after ${seconds(fileTimeoutMs)}`);
    else if (r.code !== 0) problems.push(r.signal ? `killed by ${r.signal}` : `exit code ${r.code}`);
    if (r.left.length) problems.push(`left ${r.left.length} process(es) running, killed: ${r.left.join('; ')}`);
    const failed = problems.length > 0;
    results.push({ ...r, counts: c, failed });
    const tests = r.job.check ? '' : `  ${c.tests} tests${c.skipped ? `, ${c.skipped} skipped` : ''}${c.todo ? `, ${c.todo} todo` : ''}`;
    const line = `${failed ? '✖' : '✔'} ${r.job.name}  ${seconds(r.ms)}${cpu(r)}${tests}  [${results.length}/${jobs.length}, ${seconds(Date.now() - t0)}]`;
    if (failed || opts.verbose) {
      const hang = r.hang ? `\n${r.hang}` : '';
      process.stdout.write(`\n${'─'.repeat(100)}\n${line}${failed ? `: ${problems.join('; ')}` : ''}\n${r.output.trimEnd()}${hang}\n${'─'.repeat(100)}\n\n`);
    } else {
      process.stdout.write(`${line}\n`);
    }
  });
}

function killGroup(pid) {
  try { process.kill(-pid, 'SIGKILL'); } catch { /* already gone */ }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const pid of running.keys()) killGroup(pid);
    rmSync(scratch, { recursive: true, force: true });
    process.exit(130);
  });
}

console.log(`${jobs.length - opts.also.length} test files, ${concurrency} at a time${opts.also.length ? `, and ${opts.also.length} check(s)` : ''}`);
await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
  for (let job = queue.shift(); job; job = queue.shift()) await run(job);
}));

rmSync(scratch, { recursive: true, force: true });
const total = results.reduce((s, r) => addCounts(s, r.counts), emptyCounts());
const failed = results.filter((r) => r.failed);
const files = results.filter((r) => !r.job.check);
remember(files.filter((r) => !r.failed).map((r) => [r.job.name, r.ms]));
if (opts['save-estimates'] && !failed.length) saveEstimates(files.map((r) => [r.job.name, r.ms]));

console.log(`\nslowest files:`);
for (const r of [...files].sort((a, b) => b.ms - a.ms).slice(0, 10)) console.log(`  ${seconds(r.ms).padStart(8)}${cpu(r).padEnd(16)}  ${r.job.name}`);
console.log(`\n${files.length} files, ${total.tests} tests: ${total.pass} passed, ${total.fail} failed, ${total.skipped} skipped, ${total.todo} todo, ${total.cancelled} cancelled`);
const cpuTotal = results.reduce((s, r) => s + (r.cpuMs ?? 0), 0);
console.log(`wall ${seconds(Date.now() - t0)} at ${concurrency} files at once${cpuTotal ? `, cpu ${seconds(cpuTotal)}` : ''}`);
if (failed.length) {
  console.log(`\nFAILED (${failed.length}):`);
  for (const r of failed) console.log(`  ${r.job.name}`);
  process.exitCode = 1;
}
