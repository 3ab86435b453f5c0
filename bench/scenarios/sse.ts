// Streaming chat at 1 and 100 concurrent streams: time to first byte, gaps between events, share of bursts.
import { streamLoad, summarize, type StreamSummary } from '../sse-client.js';
import { chatBody, interleaved, type BenchContext, type Row, type Scenario, type Section } from '../scenario.js';
import { fmt, median, pairedDelta, signed } from '../stats.js';

const levels = [1, 100] as const;
const ttfbTarget: Record<number, number> = { 1: 0.5, 100: 2 };
const burstTolerance = 0.005; // half a percentage point: run-to-run noise, not a change in pacing

/** include_usage on both sides so the client sees the same events; without it the gateway hides the usage event. */
export const sseBody = (chunks: number, intervalMs: number) =>
  chatBody({ stream: true, stream_options: { include_usage: true } }, `Count for me. [sim chunks=${chunks} interval_ms=${intervalMs}]`);

export const sseScenario: Scenario = {
  name: 'sse',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const seconds: Record<number, number> = ctx.mode === 'full' ? { 1: 4, 100: 5 } : { 1: 2, 100: 3 };
    const body = sseBody(20, 5);
    const load = (t: typeof ctx.gateway, concurrency: number, secs: number) => streamLoad({
      target: t, path: '/v1/chat/completions', body, concurrency, seconds: secs, maxStreams: 100_000, timeoutMs: 15_000, signal: ctx.signal,
    });
    for (const t of [ctx.gateway, ctx.direct]) await load(t, 100, 1); // warm-up, not recorded
    const runs = await interleaved(ctx, async (t, i) => {
      const out: Record<number, StreamSummary> = {};
      for (const c of levels) {
        ctx.log(`sse: ${t.name} ${c} stream${c > 1 ? 's' : ''}, run ${i + 1}/${ctx.runs}`);
        out[c] = summarize(await load(t, c, seconds[c]));
      }
      return out;
    });
    const col = (rs: Record<number, StreamSummary>[], c: number, k: keyof StreamSummary) => rs.map((r) => r[c][k] as number);
    const rows: Row[] = [];
    const perRun: Record<string, number[]> = {};
    const g = runs.gateway;
    const d = runs.direct;
    for (const c of levels) {
      const at = `${c} stream${c > 1 ? 's' : ''}`;
      const addedTtfb = pairedDelta(col(g, c, 'ttfbP50'), col(d, c, 'ttfbP50'));
      rows.push({
        metric: `TTFB p50, ${at}`, target: `added ≤ ${ttfbTarget[c]} ms`,
        gateway: fmt(median(col(g, c, 'ttfbP50')), 3, ' ms'), direct: fmt(median(col(d, c, 'ttfbP50')), 3, ' ms'),
        delta: signed(addedTtfb), pass: addedTtfb <= ttfbTarget[c],
      });
      rows.push({
        metric: `TTFB p99, ${at}`,
        gateway: fmt(median(col(g, c, 'ttfbP99')), 3, ' ms'), direct: fmt(median(col(d, c, 'ttfbP99')), 3, ' ms'),
        delta: signed(pairedDelta(col(g, c, 'ttfbP99'), col(d, c, 'ttfbP99'))),
      });
      const gapDelta = pairedDelta(col(g, c, 'gapP99'), col(d, c, 'gapP99'));
      rows.push({
        metric: `event gap p99, ${at}`, target: 'within 1 ms of direct',
        gateway: fmt(median(col(g, c, 'gapP99')), 3, ' ms'), direct: fmt(median(col(d, c, 'gapP99')), 3, ' ms'),
        delta: signed(gapDelta), pass: Math.abs(gapDelta) <= 1,
      });
      const burstG = median(col(g, c, 'burstShare'));
      const burstD = median(col(d, c, 'burstShare'));
      rows.push({
        metric: `events in bursts (< 1 ms after the previous), ${at}`, target: "= direct's (± 0.5 pp)",
        gateway: fmt(burstG * 100, 2, ' %'), direct: fmt(burstD * 100, 2, ' %'), delta: signed((burstG - burstD) * 100, 2, ' pp'),
        pass: Math.abs(burstG - burstD) <= burstTolerance,
      });
      const fg = col(g, c, 'failed').reduce((a, b) => a + b, 0);
      const fd = col(d, c, 'failed').reduce((a, b) => a + b, 0);
      rows.push({
        metric: `streams completed / failed, ${at} (all runs)`, target: '0 failed',
        gateway: `${col(g, c, 'streams').reduce((a, b) => a + b, 0)} / ${fg}`, direct: `${col(d, c, 'streams').reduce((a, b) => a + b, 0)} / ${fd}`,
        pass: fg === 0 && fd === 0,
      });
      perRun[`gateway TTFB p50 ms, ${at}`] = col(g, c, 'ttfbP50');
      perRun[`direct TTFB p50 ms, ${at}`] = col(d, c, 'ttfbP50');
      perRun[`gateway gap p99 ms, ${at}`] = col(g, c, 'gapP99');
      perRun[`direct gap p99 ms, ${at}`] = col(d, c, 'gapP99');
    }
    const errs = [...g, ...d].flatMap((r) => levels.flatMap((c) => Object.entries(r[c].errors)));
    return {
      title: 'Streaming chat (SSE, 20 chunks 5 ms apart)',
      rows,
      perRun,
      notes: [
        `${seconds[1]} s at 1 stream and ${seconds[100]} s at 100 streams per run; each worker opens its next stream when one ends.`,
        'TTFB = request sent → first body byte (the first event). Gaps are between consecutive events of one stream.',
        ...(errs.length ? [`stream errors: ${errs.map(([k, n]) => `${k} ×${n}`).join(', ')}`] : []),
      ],
    };
  },
};
