// Non-streaming chat, closed loop at 1 and 64 connections: throughput, latency, added latency, gateway CPU per request.
import { closedLoop, type ClosedLoopResult } from '../closed-loop.js';
import { chatBody, interleaved, type BenchContext, type Row, type Scenario, type Section, type Target } from '../scenario.js';
import { cpuSeconds, mainThreadCpuSeconds } from '../proc-stats.js';
import { fmt, fmtInt, median, pairedDelta, percentiles, signed } from '../stats.js';

const path = '/v1/chat/completions';
const levels = [1, 64] as const;

interface Measured { rps: number; p50: number; p90: number; p99: number; gwCpuUs: number; gwMainUs: number; simCpuUs: number; failed: number }

function measure(r: ClosedLoopResult): Measured {
  const [p50, p90, p99] = percentiles(r.latencies, [50, 90, 99]);
  const per = (s: number | undefined) => (s === undefined || r.ok === 0 ? NaN : (s * 1e6) / r.ok);
  return { rps: r.rps, p50, p90, p99, gwCpuUs: per(r.cpu.gateway), gwMainUs: per(r.cpu.gatewayMain), simCpuUs: per(r.cpu.sim), failed: r.non2xx + r.errors };
}

export const chatJson: Scenario = {
  name: 'chat-json',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const seconds = ctx.mode === 'full' ? 5 : 3;
    const body = chatBody();
    const load = (t: Target, connections: number, secs: number) => closedLoop({
      target: t, path, body, connections, seconds: secs, signal: ctx.signal,
      // Gateway CPU is read only while the gateway is the target: in direct runs it idles.
      watch: t.name === 'gateway'
        ? { gateway: () => cpuSeconds(ctx.gatewayPid), gatewayMain: () => mainThreadCpuSeconds(ctx.gatewayPid), sim: () => cpuSeconds(ctx.simPid) }
        : { sim: () => cpuSeconds(ctx.simPid) },
    });
    // Warm-up, not recorded: JIT, the token cache, keep-alive pools on both sides.
    for (const t of [ctx.gateway, ctx.direct]) await load(t, 64, ctx.mode === 'full' ? 3 : 2);
    const runs = await interleaved(ctx, async (t, i) => {
      const out: Record<number, Measured> = {};
      for (const c of levels) {
        ctx.log(`chat-json: ${t.name} ${c} conn, run ${i + 1}/${ctx.runs}`);
        out[c] = measure(await load(t, c, seconds));
      }
      return out;
    });
    return summarize(runs.gateway, runs.direct, seconds);
  },
};

function summarize(gw: Record<number, Measured>[], di: Record<number, Measured>[], seconds: number): Section {
  const col = (rs: Record<number, Measured>[], c: number, k: keyof Measured) => rs.map((r) => r[c][k]);
  const med = (rs: Record<number, Measured>[], c: number, k: keyof Measured) => median(col(rs, c, k));
  const lat = (rs: Record<number, Measured>[], c: number) =>
    `${fmt(med(rs, c, 'p50'), 3)} / ${fmt(med(rs, c, 'p90'), 3)} / ${fmt(med(rs, c, 'p99'), 3)} ms`;
  const rows: Row[] = [];
  const perRun: Record<string, number[]> = {};
  for (const c of levels) {
    const conns = `${c} conn${c > 1 ? 's' : ''}`;
    const rpsG = med(gw, c, 'rps');
    const rpsD = med(di, c, 'rps');
    rows.push({
      metric: `requests/s, ${conns}`, target: c === 64 ? '≥ 6,500' : undefined,
      gateway: fmtInt(rpsG), direct: fmtInt(rpsD), delta: `${fmt(((rpsG - rpsD) / rpsD) * 100, 1)} %`,
      pass: c === 64 ? rpsG >= 6500 : undefined,
    });
    rows.push({ metric: `latency p50 / p90 / p99, ${conns}`, gateway: lat(gw, c), direct: lat(di, c) });
    if (c === 1) {
      const a50 = pairedDelta(col(gw, 1, 'p50'), col(di, 1, 'p50'));
      const a99 = pairedDelta(col(gw, 1, 'p99'), col(di, 1, 'p99'));
      rows.push({ metric: 'added latency p50, 1 conn', target: '≤ 0.35 ms', delta: signed(a50), pass: a50 <= 0.35 });
      rows.push({ metric: 'added latency p99, 1 conn', target: '≤ 1 ms', delta: signed(a99), pass: a99 <= 1 });
    }
    const cpu = med(gw, c, 'gwCpuUs');
    rows.push({ metric: `gateway CPU per request, ${conns}`, target: '≤ 150 µs', gateway: fmt(cpu, 0, ' µs'), pass: cpu <= 150 });
    const main = med(gw, c, 'gwMainUs');
    rows.push({ metric: `gateway CPU split, main thread / other threads, ${conns}`, gateway: `${fmt(main, 0, ' µs')} / ${fmt(cpu - main, 0, ' µs')}` });
    rows.push({ metric: `simulator CPU per request, ${conns}`, gateway: fmt(med(gw, c, 'simCpuUs'), 0, ' µs'), direct: fmt(med(di, c, 'simCpuUs'), 0, ' µs') });
    perRun[`gateway req/s ${conns}`] = col(gw, c, 'rps');
    perRun[`direct req/s ${conns}`] = col(di, c, 'rps');
    perRun[`gateway p50 ms ${conns}`] = col(gw, c, 'p50');
    perRun[`direct p50 ms ${conns}`] = col(di, c, 'p50');
    perRun[`gateway CPU µs/req ${conns}`] = col(gw, c, 'gwCpuUs');
  }
  const failedG = gw.reduce((s, r) => s + levels.reduce((a, c) => a + r[c].failed, 0), 0);
  const failedD = di.reduce((s, r) => s + levels.reduce((a, c) => a + r[c].failed, 0), 0);
  rows.push({ metric: 'non-2xx or failed requests (all runs)', target: '0', gateway: String(failedG), direct: String(failedD), pass: failedG === 0 && failedD === 0 });
  return {
    title: 'Non-streaming chat (closed loop, autocannon)',
    rows,
    perRun,
    notes: [
      `${seconds} s per level per run after a warm-up; body \`${chatBody().toString()}\`.`,
      'CPU per request = (utime + stime of the gateway process, all threads, from /proc/<pid>/stat) ÷ completed requests.',
      'Other threads = libuv\'s threadpool (SQLite statements, async file writes of the log) and V8\'s GC and compiler helpers.',
    ],
  };
}
