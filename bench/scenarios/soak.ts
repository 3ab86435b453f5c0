// Soak (full mode): steady load for N minutes, non-streaming chat beside a constant crowd of streams, gateway RSS
// every 30 s, growth per minute after warm-up.
import { openLoop } from '../open-loop.js';
import { streamLoad } from '../sse-client.js';
import { sseBody } from './sse.js';
import { rssBytes } from '../proc-stats.js';
import { chatBody, type BenchContext, type Scenario, type Section } from '../scenario.js';
import { fmt, fmtInt, slope } from '../stats.js';

const rate = 500; // moderate: well under capacity, so growth reflects leaks rather than queues
const streams = 50; // open at any time, each 20 events 5 ms apart, a new one as one ends
const windowS = 30;
const warmupS = 60;
const MB = 1024 * 1024;

export const soak: Scenario = {
  name: 'soak',
  quick: false,
  async run(ctx: BenchContext): Promise<Section> {
    const windows = Math.ceil((ctx.soakMinutes * 60) / windowS);
    const body = chatBody();
    const points: { t: number; mb: number }[] = [{ t: 0, mb: rssBytes(ctx.gatewayPid) / MB }];
    let failed = 0;
    let sent = 0;
    let streamed = 0;
    const streamBody = sseBody(20, 5);
    // One open-loop window per sample; the loop is bounded by the window count and the abort signal.
    for (let w = 1; w <= windows && !ctx.signal.aborted; w++) {
      ctx.log(`soak: window ${w}/${windows} at ${rate} req/s, RSS ${fmt(points.at(-1)!.mb, 1)} MB`);
      const [r, s] = await Promise.all([
        openLoop({ target: ctx.gateway, path: '/v1/chat/completions', body, rate, seconds: windowS, drainMs: 5000, signal: ctx.signal }),
        streamLoad({ target: ctx.gateway, path: '/v1/chat/completions', body: streamBody, concurrency: streams, seconds: windowS, maxStreams: 1e6, timeoutMs: 15_000, signal: ctx.signal }),
      ]);
      failed += r.non2xx + r.errors + r.timedOut + s.filter((x) => !x.ok).length;
      sent += r.sent;
      streamed += s.length;
      points.push({ t: w * windowS, mb: rssBytes(ctx.gatewayPid) / MB });
    }
    const after = points.filter((p) => p.t >= warmupS);
    const growth = slope(after.map((p) => p.t / 60), after.map((p) => p.mb));
    return {
      title: `Soak (${ctx.soakMinutes} min: non-streaming chat at ${rate} req/s and ${streams} streams open throughout)`,
      rows: [
        { metric: 'RSS growth per minute after 1 min warm-up', target: '< 1 MB/min', gateway: fmt(growth, 2, ' MB/min'), pass: growth < 1 },
        { metric: 'RSS at start / end', gateway: `${fmt(points[0].mb, 1)} / ${fmt(points.at(-1)!.mb, 1)} MB` },
        { metric: 'requests sent / streams / failed', target: '0 failed', gateway: `${fmtInt(sent)} / ${fmtInt(streamed)} / ${fmtInt(failed)}`, pass: failed === 0 },
      ],
      notes: [`RSS every ${windowS} s (MB): ${points.map((p) => `${p.t}s ${p.mb.toFixed(1)}`).join(', ')}`, 'Growth is the least-squares slope of RSS over time, samples after the warm-up only.'],
    };
  },
};
