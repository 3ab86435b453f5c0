// Video task submit and query throughput (closed loop, autocannon), gateway vs the simulator's own unified API; informational.
import autocannon from 'autocannon';
import type { BenchContext, Row, Scenario, Section, Target } from '../scenario.js';
import { fmt, fmtInt, percentiles } from '../stats.js';

const connections = 16;
const maxIds = 200_000; // ids and latency samples kept: bounds memory whatever the rate
const maxSamples = 1_000_000;

interface Phase { rps: number; p50: number; p99: number; ok: number; failed: number }

/** One closed-loop run; `next` picks each request (autocannon calls setupRequest before every send). */
function load(t: Target, seconds: number, signal: AbortSignal, req: autocannon.Request): Promise<Phase> {
  const latencies: number[] = [];
  let ok = 0;
  let non2xx = 0;
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const inst = autocannon({
      url: t.url, connections, duration: seconds, timeout: 10, pipelining: 1,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` },
      requests: [req],
    }, (err, res) => {
      signal.removeEventListener('abort', abort);
      if (err) return reject(err);
      const s = (performance.now() - t0) / 1000;
      const [p50, p99] = percentiles(latencies, [50, 99]);
      resolve({ rps: ok / s, p50, p99, ok, failed: non2xx + res.errors + res.timeouts });
    });
    inst.on('response', (_c, status, _b, ms) => {
      if (status >= 200 && status < 300) { ok++; if (latencies.length < maxSamples) latencies.push(ms); } else non2xx++;
    });
    const abort = () => inst.stop();
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** Submits open tasks for `seconds`, collecting their ids, then queries those ids round-robin for `seconds`. */
async function measure(ctx: BenchContext, t: Target, seconds: number): Promise<{ submit: Phase; query: Phase; ids: number }> {
  const gw = t.name === 'gateway';
  const ids: string[] = [];
  const body = JSON.stringify({ model: 'veo3', prompt: 'bench task throughput [sim polls=1000]' });
  ctx.log(`tasks: ${t.name} submit, ${connections} conns, ${seconds} s`);
  const submit = await load(t, seconds, ctx.signal, {
    method: 'POST', path: gw ? '/v1/video/generations' : '/v1/video/create', body,
    onResponse: (status, text) => {
      if (status !== 200 || ids.length >= maxIds) return;
      try { ids.push(String(JSON.parse(text).id)); } catch { /* counted as ok by status; id unusable */ }
    },
  });
  if (ids.length === 0 || ctx.signal.aborted) return { submit, query: { rps: NaN, p50: NaN, p99: NaN, ok: 0, failed: 0 }, ids: 0 };
  let n = 0;
  ctx.log(`tasks: ${t.name} query over ${ids.length} ids, ${seconds} s`);
  const query = await load(t, seconds, ctx.signal, {
    method: 'GET',
    setupRequest: (r) => {
      const id = ids[n++ % ids.length];
      return { ...r, body: undefined, path: gw ? `/v1/video/generations/${id}` : `/v1/video/query?id=${encodeURIComponent(id)}` };
    },
  });
  return { submit, query, ids: ids.length };
}

export const tasks: Scenario = {
  name: 'tasks',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const seconds = ctx.mode === 'full' ? 10 : 4;
    const g = await measure(ctx, ctx.gateway, seconds);
    const d = ctx.signal.aborted ? undefined : await measure(ctx, ctx.direct, seconds);
    const lat = (p?: Phase) => (p ? `${fmt(p.p50, 2)} / ${fmt(p.p99, 2)} ms` : '—');
    const rows: Row[] = [];
    for (const k of ['submit', 'query'] as const) {
      const name = k === 'submit' ? 'submit (POST /v1/video/generations)' : 'query (GET /v1/video/generations/{id})';
      rows.push({ metric: `${name}, requests/s`, gateway: fmtInt(g[k].rps), direct: fmtInt(d?.[k].rps), delta: d ? `${fmt(((g[k].rps - d[k].rps) / d[k].rps) * 100, 1)} %` : undefined });
      rows.push({ metric: `${name}, latency p50 / p99`, gateway: lat(g[k]), direct: lat(d?.[k]) });
    }
    rows.push({ metric: 'non-2xx or failed requests', gateway: String(g.submit.failed + g.query.failed), direct: d ? String(d.submit.failed + d.query.failed) : '—' });
    return {
      title: `Video tasks: submit and query throughput (closed loop, ${connections} connections, ${seconds} s each; informational)`,
      rows,
      notes: [
        `veo3 tasks with \`[sim polls=1000]\`, so they stay open; ${fmtInt(g.ids)} gateway tasks queried round-robin. Direct = the simulator's own \`POST /v1/video/create\` and \`GET /v1/video/query?id=\`.`,
        'A gateway query of an unfinished task may refresh it from the simulator inline; the background poller also polls the open tasks meanwhile. This runs last so those tasks load no other scenario.',
      ],
    };
  },
};
