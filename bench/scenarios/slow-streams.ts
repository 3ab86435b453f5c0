// Many long streams: one gateway process holds thousands of slow SSE streams at once (the simulator paces one event
// a second), the way coding agents keep streams open. None may fail; the gateway may widen the p99 gap between two
// events by at most 50 ms over the same load sent straight to the simulator; its RSS is reported.
import { Agent } from 'node:http';
import { peakOpen, runStream, summarize, type StreamResult } from '../sse-client.js';
import type { BenchContext, Foreign, Row, Scenario, Section, Target } from '../scenario.js';
import { cpuSeconds, openFileLimit, RssSampler, rssBytes } from '../proc-stats.js';
import { fmt, fmtInt, percentiles } from '../stats.js';
import { sseBody } from './sse.js';

const MB = 1024 * 1024;
const intervalMs = 1000; // the issue: one event a second
const gapTarget = 50; // ms the gateway may add to the p99 gap
const batch = 50; // streams opened per step, below the listen backlog (511)
// 200 new streams a second (5,000 in 25 s, well inside a 60 s stream, so all are open at once): the scenario
// measures holding streams, not a connection storm; each opening costs the gateway auth, a reservation and a dispatch.
const stepMs = 250;

/** Stream count and length: `--slow-streams N` / `--slow-seconds S`; the full size in full mode, a short one in quick. */
export function slowShape(ctx: BenchContext): { streams: number; seconds: number } {
  return ctx.slowStreams ?? (ctx.mode === 'full' ? { streams: 5000, seconds: 60 } : { streams: 1000, seconds: 15 });
}

interface Held {
  results: StreamResult[];
  peakOpen: number;
  rampS: number;
  /** Gateway runs only: RSS before the ramp, its peak while the streams were held, and after they ended. */
  rss?: { before: number; peak: number; after: number };
  /** Gateway runs only: its CPU seconds over the run's wall seconds. */
  cpuShare?: number;
  /** Other processes' share of each bench core meanwhile (when pinned). */
  foreign?: Foreign;
  /** Gateway runs only: its event-loop delay over the run, seconds (prom-client's, reset at each scrape). */
  loopLag?: { p99: number; max: number };
}

/**
 * Gaps among a stream's first `events` + 1 events (the role chunk and the content chunks), which pass one for one. The
 * tail differs by design: the gateway merges the finish chunk with the usage chunk after it (the contract's last
 * chunk carries both), so where the simulator paces those a second apart the merged one waits a second. Real
 * vendors send the tail back to back. The tail's gaps are reported on their own row.
 */
function gapsOf(results: StreamResult[], events: number): { body: { p50: number; p99: number; max: number }; tailMax: number } {
  const body: number[] = [];
  let tailMax = 0;
  for (const r of results) {
    for (let i = 0; i < r.gaps.length; i++) {
      if (i < events) body.push(r.gaps[i]);
      else if (r.gaps[i] > tailMax) tailMax = r.gaps[i];
    }
  }
  const [p50, p99] = percentiles(body, [50, 99]);
  return { body: { p50, p99, max: body.reduce((m, g) => (g > m ? g : m), 0) }, tailMax };
}

/** The gateway's event-loop delay since the last scrape (a stall there delays every stream at once), from /metrics. */
async function loopLag(t: Target): Promise<{ p99: number; max: number }> {
  try {
    const text = await (await fetch(`${t.url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    const read = (name: string) => Number(new RegExp(`^switchyard_process_nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    return { p99: read('p99'), max: read('max') };
  } catch {
    return { p99: NaN, max: NaN };
  }
}

const share = (f: Foreign | undefined) => (f ? `${fmt(Math.max(0, f.gatewayCore) * 100, 0)} % / ${fmt(Math.max(0, f.clientCore) * 100, 0)} %` : undefined);

async function hold(ctx: BenchContext, t: Target, n: number, events: number, pid?: number): Promise<Held> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const body = sseBody(events, intervalMs);
  const timeoutMs = events * intervalMs + 60_000; // the stream's own length, the ramp, and slack
  const sampler = pid === undefined ? undefined : new RssSampler(pid, 500);
  const before = pid === undefined ? NaN : rssBytes(pid);
  sampler?.start();
  if (pid !== undefined) await loopLag(t); // the scrape resets prom-client's event-loop histogram
  const cpu0 = pid === undefined ? NaN : cpuSeconds(pid);
  const stopForeign = ctx.foreignLoad?.();
  const t0 = performance.now();
  const pending: Promise<StreamResult>[] = [];
  for (let i = 0; i < n && !ctx.signal.aborted; i += batch) {
    for (let j = i; j < Math.min(n, i + batch); j++) {
      pending.push(runStream({ agent, target: t, path: '/v1/chat/completions', body, timeoutMs, signal: ctx.signal }));
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
  const rampS = (performance.now() - t0) / 1000;
  const results = await Promise.all(pending);
  agent.destroy();
  sampler?.stop();
  const foreign = stopForeign?.();
  const cpuShare = pid === undefined ? undefined : (cpuSeconds(pid) - cpu0) / ((performance.now() - t0) / 1000);
  await new Promise((r) => setTimeout(r, 1000)); // the streams' sockets close and their requests are logged
  const lag = pid === undefined ? undefined : await loopLag(t);
  const rss = pid === undefined ? undefined : { before, peak: sampler!.peak, after: rssBytes(pid) };
  return { results, peakOpen: peakOpen(results), rampS, rss, cpuShare, foreign, loopLag: lag };
}

export const slowStreams: Scenario = {
  name: 'slow-streams',
  quick: false,
  async run(ctx: BenchContext): Promise<Section> {
    const { streams: n, seconds } = slowShape(ctx);
    const events = seconds; // one a second
    // Each stream costs an fd in this process and two in the gateway (client and upstream), one in the simulator.
    const fds = Math.min(openFileLimit('self'), openFileLimit(ctx.gatewayPid), openFileLimit(ctx.simPid));
    if (fds < 2 * n + 1000) {
      throw new Error(`the open-file limit (${fds}) is below the ${fmtInt(2 * n + 1000)} that ${fmtInt(n)} streams need: raise it (ulimit -n) before npm run bench`);
    }
    ctx.log(`slow-streams: gateway, ${fmtInt(n)} streams of ${events} events ${intervalMs} ms apart`);
    const g = await hold(ctx, ctx.gateway, n, events, ctx.gatewayPid);
    if (ctx.signal.aborted) throw new Error('aborted');
    ctx.log(`slow-streams: direct (the simulator's own pace), ${fmtInt(n)} streams`);
    const d = await hold(ctx, ctx.direct, n, events);
    const gs = summarize(g.results);
    const ds = summarize(d.results);
    const errors = (s: ReturnType<typeof summarize>) => Object.entries(s.errors).map(([k, v]) => `${k} ×${v}`).join(', ') || 'none';
    const gg = gapsOf(g.results, events);
    const dg = gapsOf(d.results, events);
    const added = gg.body.p99 - dg.body.p99;
    const rss = g.rss!;
    const rows: Row[] = [
      {
        metric: `streams failed (of ${fmtInt(n)})`, target: '0', gateway: fmtInt(gs.failed + (n - gs.streams)), direct: fmtInt(ds.failed + (n - ds.streams)),
        pass: gs.failed === 0 && gs.streams === n,
      },
      { metric: 'streams open at once (peak)', target: `${fmtInt(n)}`, gateway: fmtInt(g.peakOpen), direct: fmtInt(d.peakOpen), pass: g.peakOpen === n },
      {
        metric: 'gap between content events, p99', target: `≤ direct + ${gapTarget} ms`, gateway: fmt(gg.body.p99, 1, ' ms'), direct: fmt(dg.body.p99, 1, ' ms'),
        delta: `${added >= 0 ? '+' : ''}${fmt(added, 1, ' ms')}`, pass: added <= gapTarget,
      },
      { metric: 'gap between content events, p50 / max', gateway: `${fmt(gg.body.p50, 1, ' ms')} / ${fmt(gg.body.max, 0, ' ms')}`, direct: `${fmt(dg.body.p50, 1, ' ms')} / ${fmt(dg.body.max, 0, ' ms')}` },
      { metric: 'longest gap in the tail (finish, usage, [DONE])', gateway: fmt(gg.tailMax, 0, ' ms'), direct: fmt(dg.tailMax, 0, ' ms') },
      { metric: 'first event, p50 / p99', gateway: `${fmt(gs.ttfbP50, 1, ' ms')} / ${fmt(gs.ttfbP99, 1, ' ms')}`, direct: `${fmt(ds.ttfbP50, 1, ' ms')} / ${fmt(ds.ttfbP99, 1, ' ms')}` },
      {
        metric: 'gateway RSS: before / peak while held / after',
        gateway: `${fmt(rss.before / MB, 1, ' MB')} / ${fmt(rss.peak / MB, 1, ' MB')} / ${fmt(rss.after / MB, 1, ' MB')}`,
      },
      { metric: 'gateway RSS growth per held stream', gateway: fmt((rss.peak - rss.before) / n / 1024, 1, ' KB') },
      { metric: 'gateway CPU over the run (share of one core)', gateway: `${fmt((g.cpuShare ?? NaN) * 100, 0)} %` },
      { metric: 'gateway event-loop delay over the run, p99 / max', gateway: `${fmt((g.loopLag?.p99 ?? NaN) * 1000, 1, ' ms')} / ${fmt((g.loopLag?.max ?? NaN) * 1000, 0, ' ms')}` },
      { metric: 'other processes\' share of CPU 0 / CPU 1 during the run', gateway: share(g.foreign), direct: share(d.foreign) },
    ];
    const worst = Math.max(...[g.foreign, d.foreign].flatMap((f) => (f ? [f.gatewayCore, f.clientCore] : [])));
    return {
      title: `Many long streams (${fmtInt(n)} concurrent SSE streams, one event a second for ${seconds} s, one gateway process)`,
      rows,
      headline: [{ ...rows[0], metric: `slow streams, ${fmtInt(n)} × ${seconds} s: failed` }, { ...rows[2], metric: `slow streams, ${fmtInt(n)} × ${seconds} s: p99 gap` }],
      notes: [
        `Each stream is a chat completion with \`stream: true\` whose simulator reply sends ${events} chunks ${intervalMs} ms apart (\`[sim chunks=${events} interval_ms=${intervalMs}]\`), plus the usage chunk and [DONE]; ${fmtInt(batch)} streams opened every ${stepMs} ms (gateway ramp ${fmt(g.rampS, 1, ' s')}, direct ${fmt(d.rampS, 1, ' s')}), no keep-alive, one client process (this one) on CPU 1 with the simulator. The gateway is one process on CPU 0.`,
        `The same load is then sent straight to the simulator: its gaps are the upstream's pace as this client sees it (timer drift of a loaded simulator and client included), the reference of the ${gapTarget} ms target. A gap is measured between two events' arrival at the client (0 for one that came in the same read as the one before); the wait for the first event is not a gap. The target's gaps are those among the role chunk and the ${events} content chunks, which the gateway relays one for one; the tail is merged by design (the finish chunk waits for the usage chunk, which the simulator sends ${intervalMs} ms later, where real vendors send it at once), so its gaps are shown apart.`,
        `Errors: gateway ${errors(gs)}; direct ${errors(ds)}. Open-file limit ${fmtInt(fds)} (each stream takes one fd here, two in the gateway).`,
        'RSS: VmRSS of the gateway sampled every 500 ms from just before the ramp to the last stream\'s end; "after" is 1 s later.',
        ...(worst > 0.1 ? [`**Disturbed:** other processes took up to ${fmt(worst * 100, 0)} % of a bench core during a run; the gateway (CPU 0) or the client and simulator (CPU 1) lost time to them and the gaps moved with it: rerun on a quiet machine before comparing.`] : []),
      ],
      perRun: {
        'gateway content gap p99 ms': [gg.body.p99], 'direct content gap p99 ms': [dg.body.p99],
        'gateway RSS peak MB': [rss.peak / MB],
      },
    };
  },
};
