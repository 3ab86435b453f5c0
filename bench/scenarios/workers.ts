// Workers: the gateway with SWITCHYARD_WORKERS=1 and =2, both unpinned. This machine's two cores are shared with the
// simulator and the load generator, so it is judged by CPU accounting, not throughput. Targets: CPU per non-streaming
// request summed over the gateway's processes (primary and workers) at 2 workers ≤ 1.1× one worker's (no cross-worker
// tax); at 2 workers, each translated lane's first event at 100 streams ≤ the untranslated lane's + 2 ms. Reported: RSS
// of the primary and of each idle worker, and RSS per open stream (1,000 slow streams held on the 2-worker gateway).
import { setMaxListeners } from 'node:events';
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { closedLoop } from '../closed-loop.js';
import { childPids, cpuSeconds, openFileLimit, rssBytes, systemCpuSeconds } from '../proc-stats.js';
import { chatBody, type BenchContext, type Row, type Scenario, type Section, type Target } from '../scenario.js';
import { runStream } from '../sse-client.js';
import { fmt, fmtInt, fmtRatio, median, pairedDelta, pairedRatio, percentiles, signed } from '../stats.js';
import { eventIntervalMs, eventsPerStream, laneLoad, lanes, type Lane, type LaneMeasure } from '../translated-lanes.js';
import { sseBody } from './sse.js';

const MB = 1024 * 1024;
const connections = 64;
const cpuTarget = 1.1; // CPU per request at 2 workers ÷ at 1 worker
const streams = 100;
const firstEventTarget = 2; // ms a translated lane's first event may come after the untranslated one's, at 2 workers
const held = 1000; // slow streams held open for the RSS per stream
const heldBatch = 100;
const heldStepMs = 100;
const disturbedShare = 0.1;

interface Gateway {
  label: string;
  target: Target;
  /** The cluster primary; undefined when the gateway runs in one process (SWITCHYARD_WORKERS=1). */
  primary?: number;
  /** The processes serving requests: the primary's children, or the one process itself. */
  workers: number[];
  stop(): Promise<void>;
}

const pidsOf = (g: Gateway) => (g.primary === undefined ? g.workers : [g.primary, ...g.workers]);
const cpuOf = (g: Gateway) => pidsOf(g).reduce((s, p) => s + cpuSeconds(p), 0);
const workersRss = (g: Gateway) => g.workers.reduce((s, p) => s + rssBytes(p), 0);

/** Starts a gateway with `n` workers and waits until all are forked and idle. */
async function start(ctx: BenchContext, n: number): Promise<Gateway> {
  const label = `${n} worker${n > 1 ? 's' : ''}`;
  const g = await ctx.extraGateway(`gateway-${n}-worker${n > 1 ? 's' : ''}`, { SWITCHYARD_WORKERS: String(n) });
  let kids = childPids(g.pid);
  for (let i = 0; i < 150 && n > 1 && kids.length < n && !ctx.signal.aborted; i++) { await sleep(100); kids = childPids(g.pid); }
  if (n > 1 && kids.length < n) throw new Error(`${label}: the primary (pid ${g.pid}) has ${kids.length} children after 15 s`);
  const gw: Gateway = { label, target: { name: 'gateway', url: g.url, key: ctx.gateway.key }, primary: kids.length ? g.pid : undefined, workers: kids.length ? kids : [g.pid], stop: g.stop };
  await idle(gw, ctx.signal);
  return gw;
}

/** Waits (at most 10 s) until none of the gateway's processes used more than one clock tick in 250 ms, twice in a row. */
async function idle(g: Gateway, signal: AbortSignal): Promise<void> {
  let last = pidsOf(g).map(cpuSeconds);
  for (let i = 0, quiet = 0; i < 40 && quiet < 2 && !signal.aborted; i++) {
    await sleep(250);
    const now = pidsOf(g).map(cpuSeconds);
    quiet = now.every((c, k) => c - last[k] <= 0.011) ? quiet + 1 : 0;
    last = now;
  }
}

/**
 * Other processes' CPU over a measurement, as a share of one core: the machine's busy time less the rig's processes
 * (simulator, the idle main gateway and bare proxy, this process, every process of both gateways here). The gateways
 * run on both cores, so the rig's per-core accounting does not apply.
 */
function othersMeter(ctx: BenchContext, gws: Gateway[]): () => () => number {
  const read = () => {
    const own = process.cpuUsage();
    try {
      const rig = cpuSeconds(ctx.simPid) + cpuSeconds(ctx.gatewayPid) + cpuSeconds(ctx.barePid) + gws.reduce((s, g) => s + cpuOf(g), 0);
      return { t: performance.now(), busy: systemCpuSeconds().busy, rig: rig + (own.user + own.system) / 1e6 };
    } catch {
      return { t: performance.now(), busy: NaN, rig: NaN };
    }
  };
  return () => {
    const a = read();
    return () => {
      const b = read();
      return Math.max(0, b.busy - a.busy - (b.rig - a.rig)) / ((b.t - a.t) / 1000);
    };
  };
}

interface Chat {
  rps: number; p50: number; p99: number;
  /** µs of CPU per request: all the gateway's processes, each worker, the primary (NaN without one). */
  cpuUs: number; workerUs: number[]; primaryUs: number;
  /** The gateway's CPU seconds over the run's wall seconds (2.00 = both cores). */
  cores: number;
  failed: number;
  others: number;
}

interface Rss { primary: number; workers: number[] }
const rssOf = (g: Gateway): Rss => ({ primary: g.primary === undefined ? NaN : rssBytes(g.primary), workers: g.workers.map(rssBytes) });

interface Held { n: number; open: number; failed: number; openS: number; before: number; peak: number; after: number; errors: Record<string, number> }

/**
 * Opens `n` slow streams (one event a second) on the gateway, 100 every 100 ms, waits until all had their first event
 * (at most 10 s), samples the workers' summed RSS for 2 s, then closes them all.
 */
async function holdStreams(ctx: BenchContext, g: Gateway, n: number): Promise<Held> {
  await idle(g, ctx.signal);
  const before = workersRss(g);
  const ac = new AbortController();
  const signal = AbortSignal.any([ctx.signal, ac.signal]);
  setMaxListeners(n + 10, signal);
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const body = sseBody(30, 1000); // 30 s: still open when closed here
  let first = 0;
  let allFirst!: () => void;
  const opened = new Promise<void>((resolve) => { allFirst = resolve; });
  const pending: ReturnType<typeof runStream>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n && !signal.aborted; i += heldBatch) {
    for (let j = i; j < Math.min(n, i + heldBatch); j++) {
      pending.push(runStream({
        agent, target: g.target, path: '/v1/chat/completions', body, timeoutMs: 60_000, signal,
        onFirstEvent: () => { if (++first === n) allFirst(); },
      }));
    }
    await sleep(heldStepMs);
  }
  const bound = new AbortController();
  await Promise.race([opened, Promise.all(pending), sleep(10_000, undefined, { signal: bound.signal }).catch(() => undefined)]);
  bound.abort();
  const openS = (performance.now() - t0) / 1000;
  const open = first;
  let peak = workersRss(g);
  for (let k = 0; k < 8 && !ctx.signal.aborted; k++) { await sleep(250); peak = Math.max(peak, workersRss(g)); }
  ac.abort();
  const results = await Promise.all(pending);
  agent.destroy();
  await sleep(1000); // the gateway sees the closes and lets the upstream streams go
  const errors: Record<string, number> = {};
  let failed = 0;
  for (const r of results) {
    if (r.error === 'aborted' && r.status === 200) continue; // closed here, as meant
    failed++;
    const k = r.error ?? `HTTP ${r.status}`;
    errors[k] = (errors[k] ?? 0) + 1;
  }
  return { n, open, failed, openS, before, peak, after: workersRss(g), errors };
}

export const workers: Scenario = {
  name: 'workers',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const chatSeconds = ctx.mode === 'full' ? 5 : 3;
    // Quick mode keeps its run near 90 s: the 1-worker streams, for comparison only, get less time.
    const streamSeconds = (g: Gateway) => (ctx.mode === 'full' ? 2 : g.workers.length > 1 ? 1.5 : 1);
    const body = chatBody();
    const gws: Gateway[] = [];
    try {
      gws.push(await start(ctx, 1));
      gws.push(await start(ctx, 2));
      const [one, two] = gws;
      const others = othersMeter(ctx, gws);
      const rssStart = gws.map(rssOf);

      const chat = async (g: Gateway, secs: number): Promise<Chat> => {
        const watch = Object.fromEntries(pidsOf(g).map((p) => [String(p), () => cpuSeconds(p)]));
        const stop = others();
        const r = await closedLoop({ target: g.target, path: '/v1/chat/completions', body, connections, seconds: secs, signal: ctx.signal, watch });
        const o = stop();
        const [p50, p99] = percentiles(r.latencies, [50, 99]);
        const per = (s: number | undefined) => (s === undefined || r.ok === 0 ? NaN : (s * 1e6) / r.ok);
        const total = Object.values(r.cpu).reduce((s, c) => s + c, 0);
        return {
          rps: r.rps, p50, p99, cpuUs: per(total), workerUs: g.workers.map((p) => per(r.cpu[String(p)])),
          primaryUs: g.primary === undefined ? NaN : per(r.cpu[String(g.primary)]), cores: total / r.seconds, failed: r.non2xx + r.errors, others: o,
        };
      };
      const laneRun = async (g: Gateway, lane: Lane, secs: number) => {
        const stop = others();
        const m = await laneLoad(ctx, g.target, () => cpuOf(g), lane, streams, secs);
        return { ...m, others: stop() };
      };

      // Warm-up, not recorded: JIT, the token cache and keep-alive pools in every worker (round-robin reaches each).
      for (const g of gws) {
        ctx.log(`workers: warm-up, ${g.label}`);
        await chat(g, 2);
        for (const lane of lanes) await laneLoad(ctx, g.target, () => cpuOf(g), lane, 20, 0.4);
      }
      for (const g of gws) await idle(g, ctx.signal);
      const rssWarm = gws.map(rssOf);

      // Memory per open stream, on the 2-worker gateway, while its heap is still the warm-up's (after the loads below
      // it has room left from them, and new streams would fill that first).
      const fds = Math.min(openFileLimit('self'), ...two.workers.map(openFileLimit));
      let hold: Held | undefined;
      if (fds >= held + 1000 && !ctx.signal.aborted) {
        ctx.log(`workers: ${fmtInt(held)} slow streams held, ${two.label}`);
        hold = await holdStreams(ctx, two, held);
        await idle(two, ctx.signal);
      }

      // Non-streaming chat, the two settings interleaved, their order rotated each run.
      const chatRuns: Record<string, Chat[]> = { [one.label]: [], [two.label]: [] };
      for (let i = 0; i < ctx.runs && !ctx.signal.aborted; i++) {
        for (const g of i % 2 ? [two, one] : [one, two]) {
          if (ctx.signal.aborted) break;
          ctx.log(`workers: chat, ${connections} connections, ${g.label}, run ${i + 1}/${ctx.runs}`);
          chatRuns[g.label].push(await chat(g, chatSeconds));
        }
      }

      // 100 concurrent streams on each lane; per lane the two settings interleaved, their order rotated each run.
      type LaneRun = LaneMeasure & { others: number };
      const streamRuns: Record<string, Record<string, LaneRun[]>> = Object.fromEntries(gws.map((g) => [g.label, Object.fromEntries(lanes.map((l) => [l.name, []]))]));
      for (let i = 0; i < ctx.runs && !ctx.signal.aborted; i++) {
        for (const lane of lanes) {
          for (const g of i % 2 ? [one, two] : [two, one]) {
            if (ctx.signal.aborted) break;
            ctx.log(`workers: ${lane.name}, ${streams} streams, ${g.label}, run ${i + 1}/${ctx.runs}`);
            streamRuns[g.label][lane.name].push(await laneRun(g, lane, streamSeconds(g)));
          }
        }
      }

      const rows: Row[] = [];
      const headline: Row[] = [];
      const perRun: Record<string, number[]> = {};
      const col = (g: Gateway, k: keyof Chat) => chatRuns[g.label].map((r) => r[k] as number);
      const ms = (v: number) => fmt(v, 3, ' ms');
      const us = (v: number) => fmt(v, 0, ' µs');
      for (const g of gws) {
        rows.push({ metric: `${g.label}: chat requests/s; latency p50 / p99 (${connections} connections)`, gateway: `${fmtInt(median(col(g, 'rps')))}; ${ms(median(col(g, 'p50')))} / ${ms(median(col(g, 'p99')))}` });
      }
      for (const g of gws) {
        const each = g.workers.map((_, k) => fmt(median(chatRuns[g.label].map((r) => r.workerUs[k])), 0)).join(' + ');
        const primary = g.primary === undefined ? '' : ` + primary ${fmt(median(col(g, 'primaryUs')), 1)}`;
        rows.push({
          metric: `${g.label}: CPU per request, all processes (= each worker${g.primary === undefined ? '' : ' + the primary'})`,
          gateway: `${us(median(col(g, 'cpuUs')))} (${each}${primary} µs)`,
        });
        perRun[`${g.label}: CPU µs per request`] = col(g, 'cpuUs');
        perRun[`${g.label}: req/s`] = col(g, 'rps');
        perRun[`${g.label}: other processes' share of a core, chat runs`] = col(g, 'others');
      }
      const chatFailed = gws.reduce((s, g) => s + col(g, 'failed').reduce((a, b) => a + b, 0), 0);
      const ratio = pairedRatio(col(two, 'cpuUs'), col(one, 'cpuUs'));
      const cpuRow: Row = {
        metric: 'CPU per request, 2 workers ÷ 1 worker (summed over each gateway\'s processes)', target: `≤ ${cpuTarget}×`,
        gateway: fmtRatio(ratio), pass: ratio <= cpuTarget && chatFailed === 0,
      };
      rows.push(cpuRow);
      headline.push({ ...cpuRow, metric: 'workers: CPU per request, non-streaming chat, 64 connections, 2 workers ÷ 1 worker' });
      rows.push({ metric: 'gateway CPU over the chat runs (cores used of 2), 1 worker / 2 workers', gateway: `${fmt(median(col(one, 'cores')), 2)} / ${fmt(median(col(two, 'cores')), 2)}` });
      rows.push({ metric: 'non-2xx or failed chat requests (all runs)', target: '0', gateway: String(chatFailed), pass: chatFailed === 0 });

      const base = lanes[0];
      for (const g of [two, one]) {
        const rs = streamRuns[g.label];
        const ttfb = (l: Lane) => rs[l.name].map((r) => r.s.ttfbP50);
        for (const lane of lanes) {
          const r = rs[lane.name];
          const translated = lane !== base;
          const added = pairedDelta(ttfb(lane), ttfb(base));
          const failed = r.reduce((s, x) => s + x.s.failed, 0);
          const limit = translated && g === two ? firstEventTarget : undefined;
          const perEventUs = median(r.map((x) => x.cpuMsPerStream)) * 1000 / eventsPerStream;
          const row: Row = {
            metric: `${g.label}, ${lane.name}, ${streams} streams: TTFB p50 / p99; streams / failed; CPU per event`,
            target: limit !== undefined ? `first event ≤ untranslated + ${limit} ms` : undefined,
            gateway: `${ms(median(ttfb(lane)))} / ${ms(median(r.map((x) => x.s.ttfbP99)))}; ${r.reduce((s, x) => s + x.s.streams, 0)} / ${failed}; ${fmt(perEventUs, 1, ' µs')}`,
            delta: translated ? `${signed(added)} first event` : undefined,
            pass: limit !== undefined ? added <= limit && failed === 0 : failed === 0 ? undefined : false,
          };
          rows.push(row);
          if (limit !== undefined) headline.push({ ...row, metric: `workers: 2 workers, ${streams} translated streams (${lane.name}): added first-event delay over untranslated`, gateway: signed(added) });
          perRun[`${g.label}, ${lane.name}: TTFB p50 ms`] = ttfb(lane);
        }
        perRun[`${g.label}: other processes' share of a core, stream runs (run by run, lanes in order)`] = Array.from({ length: ctx.runs }, (_, i) => lanes.map((l) => rs[l.name][i]?.others ?? NaN)).flat();
      }

      const mb = (v: number) => fmt(v / MB, 1, ' MB');
      const rssCell = (r: Rss) => `${Number.isNaN(r.primary) ? '—' : mb(r.primary)}; ${r.workers.map((w) => fmt(w / MB, 1)).join(', ')} MB`;
      gws.forEach((g, k) => rows.push({ metric: `${g.label}: RSS after start, idle: primary; each worker`, gateway: rssCell(rssStart[k]) }));
      gws.forEach((g, k) => rows.push({ metric: `${g.label}: RSS after the warm-up, idle: primary; each worker`, gateway: rssCell(rssWarm[k]) }));
      if (hold) {
        rows.push({
          metric: `${two.label}, ${fmtInt(held)} slow streams: open (first event within 10 s) / failed; time to open all`, target: `${fmtInt(held)} / 0`,
          gateway: `${fmtInt(hold.open)} / ${fmtInt(hold.failed)}; ${fmt(hold.openS, 1, ' s')}`, pass: hold.open === held && hold.failed === 0,
        });
        rows.push({ metric: `${two.label}: workers' summed RSS before / with the streams open (max over 2 s) / 1 s after closing`, gateway: `${mb(hold.before)} / ${mb(hold.peak)} / ${mb(hold.after)}` });
        rows.push({ metric: `${two.label}: RSS per open stream ((with − before) ÷ streams open)`, gateway: fmt((hold.peak - hold.before) / Math.max(1, hold.open) / 1024, 1, ' KB') });
      }

      const allOthers = [...gws.flatMap((g) => col(g, 'others')), ...gws.flatMap((g) => lanes.flatMap((l) => streamRuns[g.label][l.name].map((r) => r.others)))];
      const pc = (v: number) => `${fmt(v * 100, 0)} %`;
      const chatOthers = gws.flatMap((g) => col(g, 'others'));
      const streamOthers = allOthers.slice(chatOthers.length);
      rows.push({ metric: 'other processes\' CPU during the runs (share of one core), chat / streams, median (max)', gateway: `${pc(median(chatOthers))} (${pc(Math.max(...chatOthers))}) / ${pc(median(streamOthers))} (${pc(Math.max(...streamOthers))})` });
      const worst = Math.max(...allOthers.filter(Number.isFinite));

      const gemini = lanes.find((l) => l.path.startsWith('/v1beta/'));
      const errs = Object.values(streamRuns).flatMap((byLane) => Object.values(byLane).flat().flatMap((r) => Object.entries(r.s.errors)));
      return {
        title: `Workers: SWITCHYARD_WORKERS=1 and 2, both unpinned (chat at ${connections} connections, ${streams} translated streams, memory)`,
        rows, headline, perRun,
        notes: [
          `Two extra gateways on the rig's store and config, both unpinned (every core), started for this scenario and stopped after it; the pinned main gateway and the bare proxy idle meanwhile. SWITCHYARD_WORKERS=1 is one process; with 2 the primary forks two workers (node:cluster, round-robin) and its own CPU counts too. The simulator and the load generator share the same two cores, so req/s is not the measure: CPU per request, summed over the gateway's processes (utime + stime from /proc/<pid>/stat, all threads), is.`,
          `Chat: ${chatSeconds} s per setting per run after a ${2} s warm-up of each, ${ctx.runs} runs, the order of the settings rotated each run; the ratio is the median of per-run ratios. Each worker's CPU per request is its CPU over all the run's requests (round-robin gives each worker half the ${connections} connections).`,
          `Streams: the lanes of sse-translated (${eventsPerStream} vendor events ${eventIntervalMs} ms apart), ${streams} concurrent for ${streamSeconds(two)} s per lane per run at 2 workers (${streamSeconds(one)} s at 1) (each stream opens the next when it ends), after a 0.4 s warm-up of each lane at 20 streams. "gateway − direct" is the lane's TTFB p50 minus the untranslated lane's at the same setting (median of per-run differences). CPU per event: the gateway's processes' CPU over the lane's load ÷ streams ÷ ${eventsPerStream}. The 1-worker rows are for comparison, no target.`,
          ...(gemini ? [`The ${gemini.name} lane's first event is one upstream event (${eventIntervalMs} ms here) later by design: Gemini's stream has no role-only chunk, so its first chunk is the first text (docs/contributors/performance.md). It is held to the same + ${firstEventTarget} ms as the others, without an allowance for that, as in sse-translated.`] : []),
          `Memory: VmRSS from /proc/<pid>/status. "After start": once every process of the gateway was idle (no more than a clock tick of CPU in 250 ms, twice). "After the warm-up": the same, before the measured runs.${hold ? ` RSS per open stream: ${fmtInt(held)} chat streams of one event a second (\`[sim chunks=30 interval_ms=1000]\`), ${heldBatch} opened every ${heldStepMs} ms with no keep-alive, on the 2-worker gateway right after its warm-up (before the runs above, whose heap growth new streams would fill first); the workers' summed RSS just before, its largest sample (every 250 ms) over 2 s once all had their first event, then all closed by the client.${hold.failed ? ` Stream errors: ${Object.entries(hold.errors).map(([k, v]) => `${k} ×${v}`).join(', ')}.` : ''}` : ` RSS per open stream: not measured (the open-file limit ${fmtInt(fds)} is below ${fmtInt(held + 1000)}).`}`,
          'Other processes: the machine\'s busy time (/proc/stat) less the CPU of the simulator, the idle main gateway and bare proxy, this process and both gateways here, over the run\'s wall time.',
          ...(worst > disturbedShare ? [`**Disturbed:** in at least one run other processes took ${pc(worst)} of a core; the figures of that run moved with it (see the per-run values), so rerun on a quiet machine before comparing.`] : []),
          ...(errs.length ? [`stream errors: ${errs.map(([k, n]) => `${k} ×${n}`).join(', ')}`] : []),
        ],
      };
    } finally {
      try { ctx.childCpu?.(gws.reduce((s, g) => s + cpuOf(g), 0)); } catch { /* a process is gone: its CPU went with it */ }
      for (const g of gws.reverse()) await g.stop();
    }
  },
};
