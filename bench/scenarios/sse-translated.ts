// Translated streams: the same stream through the gateway untranslated (OpenAI chat on an OpenAI-format channel,
// bytes passed) and through each dialect translation (Responses, Messages and Gemini clients on that channel; an
// OpenAI chat client on a Messages-format vendor and on a Gemini-format vendor), at 1, 20, 50 and 100 streams, lanes
// interleaved run by run. Targets: a translated stream's first event at most 1 ms later than the untranslated one's at
// 1 stream and 2 ms at 100 streams; a translated lane's CPU per event at most 1.5× the untranslated relay's at 20
// and 100 streams (issue 33; 2× before). 50 streams has no target: it shows the load up to which a lane's first events do not queue. Gateway only:
// the bare proxy and the simulator cannot translate. The lanes are in bench/translated-lanes.ts.
import { cpuSeconds } from '../proc-stats.js';
import type { StreamSummary } from '../sse-client.js';
import { foreignLoadReport, type BenchContext, type Foreign, type Row, type Scenario, type Section } from '../scenario.js';
import { fmt, fmtRatio, median, pairedDelta, pairedRatio, signed } from '../stats.js';
import { eventsPerStream, laneLoad, lanes, type Lane, type LaneMeasure as Measure } from '../translated-lanes.js';

const levels = [1, 20, 50, 100] as const;
/** Added first-event delay of a translated stream over the untranslated one: at 1 stream, and at 100 streams. */
const firstEventTarget: Partial<Record<number, number>> = { 1: 1, 100: 2 };
/** A translated lane's CPU per event against the untranslated relay's, at these levels. */
const cpuTarget = 1.5;
const cpuLevels = [20, 100];

export const sseTranslated: Scenario = {
  name: 'sse-translated',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const seconds = ctx.mode === 'full' ? 3 : 2;
    const load = (lane: Lane, concurrency: number, secs: number) => laneLoad(ctx, ctx.gateway, () => cpuSeconds(ctx.gatewayPid), lane, concurrency, secs);
    for (const lane of lanes) await load(lane, 20, 1); // warm-up, not recorded
    const runs: Record<string, Record<number, Measure>[]> = Object.fromEntries(lanes.map((l) => [l.name, []]));
    const foreign: Foreign[] = [];
    for (let i = 0; i < ctx.runs && !ctx.signal.aborted; i++) {
      for (const lane of lanes) {
        const out: Record<number, Measure> = {};
        for (const c of levels) {
          ctx.log(`sse-translated: ${lane.name}, ${c} stream${c > 1 ? 's' : ''}, run ${i + 1}/${ctx.runs}`);
          const stop = ctx.foreignLoad?.();
          out[c] = await load(lane, c, seconds);
          if (stop) foreign.push(stop());
        }
        runs[lane.name].push(out);
      }
    }
    const base = runs[lanes[0].name];
    const col = (rs: Record<number, Measure>[], c: number, k: keyof StreamSummary) => rs.map((r) => r[c].s[k] as number);
    const ms = (v: number) => fmt(v, 3, ' ms');
    const rows: Row[] = [];
    const headline: Row[] = [];
    const cpuPerEvent = (rs: Record<number, Measure>[], c: number) => rs.map((r) => r[c].cpuMsPerStream / eventsPerStream);
    for (const c of levels) {
      const at = `${c} stream${c > 1 ? 's' : ''}`;
      for (const lane of lanes) {
        const rs = runs[lane.name];
        const translated = lane !== lanes[0];
        const added = pairedDelta(col(rs, c, 'ttfbP50'), col(base, c, 'ttfbP50'));
        const sum = (k: keyof StreamSummary) => col(rs, c, k).reduce((x, y) => x + y, 0);
        const failed = sum('failed');
        const limit = translated ? firstEventTarget[c] : undefined;
        const row: Row = {
          metric: `${lane.name}, ${at}: TTFB p50 / p99, gap p99; streams / failed; CPU per stream; share of the core`,
          target: limit !== undefined ? `first event ≤ untranslated + ${limit} ms` : undefined,
          gateway: `${ms(median(col(rs, c, 'ttfbP50')))} / ${ms(median(col(rs, c, 'ttfbP99')))}, ${ms(median(col(rs, c, 'gapP99')))}; ${sum('streams')} / ${failed}; ${fmt(median(rs.map((r) => r[c].cpuMsPerStream)), 2, ' ms')}; ${fmt(median(rs.map((r) => r[c].coreShare)), 2)}`,
          delta: translated ? `${signed(added)} first event` : undefined,
          pass: limit !== undefined ? added <= limit && failed === 0 : failed === 0 ? undefined : false,
        };
        rows.push(row);
        if (limit !== undefined) headline.push({ ...row, metric: `translated stream (${lane.name}), ${at}: added first-event delay over untranslated`, gateway: signed(added) });
        if (!cpuLevels.includes(c)) continue;
        const perEvent = median(cpuPerEvent(rs, c));
        if (!translated) {
          rows.push({ metric: `${lane.name}, ${at}: CPU per event`, gateway: fmt(perEvent * 1000, 1, ' µs') });
          continue;
        }
        const ratio = pairedRatio(cpuPerEvent(rs, c), cpuPerEvent(base, c));
        const cpuRow: Row = {
          metric: `${lane.name}, ${at}: CPU per event, translated ÷ untranslated`, target: `≤ ${cpuTarget}×`,
          gateway: `${fmt(perEvent * 1000, 1, ' µs')} (${fmtRatio(ratio)})`, pass: ratio <= cpuTarget && failed === 0,
        };
        rows.push(cpuRow);
        headline.push({ ...cpuRow, metric: `translated stream (${lane.name}), ${at}: CPU per event ÷ the untranslated relay's`, gateway: fmtRatio(ratio) });
      }
    }
    const load3 = foreignLoadReport({ gateway: foreign, bare: [], direct: [] });
    rows.push(...load3.rows);
    const errs = Object.values(runs).flat().flatMap((r) => levels.flatMap((c) => Object.entries(r[c].s.errors)));
    return {
      title: 'Translated streams (SSE, 20 chunks 5 ms apart, gateway only)',
      rows, headline,
      notes: [
        `${seconds} s per lane and level per run; lanes interleaved run by run; ${ctx.runs} runs. "gateway − direct" here is each translated lane's TTFB p50 minus the untranslated lane's in the same run (the median of those differences).`,
        'The untranslated lane passes the vendor\'s bytes; the Responses, Messages and Gemini clients are translated from the unified format by their dialect\'s stream transform (JSONata, per event); the vendor lanes translate a Messages-format or Gemini-format vendor\'s events into unified chunks.',
        'CPU per stream: the gateway\'s utime + stime during the lane\'s runs divided by the streams completed; CPU per event: that over the 20 vendor events of a stream (a translated lane writes more client events for them). The ratio is the median of per-run ratios to the untranslated lane at the same level.',
        'At 100 streams the load is 20,000 vendor events a second on the gateway\'s one core, near what it can relay even untranslated: there the first-event difference is queueing, and grows with any extra CPU per event a translation costs. The share of the core (the gateway\'s CPU seconds over the wall seconds of the lane\'s load) shows it: a lane near 1.00 has no idle time left, and its new streams wait for the core.',
        ...load3.notes,
        ...(errs.length ? [`stream errors: ${errs.map(([k, n]) => `${k} ×${n}`).join(', ')}`] : []),
      ],
    };
  },
};
