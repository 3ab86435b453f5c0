// Non-streaming chat at a fixed arrival rate (open loop): latency from the intended send time, gateway vs direct.
import { openLoop, type OpenLoopResult } from '../open-loop.js';
import { chatBody, interleaved, type BenchContext, type Scenario, type Section } from '../scenario.js';
import { fmt, fmtInt, median, pairedDelta, percentiles, signed } from '../stats.js';

const rate = 2000;

interface Measured { sentRate: number; okShare: number; p50: number; p99: number; p999: number; failed: number; lag: number }

function measure(r: OpenLoopResult, seconds: number): Measured {
  const [p50, p99, p999] = percentiles(r.latencies, [50, 99, 99.9]);
  // Requests that never completed would be the slowest of all; a failed run must not look fast.
  const failed = r.non2xx + r.errors + r.timedOut + (r.planned - r.sent);
  return { sentRate: r.sent / seconds, okShare: r.ok / r.planned, p50, p99: failed ? Infinity : p99, p999: failed ? Infinity : p999, failed, lag: r.maxSendLagMs };
}

export const openLoopScenario: Scenario = {
  name: 'open-loop',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const seconds = ctx.mode === 'full' ? 10 : 5;
    const body = chatBody();
    const runs = await interleaved(ctx, async (t, i) => {
      ctx.log(`open-loop: ${t.name} ${rate} req/s for ${seconds} s, run ${i + 1}/${ctx.runs}`);
      return measure(await openLoop({ target: t, path: '/v1/chat/completions', body, rate, seconds, drainMs: 5000, signal: ctx.signal }), seconds);
    });
    const col = (rs: Measured[], k: keyof Measured) => rs.map((r) => r[k]);
    const g = runs.gateway;
    const d = runs.direct;
    const row = (k: 'p50' | 'p99' | 'p999', label: string) => ({
      metric: `latency ${label} at ${fmtInt(rate)} req/s`,
      gateway: fmt(median(col(g, k)), 3, ' ms'), direct: fmt(median(col(d, k)), 3, ' ms'), delta: signed(pairedDelta(col(g, k), col(d, k))),
    });
    const failedG = col(g, 'failed').reduce((a, b) => a + b, 0);
    const failedD = col(d, 'failed').reduce((a, b) => a + b, 0);
    return {
      title: `Open loop, fixed rate (${fmtInt(rate)} req/s, non-streaming chat)`,
      rows: [
        { metric: 'requests sent per second', gateway: fmtInt(median(col(g, 'sentRate'))), direct: fmtInt(median(col(d, 'sentRate'))) },
        { metric: 'answered 2xx (within the run + 5 s drain)', gateway: fmt(median(col(g, 'okShare')) * 100, 1, ' %'), direct: fmt(median(col(d, 'okShare')) * 100, 1, ' %') },
        row('p50', 'p50'),
        row('p99', 'p99'),
        row('p999', 'p99.9'),
        { metric: 'non-2xx, failed or timed-out requests (all runs)', target: '0', gateway: String(failedG), direct: String(failedD), pass: failedG === 0 && failedD === 0 },
        { metric: "client's worst send lag", gateway: fmt(median(col(g, 'lag')), 2, ' ms'), direct: fmt(median(col(d, 'lag')), 2, ' ms') },
      ],
      perRun: { 'gateway p99 ms': col(g, 'p99'), 'direct p99 ms': col(d, 'p99') },
      notes: [
        `${seconds} s per run; a 1 ms timer sends every request whose slot has come, on keep-alive sockets, whatever the answers do.`,
        'Latency runs from the intended send time, so it includes the timer\'s own lateness (the same for both sides) and any queueing.',
      ],
    };
  },
};
