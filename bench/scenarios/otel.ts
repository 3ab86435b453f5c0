// `--otel`: what tracing costs. Three extra gateways on the same footing (on the gateway's core, loaded one at a
// time, as the main gateway and the bare proxy are; one process each, same store,
// config and key): one without OpenTelemetry variables, one exporting every request's spans (the default
// parentbased_always_on sampler, OTLP/HTTP protobuf) to a local receiver in this process, and one sampling a tenth
// of the traces (parentbased_traceidratio 0.1, as production usually runs); non-streaming chat, closed loop at 1 and
// 64 connections, runs interleaved. Reports CPU per request and latency of each.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closedLoop, type ClosedLoopResult } from '../closed-loop.js';
import { chatBody, type BenchContext, type Row, type Scenario, type Section, type Target } from '../scenario.js';
import { cpuSeconds } from '../proc-stats.js';
import { fmt, fmtInt, median, percentiles, signed } from '../stats.js';

const levels = [1, 64] as const;

type Variant = 'off' | 'on' | 'tenth';
const variants: Variant[] = ['off', 'on', 'tenth'];
const label: Record<Variant, string> = { off: 'off', on: 'on, every request', tenth: 'on, 1 in 10 sampled' };

interface Measured { rps: number; cpuUs: number; p50: number; p99: number; failed: number }

/** An OTLP/HTTP endpoint that accepts and counts exports (answers an empty ExportTraceServiceResponse). */
async function countingReceiver() {
  const seen = { exports: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => { seen.bytes += c.length; });
    req.on('end', () => { seen.exports++; res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

export const otelScenario: Scenario = {
  name: 'otel',
  quick: false,
  async run(ctx: BenchContext): Promise<Section> {
    const seconds = ctx.mode === 'full' ? 5 : 3;
    const body = chatBody();
    const receiver = await countingReceiver();
    const single = { SWITCHYARD_WORKERS: '1' };
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'switchyard-bench' };
    const gateways = {
      off: await ctx.extraGateway('gateway-otel-off', { ...single, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' }, true),
      on: await ctx.extraGateway('gateway-otel-on', { ...single, ...otel }, true),
      tenth: await ctx.extraGateway('gateway-otel-tenth', { ...single, ...otel, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }, true),
    };
    const runs: Record<Variant, Record<number, Measured>[]> = { off: [], on: [], tenth: [] };
    let requestsOn = 0;
    try {
      const load = async (g: { url: string; pid: number }, connections: number, secs: number): Promise<Measured> => {
        const target: Target = { name: 'gateway', url: g.url, key: ctx.gateway.key };
        const r = await closedLoop({ target, path: '/v1/chat/completions', body, connections, seconds: secs, signal: ctx.signal, watch: { proxy: () => cpuSeconds(g.pid) } });
        return measure(r);
      };
      for (const g of Object.values(gateways)) await load(g, 64, 2); // warm-up: JIT, token cache, pools (and the SDK)
      const exports0 = receiver.seen.exports;
      const bytes0 = receiver.seen.bytes;
      for (let i = 0; i < ctx.runs && !ctx.signal.aborted; i++) {
        for (const name of variants) {
          const out: Record<number, Measured> = {};
          for (const c of levels) {
            if (ctx.signal.aborted) break;
            ctx.log(`otel: tracing ${name}, ${c} conn, run ${i + 1}/${ctx.runs}`);
            out[c] = await load(gateways[name], c, seconds);
            if (name === 'on') requestsOn += out[c].rps * seconds;
          }
          runs[name].push(out);
        }
      }
      await new Promise((r) => setTimeout(r, 6000)); // the batch processor's 5 s delay: the last spans arrive
      return summarize(runs, receiver.seen.exports - exports0, receiver.seen.bytes - bytes0, requestsOn, seconds);
    } finally {
      for (const g of Object.values(gateways)) {
        ctx.childCpu?.(safeCpu(g.pid));
        await g.stop();
      }
      await receiver.close();
    }
  },
};

function measure(r: ClosedLoopResult): Measured {
  const [p50, p99] = percentiles(r.latencies, [50, 99]);
  return { rps: r.rps, cpuUs: r.ok ? (r.cpu.proxy * 1e6) / r.ok : NaN, p50, p99, failed: r.non2xx + r.errors };
}

function summarize(runs: Record<Variant, Record<number, Measured>[]>, exports: number, bytes: number, requestsOn: number, seconds: number): Section {
  const med = (k: Variant, c: number, m: keyof Measured) => median(runs[k].map((r) => r[c]?.[m]).filter((v): v is number => Number.isFinite(v)));
  const rows: Row[] = [];
  const perRun: Record<string, number[]> = {};
  for (const c of levels) {
    const conns = `${c} conn${c > 1 ? 's' : ''}`;
    const cpuOff = med('off', c, 'cpuUs');
    for (const v of variants) {
      const cpu = med(v, c, 'cpuUs');
      rows.push({
        metric: `${conns}, tracing ${label[v]}: CPU per request · req/s · p50 / p99`,
        gateway: `${fmt(cpu, 0, ' µs')} · ${fmtInt(med(v, c, 'rps'))} · ${fmt(med(v, c, 'p50'), 3)} / ${fmt(med(v, c, 'p99'), 3)} ms`,
        delta: v === 'off' ? undefined : `${signed(((cpu - cpuOff) / cpuOff) * 100, 1, ' %')} CPU`,
      });
      perRun[`cpu µs/req ${v} ${conns}`] = runs[v].map((r) => r[c]?.cpuUs ?? NaN);
    }
  }
  const failed = variants.reduce((n, v) => n + runs[v].reduce((m, r) => m + levels.reduce((k, c) => k + (r[c]?.failed ?? 0), 0), 0), 0);
  return {
    title: 'Tracing (OpenTelemetry) off vs on: non-streaming chat',
    rows,
    perRun,
    notes: [
      `Three extra gateways on the gateway's core (one loaded at a time), one process each, runs of ${seconds} s interleaved (off, every request, 1 in 10); exported as OTLP/HTTP protobuf to a receiver in the bench process. "gateway − direct" here is the CPU per request against tracing off.`,
      `The receiver got ${fmtInt(exports)} exports, ${fmt(bytes / 1024 / 1024, 1)} MB in all; about ${fmt(requestsOn > 0 ? bytes / requestsOn : NaN, 0)} bytes per request traced in full (an upper bound: the sampled gateway's exports are counted too); ${fmtInt(failed)} non-2xx or failed requests.`,
    ],
  };
}

function safeCpu(pid: number): number {
  try { return cpuSeconds(pid); } catch { return NaN; }
}
