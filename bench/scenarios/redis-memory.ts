// Redis memory per request under steady chat traffic, on one server and on a three-master Redis Cluster. A closed
// request's ledger markers expire a window after its close (request scope here: seconds, SWITCHYARD_MARKER_TTL_*),
// so the store grows while the first window fills and, once it has passed, stops growing: the target is 0
// bytes and 0 keys per request after the window.
import { createClient } from '@keyv/redis';
import { openStore } from '../../src/store/open-store.js';
import { TokenStore } from '../../src/store/token-store.js';
import { startRedis } from '../../test/helpers/redis.js';
import { startRedisCluster } from '../../test/helpers/redis-cluster.js';
import { cpuSeconds } from '../proc-stats.js';
import { chatBody, type BenchContext, type Row, type Scenario, type Section, type Target } from '../scenario.js';
import { fmt, fmtInt, slope } from '../stats.js';

const windowS = 10; // the request scope's marker TTL: a chat request's markers live this long after its close
const afterS = 3 * windowS; // traffic after the window, where growth is measured
const settleS = windowS / 2; // after the window, Redis's active expiry catches up with the first markers to go
const perWave = 200; // requests sent at the start of every second
const concurrency = 16;
const ttlEnv = {
  SWITCHYARD_MARKER_TTL_REQUEST_MS: String(windowS * 1000),
  SWITCHYARD_MARKER_TTL_DURABLE_MS: String(2 * windowS * 1000),
  SWITCHYARD_MARKER_TTL_TOPUP_MS: String(2 * windowS * 1000),
};

/** A Redis deployment the scenario started: its store URI, what it holds now, its servers' pids, and its stop. */
interface Deployment { uri: string; read(): Promise<Usage>; pids(): Promise<number[]>; stop(): Promise<void> }
interface Usage { bytes: number; keys: number }
interface Sample extends Usage { requests: number }
interface Measured { during: Usage; after: Usage; end: Sample; failed: number }

const usedMemory = (info: string) => Number(/^used_memory:(\d+)/m.exec(info)?.[1]);
const processId = (info: string) => Number(/^process_id:(\d+)/m.exec(info)?.[1]);

async function single(): Promise<Deployment> {
  const server = await startRedis();
  const c = createClient({ url: server.uri });
  c.on('error', () => {});
  await c.connect();
  return {
    uri: server.uri,
    read: async () => ({ bytes: usedMemory(await c.info('memory')), keys: await c.dbSize() }),
    pids: async () => [processId(await c.info('server'))],
    async stop() { await c.close(); await server.stop(); },
  };
}

/** Three masters, no replicas: figures are the masters' sums. */
async function cluster(): Promise<Deployment> {
  const cl = await startRedisCluster({ masters: 3 });
  const each = async (args: string[]) => Promise.all((await cl.masterPorts()).map((p) => cl.command(p, args)));
  return {
    uri: cl.uri,
    read: async () => {
      const [infos, sizes] = await Promise.all([each(['INFO', 'memory']), each(['DBSIZE'])]);
      return { bytes: infos.reduce((n: number, i) => n + usedMemory(String(i)), 0), keys: sizes.reduce((n: number, k) => n + Number(k), 0) };
    },
    pids: async () => (await each(['INFO', 'server'])).map((i) => processId(String(i))),
    stop: () => cl.stop(),
  };
}

/** `n` chat requests, `concurrency` at a time; answers how many failed. */
async function wave(t: Target, n: number, body: string): Promise<number> {
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next++ < n) {
      try {
        const r = await fetch(`${t.url}/v1/chat/completions`, { method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` } });
        await r.arrayBuffer();
        if (r.status !== 200) failed++;
      } catch { failed++; }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return failed;
}

/** Growth per request over samples (least squares: one sample's allocator noise moves it little). */
function perRequest(s: Sample[]): Usage {
  const x = s.map((v) => v.requests);
  return { bytes: slope(x, s.map((v) => v.bytes)), keys: slope(x, s.map((v) => v.keys)) };
}

/**
 * A gateway on `d` with short marker windows and a token of its own; one wave a second: a few to warm up (token, rate
 * windows, usage cells: written once), then `windowS` seconds while the first window fills, then `afterS` seconds.
 */
async function measure(ctx: BenchContext, name: string, d: Deployment): Promise<Measured> {
  const store = await openStore(d.uri);
  const { key } = await new TokenStore(store, 0).create({ group: 'default', quota: 1e12 });
  await store.close();
  const gw = await ctx.extraGateway(`gateway-${name}`, { SWITCHYARD_STORE: d.uri, ...ttlEnv });
  const t: Target = { name: 'gateway', url: gw.url, key };
  const body = chatBody().toString();
  const samples: Sample[] = [];
  let sent = 0;
  let failed = 0;
  try {
    failed += await wave(t, 50, body);
    const t0 = performance.now() + 1000;
    for (let i = 0; i <= windowS + afterS && !ctx.signal.aborted; i++) {
      await new Promise((r) => setTimeout(r, Math.max(0, t0 + i * 1000 - performance.now())));
      samples.push({ requests: sent, ...(await d.read()) });
      if (i === windowS + afterS) break;
      failed += await wave(t, perWave, body);
      sent += perWave;
      if (i % 5 === 0) ctx.log(`redis-memory: ${name}, ${sent} requests, ${fmtInt(samples.at(-1)!.bytes)} B, ${samples.at(-1)!.keys} keys`);
    }
  } finally {
    ctx.childCpu?.(cpuSeconds(gw.pid));
    await gw.stop();
  }
  // While the window fills: every marker written is still there (the warm-up's go a second before its end).
  // After: from settleS past the window. Redis reclaims expired keys by sampling them, a little at a time, so the key
  // count first overshoots the live markers, then settles.
  return { during: perRequest(samples.slice(0, windowS)), after: perRequest(samples.slice(windowS + settleS)), end: samples.at(-1)!, failed };
}

/** No growth after the window: at most 2 % of what a request added while it filled (allocator and expiry noise). */
const flat = (m: Measured) => m.after.bytes <= 0.02 * m.during.bytes && m.after.keys <= 0.02 * m.during.keys;

export const redisMemory: Scenario = {
  name: 'redis-memory',
  quick: false,
  async run(ctx: BenchContext): Promise<Section> {
    const rows: Row[] = [];
    const notes: string[] = [];
    for (const [name, start] of [['single server', single], ['3-master cluster', cluster]] as const) {
      if (ctx.signal.aborted) break;
      ctx.log(`redis-memory: ${name}`);
      const d = await start();
      let m: Measured;
      try {
        m = await measure(ctx, name.split(' ')[0], d);
        for (const pid of await d.pids()) ctx.childCpu?.(cpuSeconds(pid));
      } finally {
        await d.stop();
      }
      rows.push(
        { metric: `${name}: used_memory per request while the first window fills`, gateway: fmt(m.during.bytes, 0, ' B') },
        { metric: `${name}: keys (DBSIZE) per request while the first window fills`, gateway: fmt(m.during.keys, 3) },
        { metric: `${name}: used_memory per request after the window`, target: '≤ 0 (2 % of the above: noise)', gateway: fmt(m.after.bytes, 1, ' B'), pass: flat(m) },
        { metric: `${name}: keys per request after the window`, target: '≤ 0 (2 % of the above: noise)', gateway: fmt(m.after.keys, 4), pass: flat(m) },
        { metric: `${name}: held at the end (${fmtInt(m.end.requests)} requests)`, gateway: `${fmt(m.end.bytes / 1024 / 1024, 2, ' MB')}, ${fmtInt(m.end.keys)} keys` },
        { metric: `${name}: non-2xx or failed requests`, target: '0', gateway: String(m.failed), pass: m.failed === 0 },
      );
    }
    notes.push(
      `A gateway per deployment (SWITCHYARD_STORE on it, one worker, unpinned) with marker windows of ${windowS} s for a request's reservation and ${2 * windowS} s for a task's and a topup's (${Object.keys(ttlEnv).join(', ')}); plain non-streaming chat, ${perWave} requests at the start of every second (${concurrency} at a time), ${windowS} s while the first window fills, then ${afterS} s more.`,
      `Per request: the least-squares slope of Redis \`used_memory\` and \`DBSIZE\` (summed over the masters on the cluster) over the requests sent, sampled once a second; "after the window" starts ${settleS} s past it, when Redis's expiry of the first window's markers has caught up. Redis reclaims expired keys by sampling, so it holds some past their expiry: the key count stays somewhat above the live markers (2 a request) and varies from second to second.`,
      `Under steady traffic the store holds about (requests per second × window) × the first figure: the markers of the requests closed within the last window. With the defaults (15 min for a request) that is 900 × the request rate.`,
    );
    return { title: 'Redis memory per request: while the markers\' window fills, and after it', rows, notes };
  },
};
