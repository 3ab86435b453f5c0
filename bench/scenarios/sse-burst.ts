// 100 streams opened at the same instant, on one core: how long the last of a crowd waits for its first event when
// every stream's setup (authentication, reservation, dispatch) is paid 100 times at once, gateway against the bare
// node:http pass-through (issue 33: first event within 5 ms of the bare pass-through's).
import { cpuSeconds } from '../proc-stats.js';
import { streamBurst, type StreamResult } from '../sse-client.js';
import { foreignLoadReport, interleaved3, type BenchContext, type Row, type Scenario, type Section, type Target } from '../scenario.js';
import { fmt, fmtRatio, median, pairedDelta, pairedRatio, percentiles, signed } from '../stats.js';
import { sseBody } from './sse.js';

const streams = 100;
const eventsPerStream = 20;
const vsBareTarget = 5; // ms: the gateway's first-event p50 in a burst ≤ the bare pass-through's + 5

interface Measured { p50: number; p90: number; max: number; cpuMsPerStream: number; failed: number }

export const sseBurst: Scenario = {
  name: 'sse-burst',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const bursts = ctx.mode === 'full' ? 10 : 5;
    const body = sseBody(eventsPerStream, 5);
    const pidOf: Record<Target['name'], number | undefined> = { gateway: ctx.gatewayPid, bare: ctx.barePid, direct: undefined };
    const run = async (t: Target): Promise<Measured> => {
      const pid = pidOf[t.name];
      const c0 = pid ? cpuSeconds(pid) : 0;
      const all: StreamResult[] = [];
      for (let i = 0; i < bursts && !ctx.signal.aborted; i++) {
        all.push(...await streamBurst({ target: t, path: '/v1/chat/completions', body, count: streams, timeoutMs: 15_000, signal: ctx.signal }));
        await new Promise((r) => setTimeout(r, 200)); // the burst's streams end and their settles are done before the next
      }
      const [p50, p90, max] = percentiles(all.filter((r) => r.ok).map((r) => r.ttfbMs), [50, 90, 100]);
      const failed = all.filter((r) => !r.ok).length;
      return { p50, p90, max, failed, cpuMsPerStream: pid ? ((cpuSeconds(pid) - c0) * 1000) / Math.max(1, all.length) : NaN };
    };
    // Warm-up, not recorded: three bursts each, so every target has its JIT warm and its pools full before the runs.
    for (const t of [ctx.gateway, ctx.bare, ctx.direct]) {
      for (let i = 0; i < 3; i++) await streamBurst({ target: t, path: '/v1/chat/completions', body, count: streams, timeoutMs: 15_000, signal: ctx.signal });
    }
    const runs = await interleaved3(ctx, (t, i) => { ctx.log(`sse-burst: ${t.name}, run ${i + 1}/${ctx.runs}`); return run(t); });
    return summarize(runs, bursts);
  },
};

function summarize(runs: Awaited<ReturnType<typeof interleaved3<Measured>>>, bursts: number): Section {
  const { gateway: g, bare: b, direct: d } = runs;
  const col = (rs: Measured[], k: keyof Measured) => rs.map((r) => r[k]);
  const ms = (rs: Measured[], k: keyof Measured) => fmt(median(col(rs, k)), 3, ' ms');
  const vsBare = pairedDelta(col(g, 'p50'), col(b, 'p50'));
  const target: Row = {
    metric: `first event p50, ${streams} streams opened at once`, target: `≤ bare's + ${vsBareTarget} ms`,
    gateway: ms(g, 'p50'), bare: ms(b, 'p50'), direct: ms(d, 'p50'), vsBare: signed(vsBare),
    delta: signed(pairedDelta(col(g, 'p50'), col(d, 'p50'))), pass: vsBare <= vsBareTarget,
  };
  const foreign = foreignLoadReport(runs.foreign);
  const failed = [...g, ...b, ...d].reduce((n, r) => n + r.failed, 0);
  const rows: Row[] = [
    target,
    { metric: 'first event p90 / last, in a burst', gateway: `${ms(g, 'p90')} / ${ms(g, 'max')}`, bare: `${ms(b, 'p90')} / ${ms(b, 'max')}`, direct: `${ms(d, 'p90')} / ${ms(d, 'max')}`,
      vsBare: signed(pairedDelta(col(g, 'max'), col(b, 'max'))) },
    { metric: `proxy CPU per stream (${eventsPerStream} events), in bursts`, gateway: ms(g, 'cpuMsPerStream'), bare: ms(b, 'cpuMsPerStream'),
      vsBare: fmtRatio(pairedRatio(col(g, 'cpuMsPerStream'), col(b, 'cpuMsPerStream'))) },
    { metric: 'streams failed (all runs)', target: '0', gateway: String(g.reduce((n, r) => n + r.failed, 0)), bare: String(b.reduce((n, r) => n + r.failed, 0)),
      direct: String(d.reduce((n, r) => n + r.failed, 0)), pass: failed === 0 },
    ...foreign.rows,
  ];
  return {
    title: `Streams opened at once (SSE, ${streams} at the same instant, ${eventsPerStream} chunks 5 ms apart)`,
    rows,
    headline: [{ ...target, metric: `SSE, ${streams} streams opened at once: first event p50 (gateway − bare)` }],
    perRun: {
      'gateway first event p50 ms': col(g, 'p50'), 'bare first event p50 ms': col(b, 'p50'), 'direct first event p50 ms': col(d, 'p50'),
      'gateway CPU ms per stream': col(g, 'cpuMsPerStream'), 'bare CPU ms per stream': col(b, 'cpuMsPerStream'), ...foreign.perRun,
    },
    notes: [
      `Per run ${bursts} bursts, 200 ms apart: ${streams} requests sent in the same turn of the event loop, each on a new connection, gateway, bare and direct interleaved run by run. p50, p90 and the last are over every stream of the run's bursts; the figures are medians of the runs, "gateway vs bare" the median per-run difference.`,
      'A burst\'s last first event comes after the proxy has set up every stream of it (on one core, one after another): the proxy\'s CPU per stream, which is mostly the setup, sets how long the crowd waits.',
      ...foreign.notes,
    ],
  };
}
