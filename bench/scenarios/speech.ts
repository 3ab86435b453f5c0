// Speech first byte: `POST /v1/audio/speech` (tts-1, mp3, the audio bytes streamed) through the gateway, through the
// bare node:http pass-through and straight to the simulator: time to the first audio byte, p50 / p99 over a fixed
// number of requests at modest concurrency, and the proxy's CPU per request.
import { Agent, request } from 'node:http';
import { cpuSeconds } from '../proc-stats.js';
import { foreignLoadReport, interleaved3, type BenchContext, type Row, type Scenario, type Section, type Target } from '../scenario.js';
import { fmt, fmtInt, fmtRatio, median, pairedDelta, pairedRatio, percentiles, signed } from '../stats.js';

const concurrency = 8;
const timeoutMs = 15_000;
/** One second of audio: the simulator sends it as 10 chunks 10 ms apart, the first as soon as the headers. */
const body = Buffer.from(JSON.stringify({
  model: 'tts-1', voice: 'alloy', response_format: 'mp3', input: 'The quick brown fox jumps over the lazy dog. [sim seconds=1]',
}));

interface One { ok: boolean; status: number; ttfbMs: number; totalMs: number; bytes: number; error?: string }

/** One request: ms from sending it to the first body byte (audio) and to its end. */
function speak(agent: Agent, t: Target, signal: AbortSignal): Promise<One> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const r: One = { ok: false, status: 0, ttfbMs: NaN, totalMs: NaN, bytes: 0 };
    let settled = false;
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      r.totalMs = performance.now() - t0;
      if (error) r.error = error;
      r.ok = !error && r.status === 200 && r.bytes > 0;
      resolve(r);
    };
    const req = request(new URL('/v1/audio/speech', t.url), {
      method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': String(body.length), authorization: `Bearer ${t.key}` },
    }, (res) => {
      r.status = res.statusCode ?? 0;
      res.on('data', (chunk: Buffer) => {
        if (r.bytes === 0) r.ttfbMs = performance.now() - t0;
        r.bytes += chunk.length;
      });
      res.once('end', () => finish(r.status === 200 ? undefined : `HTTP ${r.status}`));
      res.once('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
    });
    const timer = setTimeout(() => { req.destroy(); finish('timeout'); }, timeoutMs);
    const onAbort = () => { req.destroy(); finish('aborted'); };
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
    req.end(body);
  });
}

interface Measured {
  p50: number; p99: number; totalP50: number;
  /** Bytes of audio in a complete answer (median). */
  bytes: number;
  /** CPU ms per request of the proxy under test (gateway or bare); NaN for direct. */
  cpuMs: number;
  done: number; failed: number; errors: Record<string, number>;
}

/** `count` requests by `concurrency` workers on keep-alive connections. */
async function load(ctx: BenchContext, t: Target, count: number, pid: number | undefined): Promise<Measured> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const results: One[] = [];
  let started = 0;
  const c0 = pid === undefined ? NaN : cpuSeconds(pid);
  try {
    const worker = async () => {
      while (started < count && !ctx.signal.aborted) {
        started++;
        results.push(await speak(agent, t, ctx.signal));
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  const cpu = pid === undefined ? NaN : cpuSeconds(pid) - c0;
  const good = results.filter((r) => r.ok);
  const [p50, p99] = percentiles(good.map((r) => r.ttfbMs), [50, 99]);
  const [totalP50] = percentiles(good.map((r) => r.totalMs), [50]);
  const errors: Record<string, number> = {};
  for (const r of results) if (!r.ok) errors[r.error ?? 'no audio'] = (errors[r.error ?? 'no audio'] ?? 0) + 1;
  const [bytes] = percentiles(good.map((r) => r.bytes), [50]);
  return { p50, p99, totalP50, bytes, cpuMs: (cpu * 1000) / Math.max(1, results.length), done: results.length, failed: results.length - good.length, errors };
}

export const speechFirstByte: Scenario = {
  name: 'speech',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const count = ctx.mode === 'full' ? 400 : 200;
    const pidOf: Record<Target['name'], number | undefined> = { gateway: ctx.gatewayPid, bare: ctx.barePid, direct: undefined };
    for (const t of [ctx.gateway, ctx.bare, ctx.direct]) {
      if (ctx.signal.aborted) break;
      await load(ctx, t, 40, pidOf[t.name]); // warm-up, not recorded
    }
    const runs = await interleaved3(ctx, async (t, i) => {
      ctx.log(`speech: ${t.name} ${count} requests, run ${i + 1}/${ctx.runs}`);
      return load(ctx, t, count, pidOf[t.name]);
    });
    const g = runs.gateway, b = runs.bare, d = runs.direct;
    const col = (rs: Measured[], k: keyof Measured) => rs.map((r) => r[k] as number);
    const ms = (rs: Measured[], k: keyof Measured) => fmt(median(col(rs, k)), 3, ' ms');
    const rows: Row[] = [];
    for (const [k, label] of [['p50', 'p50'], ['p99', 'p99']] as const) {
      rows.push({
        metric: `time to first audio byte ${label}, ${concurrency} concurrent`,
        gateway: ms(g, k), bare: ms(b, k), direct: ms(d, k),
        vsBare: signed(pairedDelta(col(g, k), col(b, k))), delta: signed(pairedDelta(col(g, k), col(d, k))),
      });
    }
    rows.push({
      metric: 'whole answer p50 (1 s of mp3, 10 chunks 10 ms apart)',
      gateway: ms(g, 'totalP50'), bare: ms(b, 'totalP50'), direct: ms(d, 'totalP50'),
      vsBare: signed(pairedDelta(col(g, 'totalP50'), col(b, 'totalP50'))), delta: signed(pairedDelta(col(g, 'totalP50'), col(d, 'totalP50'))),
    });
    rows.push({ metric: 'audio bytes per answer', gateway: fmtInt(median(col(g, 'bytes'))), bare: fmtInt(median(col(b, 'bytes'))), direct: fmtInt(median(col(d, 'bytes'))) });
    rows.push({
      metric: 'proxy CPU per request (gateway ÷ bare)',
      gateway: fmt(median(col(g, 'cpuMs')), 3, ' ms'), bare: fmt(median(col(b, 'cpuMs')), 3, ' ms'),
      vsBare: fmtRatio(pairedRatio(col(g, 'cpuMs'), col(b, 'cpuMs'))),
    });
    const sum = (rs: Measured[], k: 'done' | 'failed') => rs.reduce((s, r) => s + r[k], 0);
    const tally = (rs: Measured[]) => `${sum(rs, 'done')} / ${sum(rs, 'failed')}`;
    rows.push({
      metric: 'requests / failed (all runs)', target: '0 failed',
      gateway: tally(g), bare: tally(b), direct: tally(d),
      pass: sum(g, 'failed') + sum(b, 'failed') + sum(d, 'failed') === 0 && sum(g, 'done') > 0,
    });
    const foreign = foreignLoadReport(runs.foreign);
    rows.push(...foreign.rows);
    const perRun: Record<string, number[]> = { ...foreign.perRun };
    for (const [name, rs] of [['gateway', g], ['bare', b], ['direct', d]] as const) {
      perRun[`${name} first byte p50 ms`] = col(rs, 'p50');
      perRun[`${name} first byte p99 ms`] = col(rs, 'p99');
    }
    const errs = [...g, ...b, ...d].flatMap((r) => Object.entries(r.errors));
    return {
      title: `Speech first byte (POST /v1/audio/speech, tts-1 mp3, ${concurrency} concurrent)`,
      rows,
      perRun,
      notes: [
        `${count} requests per run by ${concurrency} workers on keep-alive connections, after a warm-up of 40; gateway, bare and direct interleaved run by run, their order rotated. Body \`${body.toString()}\`.`,
        'First audio byte = request sent → first body byte (the simulator writes the headers, then the first ~100 ms chunk at once, the rest 10 ms apart). p50 and p99 are per run, then the median of the runs; "gateway vs bare" and "gateway − direct" are medians of per-run differences.',
        'Proxy CPU per request = utime + stime of the gateway (gateway runs) or bare proxy (bare runs) over the run ÷ requests.',
        ...foreign.notes,
        ...(errs.length ? [`errors: ${errs.map(([k, n]) => `${k} ×${n}`).join(', ')}`] : []),
      ],
    };
  },
};
