// `npm run bench [-- --full]`: starts the simulator and the gateway, runs every scenario, writes and prints the report.
import { createReadStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setMaxListeners } from 'node:events';
import { canPin, CLIENT_CPU, GATEWAY_CPU, pinSelf, startRig, type Rig } from './processes.js';
import { cpuSeconds, openFileLimit, perCpuBusySeconds, RssSampler, rssBytes, systemCpuSeconds } from './proc-stats.js';
import { describeMachine, renderReport } from './report.js';
import { findProfile, topSelfTime } from './cpu-profile.js';
import type { BenchContext, Foreign, Mode, Scenario, Section } from './scenario.js';
import { fmt } from './stats.js';
import { chatJson } from './scenarios/chat-json.js';
import { openLoopScenario } from './scenarios/open-loop.js';
import { sseScenario } from './scenarios/sse.js';
import { sseBurst } from './scenarios/sse-burst.js';
import { sseCapacity } from './scenarios/sse-capacity.js';
import { soak } from './scenarios/soak.js';
import { download } from './scenarios/download.js';
import { workers } from './scenarios/workers.js';
import { tasks } from './scenarios/tasks.js';
import { connectionSoak } from './scenarios/connection-soak.js';
import { usageReport } from './scenarios/usage-report.js';
import { sseTranslated } from './scenarios/sse-translated.js';
import { otelScenario } from './scenarios/otel.js';
import { slowStreams } from './scenarios/slow-streams.js';
import { pricing } from './scenarios/pricing.js';
import { requestLog } from './scenarios/request-log.js';
import { redisMemory } from './scenarios/redis-memory.js';
import { realtimeRelay } from './scenarios/realtime.js';
import { speechFirstByte } from './scenarios/speech.js';

// `tasks` runs last: it leaves thousands of open tasks that the gateway's poller keeps polling afterwards.
const scenarios: Scenario[] = [chatJson, openLoopScenario, sseScenario, sseBurst, sseTranslated, sseCapacity, download, speechFirstByte, realtimeRelay, workers, soak, connectionSoak, otelScenario, slowStreams, redisMemory, tasks, usageReport, pricing, requestLog];

const usage = `usage: npm run bench [-- --full] [--soak] [--otel] [--slow-streams N] [--slow-seconds S] [--runs N] [--soak-minutes N] [--soak-seconds N] [--only a,b] [--profile] [--keep-tmp] [--verbose]
  (default)         quick mode: 3 runs, no soak, 1,000-stream check only; about 9 minutes
  --full            full mode: 5 runs, stream ramp 250-2,000, soak (default 10 min), connection soak
  --soak            run the connection soak (20,000 idle connections, about 2 minutes) and only it,
                    plus any scenario --only names
  --otel            run the tracing comparison (a gateway without OpenTelemetry against one exporting every
                    request's spans to a local OTLP receiver) and only it, plus any scenario --only names
  --slow-streams N  run the many-long-streams scenario (N concurrent slow SSE streams, one event a second;
                    the issue's size is 5000) and only it, plus any scenario --only names; it is in --full too
                    (5,000 x 60 s), and \`--only slow-streams\` in quick mode runs a short 1,000 x 15 s
  --slow-seconds S  how long each of those streams lasts (5-120, default 60 with --slow-streams)
  --runs N          interleaved gateway/bare/direct runs per measurement (1-50)
  --soak-minutes N  full mode soak length (0-120; 0 skips it)
  --soak-seconds N  connection soak hold (10-70, default 60; stays under the 75 s keep-alive timeout)
  --only a,b        run only these scenarios (${scenarios.map((s) => s.name).join(', ')})
  --profile         run the gateway under node --cpu-prof and list its top self-time functions (slows it down)
  --keep-tmp        keep the temp dir (gateway log, store, config, profile)
  --verbose         echo the simulator's and gateway's own output`;

/** The scenarios that measure the speed targets (the report's summary), and what each one measures. */
const speedTargets: Record<string, string> = {
  [chatJson.name]: 'CPU per request at 1 and 64 connections, both logs on and off',
  [sseScenario.name]: 'SSE first-event delay and burst share at 100 streams',
  [sseBurst.name]: 'first events of 100 streams opened at once',
  [download.name]: 'download MB/s and RSS growth',
  [sseTranslated.name]: 'translated-stream first-event delay',
  [workers.name]: 'CPU per request at 2 workers ÷ 1 worker, translated first events at 2 workers',
};

const root = fileURLToPath(new URL('../../', import.meta.url)); // dist/bench/ → repository root
const MB = 1024 * 1024;

function options() {
  const { values } = parseArgs({
    options: {
      full: { type: 'boolean' }, soak: { type: 'boolean' }, otel: { type: 'boolean' }, runs: { type: 'string' }, only: { type: 'string' },
      'soak-minutes': { type: 'string' }, 'soak-seconds': { type: 'string' },
      'slow-streams': { type: 'string' }, 'slow-seconds': { type: 'string' },
      profile: { type: 'boolean' }, 'keep-tmp': { type: 'boolean' }, verbose: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) { console.log(usage); process.exit(0); }
  const mode: Mode = values.full ? 'full' : 'quick';
  const int = (v: string | undefined, dflt: number, lo: number, hi: number, name: string) => {
    const n = v === undefined ? dflt : Number(v);
    if (!Number.isInteger(n) || n < lo || n > hi) { console.error(`${name} must be an integer from ${lo} to ${hi}\n${usage}`); process.exit(2); }
    return n;
  };
  let only = values.only?.split(',').map((x) => x.trim()).filter(Boolean);
  const unknown = only?.filter((n) => !scenarios.some((s) => s.name === n)) ?? [];
  if (unknown.length) { console.error(`--only: unknown scenario ${unknown.join(', ')}\n${usage}`); process.exit(2); }
  const connSoak = Boolean(values.soak);
  // --soak: the connection soak alone, or with the scenarios --only names as well.
  if (connSoak) only = [...new Set([connectionSoak.name, ...(only ?? [])])];
  const otel = Boolean(values.otel);
  if (otel) only = [...new Set([otelScenario.name, ...(only ?? [])])];
  // --slow-streams N: the many-long-streams scenario at that size, alone or with the --only ones.
  const slow = values['slow-streams'] === undefined ? undefined
    : { streams: int(values['slow-streams'], 5000, 10, 20_000, '--slow-streams'), seconds: int(values['slow-seconds'], 60, 5, 120, '--slow-seconds') };
  if (slow) only = [...new Set([slowStreams.name, ...(only ?? [])])];
  return {
    only,
    mode,
    connSoak,
    otel,
    slow,
    soakSeconds: int(values['soak-seconds'], 60, 10, 70, '--soak-seconds'),
    runs: int(values.runs, mode === 'full' ? 5 : 3, 1, 50, '--runs'),
    soakMinutes: mode === 'full' ? int(values['soak-minutes'], 10, 0, 120, '--soak-minutes') : 0,
    profile: Boolean(values.profile),
    keepTmp: Boolean(values['keep-tmp']),
    verbose: Boolean(values.verbose),
  };
}

/** A kept file named in the report by its place under the OS temp dir: no machine's path goes into a committed report. */
const inTmp = (path: string) => `\`${relative(tmpdir(), path)}\` in the OS temp dir`;

/** Counts access-log lines without loading the file: proof that logging was on, and how much it wrote. */
async function countLines(file: string): Promise<{ lines: number; bytes: number }> {
  let lines = 0, bytes = 0;
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    }
  } catch { /* no log written */ }
  return { lines, bytes };
}

/**
 * CPU that processes outside the bench used meanwhile (machine busy time less ours), and the hypervisor's steal:
 * on a shared 2-core machine either one moves every figure, so the report says how much there was.
 */
function otherLoad(sys0: { busy: number; steal: number }, own0: NodeJS.CpuUsage, children: number, wallS: number): string {
  const sys1 = systemCpuSeconds();
  const own = process.cpuUsage(own0);
  const other = sys1.busy - sys0.busy - (own.user + own.system) / 1e6 - children;
  const steal = sys1.steal - sys0.steal;
  if (!Number.isFinite(other)) return 'not measured';
  const share = Math.max(0, other) / wallS;
  const warn = share > 0.1 || steal / wallS > 0.05 ? ' — **the machine was not quiet: figures are noisier than usual**' : '';
  return `other processes used ${fmt(Math.max(0, other), 1)} CPU-s (${fmt(share * 100, 0)} % of one core on average), steal ${fmt((steal / wallS) * 100, 1)} %${warn}`;
}

/**
 * Per-run reading of what other processes took of each pinned core: the core's busy time less the CPU time of the
 * rig's processes pinned there (gateway and bare proxy on GATEWAY_CPU; simulator and this process on CLIENT_CPU).
 */
function foreignLoad(rig: Rig): () => () => Foreign {
  const read = () => {
    const own = process.cpuUsage();
    let gw = NaN, cl = NaN;
    try {
      const ws = rig.bareWsPid();
      gw = cpuSeconds(rig.gateway.pid) + cpuSeconds(rig.bare.pid) + (ws === undefined ? 0 : cpuSeconds(ws));
      cl = cpuSeconds(rig.sim.pid) + (own.user + own.system) / 1e6;
    } catch { /* a child is gone: nothing to attribute */ }
    const busy = perCpuBusySeconds();
    return { t: performance.now(), gw, cl, busyGw: busy[GATEWAY_CPU] ?? NaN, busyCl: busy[CLIENT_CPU] ?? NaN };
  };
  return () => {
    const a = read();
    return () => {
      const b = read();
      const wall = (b.t - a.t) / 1000;
      return {
        gatewayCore: (b.busyGw - a.busyGw - (b.gw - a.gw)) / wall,
        clientCore: (b.busyCl - a.busyCl - (b.cl - a.cl)) / wall,
      };
    };
  };
}

async function main(): Promise<number> {
  const o = options();
  const t0 = performance.now();
  const date = new Date();
  const log = (msg: string) => console.error(`[bench ${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

  const pin = canPin();
  const pinned = pin && pinSelf(CLIENT_CPU);
  const pinning = pinned
    ? `gateway and bare pass-through on CPU ${GATEWAY_CPU} (never loaded at once); simulator and load generator on CPU ${CLIENT_CPU} (taskset)`
    : 'none (taskset missing or fewer than 2 CPUs): all processes share every CPU, so figures are noisier';

  const ac = new AbortController();
  setMaxListeners(100_000, ac.signal); // one listener per open stream or load run: thousands at the capacity levels
  let signals = 0;
  const onSignal = (sig: string) => {
    // First signal: stop the scenarios and clean up; a second one means "now".
    if (++signals > 1) process.exit(130);
    log(`${sig}: stopping`);
    ac.abort(new Error(sig));
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  // Every scenario is bounded on its own; this is the backstop for a bug or a hung child. (Quick mode took 5.5-6 minutes
  // before speech and realtime, which add about 1.5 minutes to it and 3 to full mode; workers adds 1.5 to quick mode
  // and about 2 to full, where it replaced the 1-minute cluster-scaling.)
  const budgetMs = (o.mode === 'full' ? 43 + o.soakMinutes : o.connSoak ? 12 : 11) * 60_000 + (o.slow ? 2 * (o.slow.seconds + 90) * 1000 : 0);
  const watchdog = setTimeout(() => { log('time budget exceeded: aborting'); ac.abort(new Error('watchdog')); }, budgetMs);
  watchdog.unref();

  const profileDir = o.profile ? mkdtempSync(join(tmpdir(), 'switchyard-prof-')) : undefined;
  log(`${o.mode} mode, ${o.runs} runs; starting simulator, gateway and bare pass-through`);
  let rig: Rig | undefined;
  const sections: Section[] = [];
  const notes: string[] = [];
  let complete = false;
  let interference = 'not measured';
  const sys0 = systemCpuSeconds();
  const own0 = process.cpuUsage();
  let scenarioChildCpu = 0; // CPU of processes the scenarios started and stopped themselves
  const missingHeadlines: string[] = [];
  try {
    rig = await startRig({
      root, pin: pinned, profileDir, logLevel: 'info', verbose: o.verbose,
      onCrash: (why) => { log(why); notes.push(why.replace(/\n/g, ' ')); ac.abort(new Error(why)); },
    });
    const sampler = new RssSampler(rig.gateway.pid);
    const idleRss = rssBytes(rig.gateway.pid);
    sampler.start();
    const ctx: BenchContext = {
      mode: o.mode, runs: o.runs, soakMinutes: o.soakMinutes, soakSeconds: o.soakSeconds, slowStreams: o.slow,
      gateway: { name: 'gateway', url: rig.gatewayUrl, key: rig.gatewayKey },
      teamGateway: { name: 'gateway', url: rig.gatewayUrl, key: rig.teamKey },
      bare: { name: 'bare', url: rig.bareUrl, key: rig.gatewayKey },
      direct: { name: 'direct', url: rig.directUrl, key: rig.directKey },
      gatewayPid: rig.gateway.pid, barePid: rig.bare.pid, simPid: rig.sim.pid, signal: ac.signal, log,
      childCpu: (seconds) => { if (Number.isFinite(seconds)) scenarioChildCpu += seconds; },
      foreignLoad: pinned ? foreignLoad(rig) : undefined,
      extraGateway: async (name, env, pinned) => { const g = await rig!.extraGateway(name, env, pinned); return { url: g.url, pid: g.child.pid, stop: g.stop }; },
      bareWs: async () => { const b = await rig!.bareWs(); return { url: b.url, pid: b.child.pid }; },
    };
    for (const s of scenarios) {
      const speed = speedTargets[s.name];
      if (ac.signal.aborted) { if (speed) missingHeadlines.push(`${speed} (${s.name}: aborted)`); continue; }
      if (o.only && !o.only.includes(s.name)) { if (speed) missingHeadlines.push(`${speed} (${s.name} not in --only)`); continue; }
      // --soak, --otel and --slow-streams run theirs in quick mode too, as does --only naming slow-streams (its short form)
      // or redis-memory (it starts Redis servers of its own: full mode only otherwise).
      const forced = (o.connSoak && s === connectionSoak) || (o.otel && s === otelScenario)
        || (s === slowStreams && (o.slow !== undefined || o.only?.includes(s.name) === true))
        || (s === redisMemory && o.only?.includes(s.name) === true);
      if (!forced && ((o.mode === 'quick' && !s.quick) || (s === soak && o.soakMinutes === 0))) {
        notes.push(`${s.name}: skipped in ${o.mode} mode${o.mode === 'full' ? ' (--soak-minutes 0)' : ' (run with --full)'}.`);
        continue;
      }
      try {
        sections.push(await s.run(ctx));
      } catch (err) {
        // One broken scenario must not cost the others' results.
        log(`${s.name} failed: ${(err as Error).stack ?? err}`);
        sections.push({ title: `${s.name}: failed`, rows: [], notes: [String((err as Error).message ?? err)] });
        if (speed) missingHeadlines.push(`${speed} (${s.name} failed)`);
      }
    }
    sampler.stop();
    try {
      const ws = rig.bareWsPid();
      const rigCpu = cpuSeconds(rig.gateway.pid) + cpuSeconds(rig.bare.pid) + cpuSeconds(rig.sim.pid) + (ws === undefined ? 0 : cpuSeconds(ws));
      interference = otherLoad(sys0, own0, rigCpu + scenarioChildCpu, (performance.now() - t0) / 1000);
    } catch { /* a child is gone (see the notes): its CPU time went with it */ }
    sections.push({
      title: 'Gateway memory',
      rows: [
        { metric: 'RSS after start (idle)', gateway: fmt(idleRss / MB, 1, ' MB') },
        { metric: `peak RSS during the runs (${sampler.samples} samples)`, gateway: fmt(sampler.peak / MB, 1, ' MB') },
      ],
    });
    complete = !ac.signal.aborted;
  } finally {
    if (rig) {
      await rig.stop();
      const { lines, bytes } = await countLines(rig.logFile);
      notes.push(`Gateway logging on (LOG_LEVEL=info, pino to a temp file): ${lines.toLocaleString('en-US')} lines, ${fmt(bytes / MB, 1)} MB written.`);
      notes.push('Group rate limits are raised to 1e9 requests/min and max_inflight_tasks to 1e6 in a temp copy of channels.yaml (the shipped 600/min would throttle the load in a second); everything else is the repository config.');
      if (o.keepTmp) { notes.push(`Temp dir kept: ${inTmp(rig.tmp)}.`); log(`temp dir kept: ${rig.tmp}`); }
      else rmSync(rig.tmp, { recursive: true, force: true });
      if (process.env.SWITCHYARD_BENCH_GATEWAY_FLAGS) notes.push(`Gateway started with node flags \`${process.env.SWITCHYARD_BENCH_GATEWAY_FLAGS}\` (SWITCHYARD_BENCH_GATEWAY_FLAGS): not how it ships.`);
    }
  }
  if (profileDir) {
    const file = findProfile(profileDir);
    if (file) {
      const p = topSelfTime(file, root);
      sections.push({
        title: 'Gateway CPU profile (top self time; --profile run, so the figures above are slowed by the profiler)',
        rows: [],
        notes: [
          `busy ${fmt(p.busyMs, 0, ' ms')}, idle ${fmt(p.idleMs, 0, ' ms')}; profile ${o.keepTmp ? inTmp(file) : '(deleted; use --keep-tmp to keep it)'}`,
          ...p.hot.map((h) => `${fmt(h.share * 100, 1)} % ${fmt(h.selfMs, 0, ' ms')} \`${h.name}\` ${h.where}`),
        ],
      });
    } else notes.push('--profile: the gateway wrote no .cpuprofile (did it exit cleanly?).');
    if (!o.keepTmp) rmSync(profileDir, { recursive: true, force: true });
  }
  const seconds = (performance.now() - t0) / 1000;
  const report = renderReport({ mode: o.mode, date, runs: o.runs, seconds, machine: describeMachine(pinning, openFileLimit('self')), interference, sections, notes, complete, missingHeadlines });
  const dir = join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = date.toISOString().replace(/:/g, '').replace(/\.\d+Z$/, 'Z'); // ISO 8601 basic time: no ':' in file names
  const file = join(dir, `${stamp}-${o.mode}${o.connSoak ? '-soak' : ''}${o.otel ? '-otel' : ''}${o.slow ? '-slow-streams' : ''}${o.profile ? '-profile' : ''}.md`);
  writeFileSync(file, report);
  console.log(report);
  log(`wrote ${relative(root, file)}`);
  return complete ? 0 : signals ? 130 : 1;
}

main().then((code) => process.exit(code), (err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1); // the 'exit' handler in processes.ts kills any child still running
});
