// Video result download: a veo3 task's file through the gateway vs straight from the simulator; MB/s and gateway RSS growth.
import { request, type IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { interleaved, type BenchContext, type Scenario, type Section, type Target } from '../scenario.js';
import { RssSampler, rssBytes } from '../proc-stats.js';
import { fmt, median } from '../stats.js';

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One JSON request with a time bound; rejects on a non-2xx status. */
function json(method: string, url: string, key: string | undefined, body?: unknown, timeoutMs = 15_000): Promise<any> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers.authorization = `Bearer ${key}`;
    const req = request(url, { method, headers, timeout: timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => {
        if ((res.statusCode ?? 0) >= 300) return reject(new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 300)}`));
        try { resolve(JSON.parse(text)); } catch { reject(new Error(`${method} ${url}: not JSON: ${text.slice(0, 200)}`)); }
      });
    });
    req.once('timeout', () => req.destroy(new Error(`${method} ${url}: timed out`)));
    req.once('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export interface Download { bytes: number; seconds: number; status: number }

/**
 * Streams a GET and discards the bytes. `rateBps` paces reading (pause/resume) like a slow client; `maxMs` makes
 * the client give up (destroy the socket) after that long. Resolves with what it read either way.
 */
export function fetchDiscard(url: string, key: string | undefined, signal: AbortSignal, rateBps = Infinity, maxMs = 60_000): Promise<Download> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let bytes = 0;
    let status = 0;
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      req.destroy();
      if (err) reject(err); else resolve({ bytes, seconds: (performance.now() - t0) / 1000, status });
    };
    const onAbort = () => finish();
    const timer = setTimeout(() => finish(), maxMs);
    signal.addEventListener('abort', onAbort, { once: true });
    const req = request(url, { headers: key ? { authorization: `Bearer ${key}` } : {} }, (res: IncomingMessage) => {
      status = res.statusCode ?? 0;
      if (status !== 200) { res.resume(); return finish(new Error(`GET ${url}: ${status}`)); }
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (rateBps === Infinity) return;
        const aheadMs = (bytes / rateBps) * 1000 - (performance.now() - t0);
        if (aheadMs > 1) { res.pause(); setTimeout(() => res.resume(), aheadMs); }
      });
      res.once('end', () => finish());
      res.once('error', (e) => finish(e));
    });
    req.once('error', (e) => finish(done ? undefined : e));
    req.end();
  });
}

/** Runs fn while sampling the gateway's VmRSS every 50 ms; growth = peak − the value just before. */
async function withRss<T>(pid: number, fn: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const base = rssBytes(pid);
  const s = new RssSampler(pid, 50);
  s.start();
  try {
    const result = await fn();
    s.sample();
    return { result, growth: Math.max(0, s.peak - base) };
  } finally {
    s.stop();
  }
}

/** Submits a veo3 task that completes on the first poll, waits for `completed`, and finds its file name in the simulator. */
async function prepare(ctx: BenchContext, size: number): Promise<{ id: string; fileName: string }> {
  const nonce = randomUUID();
  const g = ctx.gateway;
  const task = await json('POST', `${g.url}/v1/video/generations`, g.key, { model: 'veo3', prompt: `bench download ${nonce} [sim polls=0 size_bytes=${size}]` });
  const id = String(task.id);
  let status = '';
  for (let i = 0; i < 100 && !ctx.signal.aborted; i++) {
    status = String((await json('GET', `${g.url}/v1/videos/${id}`, g.key)).status);
    if (status === 'completed' || status === 'failed') break;
    await sleep(100);
  }
  if (status !== 'completed') throw new Error(`task ${id} is ${status || 'unknown'}, not completed`);
  const sim = await json('GET', `${ctx.direct.url}/_sim/video/tasks`, undefined);
  const t = (sim.data as { prompt?: string; fileName?: string }[]).find((x) => x.prompt?.includes(nonce));
  if (!t?.fileName) throw new Error('the simulator has no file for the download task');
  return { id, fileName: t.fileName };
}

interface Run { mbps: number; rssGrowth: number }

export const download: Scenario = {
  name: 'download',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const size = (ctx.mode === 'full' ? 500 : 200) * MB;
    const { id, fileName } = await prepare(ctx, size);
    const url = (t: Target) => (t.name === 'gateway' ? `${t.url}/v1/videos/${id}/content` : `${t.url}/files/${fileName}`);
    const key = (t: Target) => (t.name === 'gateway' ? t.key : undefined);
    await fetchDiscard(url(ctx.gateway), key(ctx.gateway), ctx.signal, Infinity, 30_000); // warm-up: JIT, connection pools
    const runs = await interleaved(ctx, async (t, i): Promise<Run> => {
      ctx.log(`download: ${t.name} ${size / MB} MB, run ${i + 1}/${ctx.runs}`);
      const { result, growth } = await withRss(ctx.gatewayPid, () => fetchDiscard(url(t), key(t), ctx.signal, Infinity, 60_000));
      if (result.bytes !== size) throw new Error(`${t.name}: read ${result.bytes} of ${size} bytes`);
      return { mbps: result.bytes / MB / result.seconds, rssGrowth: t.name === 'gateway' ? growth : NaN };
    });
    ctx.log('download: slow client (20 MB/s, gives up after 3 s)');
    const slow = await withRss(ctx.gatewayPid, () => fetchDiscard(url(ctx.gateway), key(ctx.gateway), ctx.signal, 20 * MB, 3000));
    const g = median(runs.gateway.map((r) => r.mbps));
    const d = median(runs.direct.map((r) => r.mbps));
    const ratio = g / d;
    const grow = median(runs.gateway.map((r) => r.rssGrowth)) / MB;
    const slowGrow = slow.growth / MB;
    return {
      title: `Video download (${size / MB} MB veo3 result, streamed and discarded by the client)`,
      rows: [
        { metric: 'throughput, MB/s', target: '≥ 50 % of direct', gateway: fmt(g, 0), direct: fmt(d, 0), delta: `${fmt((ratio - 1) * 100, 1)} %`, pass: ratio >= 0.5 },
        { metric: 'gateway peak RSS growth during a full-speed download', target: '≤ 16 MB', gateway: fmt(grow, 1, ' MB'), pass: grow <= 16 },
        { metric: `gateway peak RSS growth, slow client (20 MB/s, leaves after 3 s; read ${fmt(slow.result.bytes / MB, 0)} MB)`, target: '≤ 16 MB', gateway: fmt(slowGrow, 1, ' MB'), pass: slowGrow <= 16 },
      ],
      perRun: {
        'gateway MB/s': runs.gateway.map((r) => r.mbps), 'direct MB/s': runs.direct.map((r) => r.mbps),
        'gateway RSS growth MB': runs.gateway.map((r) => r.rssGrowth / MB),
      },
      notes: [
        'Gateway: `GET /v1/videos/{id}/content`; direct: the same file from the simulator\'s `GET /files/<name>`. One task for all runs, after one unrecorded gateway download.',
        'RSS: the gateway\'s VmRSS sampled every 50 ms during each download; growth = peak − the value just before it.',
      ],
    };
  },
};
