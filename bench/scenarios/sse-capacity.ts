// Concurrent-stream capacity: ramps the number of long streams held open at once until one stalls or fails.
import { Agent } from 'node:http';
import { peakOpen, runStream, summarize, type StreamResult } from '../sse-client.js';
import type { BenchContext, Row, Scenario, Section, Target } from '../scenario.js';
import { fmt, fmtInt } from '../stats.js';
import { sseBody } from './sse.js';

const chunks = 40;
const intervalMs = 200; // ~8 s per stream: longer than the slowest ramp (2,000 in 2 s), so every stream overlaps every other
const stallMs = 1000;
const batch = 50; // streams opened per step of the ramp, so connects do not overflow the listen backlog
const stepMs = 50; // 1,000 connects a second: faster, and the client's own core (shared with the simulator) queues them

interface Level { n: number; held: boolean; peakOpen: number; maxGap: number; ttfbP99: number; failed: number; errors: string; emfile: boolean }

async function hold(ctx: BenchContext, t: Target, n: number): Promise<Level> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const body = sseBody(chunks, intervalMs);
  const pending: Promise<StreamResult>[] = [];
  for (let i = 0; i < n && !ctx.signal.aborted; i += batch) {
    for (let j = i; j < Math.min(n, i + batch); j++) {
      pending.push(runStream({ agent, target: t, path: '/v1/chat/completions', body, timeoutMs: 30_000, signal: ctx.signal }));
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
  const results = await Promise.all(pending);
  agent.destroy();
  const s = summarize(results);
  const peak = peakOpen(results);
  const errors = Object.entries(s.errors).map(([k, v]) => `${k} ×${v}`).join(', ');
  return {
    n, peakOpen: peak, maxGap: s.maxGap, ttfbP99: s.ttfbP99, failed: s.failed + (n - results.length), errors,
    emfile: 'EMFILE' in s.errors, held: s.failed === 0 && results.length === n && s.maxGap <= stallMs && peak >= n,
  };
}

export const sseCapacity: Scenario = {
  name: 'sse-capacity',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const levels = ctx.mode === 'full' ? [250, 500, 1000, 2000] : [1000];
    const rows: Row[] = [];
    const notes: string[] = [];
    let best = 0;
    for (const n of levels) {
      if (ctx.signal.aborted) break;
      ctx.log(`sse-capacity: gateway ${n} concurrent streams`);
      const g = await hold(ctx, ctx.gateway, n);
      let d: Level | undefined;
      // Only when the gateway misses: was it the gateway, or can this rig not hold that many even without it?
      if (!g.held && !ctx.signal.aborted) {
        ctx.log(`sse-capacity: direct ${n} concurrent streams (to attribute the miss)`);
        d = await hold(ctx, ctx.direct, n);
      }
      const show = (l: Level | undefined) => (l ? `${l.held ? 'held' : 'stalled'}; peak open ${fmtInt(l.peakOpen)}, max gap ${fmt(l.maxGap, 0, ' ms')}, TTFB p99 ${fmt(l.ttfbP99, 1, ' ms')}, failed ${l.failed}` : 'not run');
      rows.push({ metric: `${fmtInt(n)} streams`, gateway: show(g), direct: show(d) });
      if (g.errors) notes.push(`${fmtInt(n)} streams, gateway errors: ${g.errors}`);
      if (d?.errors) notes.push(`${fmtInt(n)} streams, direct errors: ${d.errors}`);
      if (g.emfile || d?.emfile) notes.push('EMFILE: raise the open-file limit (`ulimit -n`) for the bench and the gateway to about 4× the stream count.');
      if (!g.held) break;
      best = n;
    }
    rows.unshift({
      metric: 'concurrent streams held with no stall', target: '≥ 1,000', gateway: fmtInt(best), pass: best >= 1000,
    });
    return {
      title: 'Concurrent streams (no stall)',
      rows,
      notes: [
        `Levels ${levels.map((n) => fmtInt(n)).join(', ')}; each stream sends ${chunks} chunks ${intervalMs} ms apart; opened ${batch} every ${stepMs} ms.`,
        `A level is held when every stream ends with [DONE], none waits more than ${stallMs} ms for its first byte or between two events, and all were open at once. The ramp stops at the first level not held.`,
        ...notes,
      ],
    };
  },
};
