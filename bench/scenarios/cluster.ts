// Cluster scaling (full mode): non-streaming chat req/s at 64 connections, SWITCHYARD_WORKERS=2 vs one worker, both unpinned.
import { cpus } from 'node:os';
import { closedLoop } from '../closed-loop.js';
import { chatBody, type BenchContext, type Scenario, type Section, type Target } from '../scenario.js';
import { fmt, fmtInt, median } from '../stats.js';

const connections = 64;

export const clusterScaling: Scenario = {
  name: 'cluster-scaling',
  quick: false,
  async run(ctx: BenchContext): Promise<Section> {
    const seconds = 5;
    const body = chatBody();
    const one = await ctx.extraGateway('gateway-1-worker', { SWITCHYARD_WORKERS: '1' });
    const two = await ctx.extraGateway('gateway-2-workers', { SWITCHYARD_WORKERS: '2' });
    const rps: Record<'one' | 'two', number[]> = { one: [], two: [] };
    let failed = 0;
    try {
      const target = (url: string): Target => ({ name: 'gateway', url, key: ctx.gateway.key });
      const run = async (t: Target, secs: number) => {
        const r = await closedLoop({ target: t, path: '/v1/chat/completions', body, connections, seconds: secs, signal: ctx.signal, watch: {} });
        failed += r.non2xx + r.errors;
        return r.rps;
      };
      for (const g of [one, two]) await run(target(g.url), 3); // warm-up: JIT and pools in every worker
      failed = 0;
      for (let i = 0; i < ctx.runs && !ctx.signal.aborted; i++) {
        ctx.log(`cluster: 1 worker, run ${i + 1}/${ctx.runs}`);
        rps.one.push(await run(target(one.url), seconds));
        if (ctx.signal.aborted) break;
        ctx.log(`cluster: 2 workers, run ${i + 1}/${ctx.runs}`);
        rps.two.push(await run(target(two.url), seconds));
      }
    } finally {
      await two.stop();
      await one.stop();
    }
    const r1 = median(rps.one);
    const r2 = median(rps.two);
    const ratio = r2 / r1;
    return {
      title: `Cluster scaling: non-streaming chat, ${connections} connections, 2 workers vs 1 (both unpinned)`,
      rows: [
        { metric: 'requests/s, 1 worker', gateway: fmtInt(r1) },
        { metric: 'requests/s, SWITCHYARD_WORKERS=2', gateway: fmtInt(r2) },
        { metric: 'speed-up, 2 workers ÷ 1', target: '≥ 1.7×', gateway: `${fmt(ratio, 2)}×`, pass: ratio >= 1.7 },
        { metric: 'non-2xx or failed requests', target: '0', gateway: String(failed), pass: failed === 0 },
      ],
      perRun: { '1 worker req/s': rps.one, '2 workers req/s': rps.two },
      notes: [
        'Two extra gateways on the same store and config, started for this scenario and stopped after it; the pinned main gateway idles meanwhile.',
        `On this ${cpus().length}-core machine the simulator and the load generator share the cores with the workers, so the ratio is a lower bound on what a second core gives the gateway alone.`,
      ],
    };
  },
};
