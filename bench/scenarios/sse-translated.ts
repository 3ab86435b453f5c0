// Translated streams: the same stream through the gateway untranslated (OpenAI chat on an OpenAI-format channel,
// bytes passed) and through each dialect translation (a Responses client and a Messages client on that channel; an
// OpenAI chat client on a Messages-format vendor), at 1 and 20 streams, lanes interleaved run by run. The issue's
// target: a translated stream's first event comes at most 1 ms later than the untranslated one's. Gateway only: the
// bare proxy and the simulator cannot translate.
import { cpuSeconds } from '../proc-stats.js';
import { streamLoad, summarize, type StreamSummary } from '../sse-client.js';
import type { BenchContext, Row, Scenario, Section } from '../scenario.js';
import { fmt, median, pairedDelta, signed } from '../stats.js';

const pace = '[sim chunks=20 interval_ms=5]';
const levels = [1, 20] as const;
const targetMs = 1; // added first-event delay of a translated stream over the untranslated one, at 1 stream

interface Lane { name: string; path: string; body: Buffer; endMarker: string }
const json = (v: unknown) => Buffer.from(JSON.stringify(v));
const lanes: Lane[] = [
  { name: 'chat, untranslated', path: '/v1/chat/completions', endMarker: '[DONE]',
    body: json({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: `Count for me. ${pace}` }] }) },
  { name: 'Responses client → OpenAI-format channel', path: '/v1/responses', endMarker: 'response.completed',
    body: json({ model: 'gpt-4o-mini', stream: true, input: `Count for me. ${pace}` }) },
  { name: 'Messages client → OpenAI-format channel', path: '/v1/messages', endMarker: 'message_stop',
    body: json({ model: 'gpt-4o-mini', stream: true, max_tokens: 256, messages: [{ role: 'user', content: `Count for me. ${pace}` }] }) },
  { name: 'chat client → Messages-format vendor', path: '/v1/chat/completions', endMarker: '[DONE]',
    body: json({ model: 'claude-haiku-4-5', stream: true, messages: [{ role: 'user', content: `Count for me. ${pace}` }] }) },
];

interface Measure { s: StreamSummary; cpuMsPerStream: number }

export const sseTranslated: Scenario = {
  name: 'sse-translated',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const seconds = ctx.mode === 'full' ? 3 : 2;
    const load = async (lane: Lane, concurrency: number, secs: number): Promise<Measure> => {
      const c0 = cpuSeconds(ctx.gatewayPid);
      const results = await streamLoad({
        target: ctx.gateway, path: lane.path, body: lane.body, endMarker: lane.endMarker, concurrency, seconds: secs,
        maxStreams: 50_000, timeoutMs: 15_000, signal: ctx.signal,
      });
      const s = summarize(results);
      return { s, cpuMsPerStream: ((cpuSeconds(ctx.gatewayPid) - c0) * 1000) / Math.max(1, s.streams) };
    };
    for (const lane of lanes) await load(lane, 20, 1); // warm-up, not recorded
    const runs: Record<string, Record<number, Measure>[]> = Object.fromEntries(lanes.map((l) => [l.name, []]));
    for (let i = 0; i < ctx.runs && !ctx.signal.aborted; i++) {
      for (const lane of lanes) {
        const out: Record<number, Measure> = {};
        for (const c of levels) {
          ctx.log(`sse-translated: ${lane.name}, ${c} stream${c > 1 ? 's' : ''}, run ${i + 1}/${ctx.runs}`);
          out[c] = await load(lane, c, seconds);
        }
        runs[lane.name].push(out);
      }
    }
    const base = runs[lanes[0].name];
    const col = (rs: Record<number, Measure>[], c: number, k: keyof StreamSummary) => rs.map((r) => r[c].s[k] as number);
    const ms = (v: number) => fmt(v, 3, ' ms');
    const rows: Row[] = [];
    const headline: Row[] = [];
    for (const c of levels) {
      const at = `${c} stream${c > 1 ? 's' : ''}`;
      for (const lane of lanes) {
        const rs = runs[lane.name];
        const added = pairedDelta(col(rs, c, 'ttfbP50'), col(base, c, 'ttfbP50'));
        const translated = lane !== lanes[0];
        const sum = (k: keyof StreamSummary) => col(rs, c, k).reduce((x, y) => x + y, 0);
        const row: Row = {
          metric: `${lane.name}, ${at}: TTFB p50 / p99, gap p99; streams / failed; CPU per stream`,
          target: translated && c === 1 ? `first event ≤ untranslated + ${targetMs} ms` : undefined,
          gateway: `${ms(median(col(rs, c, 'ttfbP50')))} / ${ms(median(col(rs, c, 'ttfbP99')))}, ${ms(median(col(rs, c, 'gapP99')))}; ${sum('streams')} / ${sum('failed')}; ${fmt(median(rs.map((r) => r[c].cpuMsPerStream)), 2, ' ms')}`,
          delta: translated ? `${signed(added)} first event` : undefined,
          pass: translated && c === 1 ? added <= targetMs && sum('failed') === 0 : sum('failed') === 0 ? undefined : false,
        };
        rows.push(row);
        if (translated && c === 1) headline.push({ ...row, metric: `translated stream (${lane.name}), 1 stream: added first-event delay over untranslated`, gateway: signed(added) });
      }
    }
    const errs = Object.values(runs).flat().flatMap((r) => levels.flatMap((c) => Object.entries(r[c].s.errors)));
    return {
      title: 'Translated streams (SSE, 20 chunks 5 ms apart, gateway only)',
      rows, headline,
      notes: [
        `${seconds} s per lane and level per run; lanes interleaved run by run; ${ctx.runs} runs. "gateway − direct" here is each translated lane's TTFB p50 minus the untranslated lane's in the same run (the median of those differences).`,
        'The untranslated lane passes the vendor\'s bytes; the Responses and Messages clients are translated from the unified format by their dialect\'s stream transform (JSONata, per event); the last lane translates a Messages-format vendor\'s events into unified chunks.',
        'CPU per stream: the gateway\'s utime + stime during the lane\'s runs divided by the streams completed (20 events each).',
        ...(errs.length ? [`stream errors: ${errs.map(([k, n]) => `${k} ×${n}`).join(', ')}`] : []),
      ],
    };
  },
};
