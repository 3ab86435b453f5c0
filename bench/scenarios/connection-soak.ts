// Connection soak (`--soak`, and in full mode): 20,000 idle keep-alive client connections held for ~60 s while the gateway
// keeps answering /healthz and chat, with its RSS per held connection and a slowloris group that must be cut at the header timeout.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { openLoop } from '../open-loop.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpuSeconds, openFileLimit, rssBytes, systemCpuSeconds } from '../proc-stats.js';
import { chatBody, type BenchContext, type Scenario, type Section, type Row } from '../scenario.js';
import { fmt, fmtInt, percentiles } from '../stats.js';
import { benchMaxConnections as soakMaxConnections } from '../bench-config.js';

// The bench config raises `server.max_connections` only; the two timeouts this scenario leans on are whatever the
// repository's routes.yaml sets, else the gateway's defaults (header 30 s, keep-alive 75 s).
const routesFile = fileURLToPath(new URL('../../../routes.yaml', import.meta.url)); // dist/bench/scenarios/ → repository root
function serverLimit(key: string, dflt: number): number {
  try {
    const v = parseDocument(readFileSync(routesFile, 'utf8')).getIn(['server', key]);
    return typeof v === 'number' && v > 0 ? v : dflt;
  } catch {
    return dflt;
  }
}
const headerTimeoutMs = serverLimit('header_timeout_ms', 30_000);
const keepAliveTimeoutMs = serverLimit('keep_alive_timeout_ms', 75_000);

const workers = 2;
const holders = 4;
const perHolder = 5_000;
const total = holders * perHolder;
const parallelPerHolder = 100; // 400 connections in setup at once across the holders, below the listen backlog of 511
const slowCount = 500;
const slowLineEveryMs = 2_000;
const chatRate = 50;
const probeEveryMs = 100;
const probeTimeoutMs = 5_000;
const rssEveryMs = 5_000;
const settleMs = 30_000; // how long to watch RSS come down after the holders close
const rampLimitMs = 90_000;
const MB = 1024 * 1024;

const holderScript = fileURLToPath(new URL('../idle-holder.js', import.meta.url));

interface HolderCounts {
  t: string; ms: number; pid: number; attempted: number; idle: number; everIdle: number; refused: number; otherStatus: number;
  connectErrors: number; failedBeforeAnswer: number; timeouts: number; closedByPeer: number; unexpectedData: number;
  inFlight: number; maxSetupMs: number; firstPeerCloseMs: number; rampedAt: number;
  connectErrorCodes: Record<string, number>; otherStatuses: Record<string, number>; id?: string; heldAtClose?: number;
}

interface Holder { proc: ChildProcess; last?: HolderCounts; ramped?: HolderCounts; final?: HolderCounts; exited: Promise<void>; waiters: Map<string, (c: HolderCounts) => void> }

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  const timer = setTimeout(done, ms);
  function done() { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); }
  signal?.addEventListener('abort', done, { once: true });
});

/** The gateway primary's children (its cluster workers): /proc/<pid>/task/<tid>/children, else a /proc scan for the ppid. */
export function childPids(pid: number): number[] {
  const out = new Set<number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/)) if (c) out.add(Number(c));
    }
    if (out.size) return [...out].sort((a, b) => a - b);
  } catch { /* no CONFIG_PROC_CHILDREN: scan */ }
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.add(Number(d));
    } catch { /* gone meanwhile */ }
  }
  return [...out].sort((a, b) => a - b);
}

function fdCount(pid: number): number {
  try { return readdirSync(`/proc/${pid}/fd`).length; } catch { return NaN; }
}

interface RssPoint { t: number; phase: string; primary: number; workers: number[]; sum: number }

/** One request at a time, every 100 ms, each on a fresh connection (so it also proves new connections are accepted). */
async function probeHealth(url: string, until: number, signal: AbortSignal): Promise<{ lat: number[]; failed: number; failures: Record<string, number>; slow: { atS: number; ms: number }[] }> {
  const lat: number[] = [];
  const slow: { atS: number; ms: number }[] = []; // probes over 100 ms or failed: when in the run, and how long
  const t0 = performance.now();
  const failures: Record<string, number> = {};
  let failed = 0;
  const target = new URL('/healthz', url);
  for (let i = 0; i < 100_000 && performance.now() < until && !signal.aborted; i++) {
    const t = performance.now();
    const why = await new Promise<string | undefined>((resolve) => {
      const req = request(target, { method: 'GET', agent: false }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode === 200 ? undefined : `status ${res.statusCode}`));
        res.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      });
      const timer = setTimeout(() => { req.destroy(); resolve('timeout'); }, probeTimeoutMs);
      req.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      req.once('close', () => clearTimeout(timer));
      req.end();
    });
    const ms = performance.now() - t;
    if (why !== undefined || ms >= 100) slow.push({ atS: (t - t0) / 1000, ms });
    if (why === undefined) lat.push(ms);
    else { failed++; failures[why] = (failures[why] ?? 0) + 1; }
    await sleep(Math.max(0, t + probeEveryMs - performance.now()), signal);
  }
  return { lat, failed, failures, slow };
}

/** Kernel counters for the accept queue (namespace-wide): a SYN or a completed connection dropped because a listen queue was full. */
function listenDrops(): { overflows: number; drops: number } {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((l) => l.startsWith('TcpExt:'));
    const keys = lines[0].split(/\s+/), vals = lines[1].split(/\s+/).map(Number);
    return { overflows: vals[keys.indexOf('ListenOverflows')], drops: vals[keys.indexOf('ListenDrops')] };
  } catch {
    return { overflows: NaN, drops: NaN };
  }
}

/** CPU seconds of the processes given (NaN-safe: a process gone counts 0). */
function cpuOf(pids: number[]): number {
  let s = 0;
  for (const p of pids) { try { s += cpuSeconds(p); } catch { /* gone */ } }
  return s;
}

interface SlowResult { opened: number; connectErrors: number; cut: number; got408: number; otherFirstLine: Record<string, number>; cutMs: number[]; notCut: number }

/**
 * Slowloris: `slowCount` connections that start a POST's headers and add one header line every 2 s, never finishing.
 * The gateway must answer each 408 and close it at about header_timeout_ms; any still open `limitMs` after its connect is counted "not cut".
 */
async function slowloris(port: number, limitMs: number, signal: AbortSignal): Promise<SlowResult> {
  const r: SlowResult = { opened: 0, connectErrors: 0, cut: 0, got408: 0, otherFirstLine: {}, cutMs: [], notCut: 0 };
  const open = new Set<{ s: Socket; n: number }>();
  const one = () => {
    let connected: () => void = () => {};
    const setup = new Promise<void>((r) => { connected = r; });
    const closed = new Promise<void>((resolve) => {
      const s = connect({ host: '127.0.0.1', port });
      let connectedAt = 0;
      let first = '';
      const entry = { s, n: 0 };
      const timer = setTimeout(() => { r.notCut++; s.destroy(); }, limitMs);
      const onAbort = () => s.destroy();
      signal.addEventListener('abort', onAbort, { once: true });
      s.once('connect', () => {
        connectedAt = performance.now();
        r.opened++;
        open.add(entry);
        s.write('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n');
        connected();
      });
      s.on('data', (d: Buffer) => { if (first.length < 64) first += d.toString('latin1'); });
      s.on('error', () => { if (!connectedAt) r.connectErrors++; });
      s.once('close', () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        open.delete(entry);
        connected();
        if (connectedAt && !signal.aborted) {
          const line = first.split('\r\n')[0];
          if (/^HTTP\/1\.[01] 408/.test(line)) r.got408++;
          else r.otherFirstLine[line || '(nothing)'] = (r.otherFirstLine[line || '(nothing)'] ?? 0) + 1;
          const ms = performance.now() - connectedAt;
          if (ms < limitMs) { r.cut++; r.cutMs.push(ms); }
        }
        resolve();
      });
    });
    return { setup, closed };
  };
  // The dribble: one more header line on every open connection every 2 s.
  const drip = setInterval(() => {
    for (const e of open) if (e.s.writable) { e.n++; e.s.write(`X-Slow-${e.n}: ${e.n}\r\n`); }
  }, slowLineEveryMs);
  const all: Promise<void>[] = [];
  try {
    // Opened 50 at a time, each batch connected before the next: a bounded pace for the accept queue.
    for (let i = 0; i < slowCount && !signal.aborted; i += 50) {
      const batch = Array.from({ length: Math.min(50, slowCount - i) }, one);
      all.push(...batch.map((b) => b.closed));
      await Promise.race([Promise.all(batch.map((b) => b.setup)), sleep(5000, signal)]);
    }
    await Promise.all(all);
  } finally {
    clearInterval(drip);
    for (const e of open) e.s.destroy();
  }
  return r;
}

function startHolder(port: number): Holder {
  const proc = spawn(process.execPath, [holderScript, '--port', String(port), '--count', String(perHolder), '--parallel', String(parallelPerHolder)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const h: Holder = { proc, waiters: new Map(), exited: new Promise((r) => proc.once('close', () => r())) }; // after stdout is drained: the final line is in
  let buf = '';
  proc.stdout!.setEncoding('utf8');
  proc.stdout!.on('data', (d: string) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
      const text = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let m: HolderCounts;
      try { m = JSON.parse(text) as HolderCounts; } catch { continue; }
      h.last = m;
      if (m.t === 'ramped') h.ramped = m;
      if (m.t === 'final') h.final = m;
      if (m.t === 'snapshot' && m.id) { h.waiters.get(m.id)?.(m); h.waiters.delete(m.id); }
    }
  });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => { err = (err + d).slice(-2000); });
  proc.once('exit', (code, sig) => { if (!h.final && (code || sig)) h.last = { ...(h.last as HolderCounts), t: `exited ${code ?? sig}: ${err.trim()}` }; });
  proc.stdin!.on('error', () => { /* the holder is gone; its exit is reported */ });
  return h;
}

let snapId = 0;
function snapshot(h: Holder, timeoutMs = 3000): Promise<HolderCounts | undefined> {
  if (h.proc.exitCode !== null || h.proc.signalCode !== null) return Promise.resolve(h.final ?? h.last);
  const id = String(++snapId);
  return new Promise((resolve) => {
    const timer = setTimeout(() => { h.waiters.delete(id); resolve(h.last); }, timeoutMs);
    h.waiters.set(id, (c) => { clearTimeout(timer); resolve(c); });
    h.proc.stdin!.write(`snapshot ${id}\n`);
  });
}

const sum = (hs: (HolderCounts | undefined)[], k: keyof HolderCounts) => hs.reduce((a, h) => a + (Number(h?.[k]) || 0), 0);
const mergeCodes = (hs: (HolderCounts | undefined)[], k: 'connectErrorCodes' | 'otherStatuses') => {
  const out: Record<string, number> = {};
  for (const h of hs) for (const [c, n] of Object.entries(h?.[k] ?? {})) out[c] = (out[c] ?? 0) + n;
  return Object.entries(out).map(([c, n]) => `${c} ×${n}`).join(', ');
};

async function stopHolders(hs: Holder[]): Promise<void> {
  for (const h of hs) if (h.proc.exitCode === null && h.proc.signalCode === null) h.proc.kill('SIGTERM');
  await Promise.race([Promise.all(hs.map((h) => h.exited)), sleep(10_000)]);
  for (const h of hs) if (h.proc.exitCode === null && h.proc.signalCode === null) h.proc.kill('SIGKILL');
  await Promise.race([Promise.all(hs.map((h) => h.exited)), sleep(2_000)]);
}

export const connectionSoak: Scenario = {
  name: 'connection-soak',
  quick: false,
  async run(ctx: BenchContext): Promise<Section> {
    const notes: string[] = [];
    let title = `Connection soak: ${fmtInt(total)} idle connections, ${workers} workers`;
    const rows: Row[] = [];
    const t0 = performance.now();
    const el = () => (performance.now() - t0) / 1000;
    const gw = await ctx.extraGateway('gateway-connection-soak', { SWITCHYARD_WORKERS: String(workers) });
    const port = Number(new URL(gw.url).port);
    const hs: Holder[] = [];
    // Last resort: a bench that dies here must not leave 20,000 sockets open (the holders also exit when their stdin closes).
    const killAll = () => { for (const h of hs) try { h.proc.kill('SIGKILL'); } catch { /* gone */ } };
    process.once('exit', killAll);
    let rssTimer: NodeJS.Timeout | undefined;
    let kids: number[] = [];
    // The holders' and the extra gateway's CPU, so the report's "other processes" figure does not count them.
    const creditCpu = (pids: number[]) => ctx.childCpu?.(cpuOf(pids));
    try {
      // Both workers up (the primary answers as soon as the first one listens).
      for (let i = 0; i < 100 && !ctx.signal.aborted; i++) {
        kids = childPids(gw.pid);
        if (kids.length >= workers) break;
        await sleep(100, ctx.signal);
      }
      if (kids.length !== workers) throw new Error(`expected ${workers} workers under pid ${gw.pid}, found ${kids.length}`);
      const workerFdLimit = Math.min(...kids.map((p) => openFileLimit(p)));
      const perWorkerCap = Math.min(soakMaxConnections, workerFdLimit - 512);
      // Warm-up: JIT, the upstream pool and the store in both workers, and a /healthz baseline with nothing held.
      const body = chatBody();
      const target = { name: 'gateway' as const, url: gw.url, key: ctx.gateway.key };
      ctx.log(`connection-soak: gateway pid ${gw.pid}, workers ${kids.join(', ')}; warm-up`);
      const [warm, base] = await Promise.all([
        openLoop({ target, path: '/v1/chat/completions', body, rate: chatRate, seconds: 3, drainMs: 5000, signal: ctx.signal }),
        probeHealth(gw.url, performance.now() + 3000, ctx.signal),
      ]);
      if (warm.ok === 0) throw new Error(`warm-up: no chat request succeeded (${warm.non2xx} non-2xx, ${warm.errors} errors)`);

      const rss: RssPoint[] = [];
      const sample = (phase: string) => {
        const primary = rssBytes(gw.pid);
        const w = kids.map((p) => rssBytes(p));
        const p: RssPoint = { t: el(), phase, primary, workers: w, sum: primary + w.reduce((a, b) => a + b, 0) };
        if (Number.isFinite(p.sum)) rss.push(p);
        return p;
      };
      const start = sample('start');
      rssTimer = setInterval(() => sample('5 s'), rssEveryMs);

      // Ramp: 4 holder processes, 5,000 connections each, 100 in setup at a time per holder.
      ctx.log(`connection-soak: opening ${fmtInt(total)} idle connections (${holders} holders × ${fmtInt(perHolder)})`);
      const rampT0 = performance.now();
      const listen0 = listenDrops();
      for (let i = 0; i < holders; i++) hs.push(startHolder(port));
      let lastLog = 0;
      while (!ctx.signal.aborted && performance.now() - rampT0 < rampLimitMs) {
        if (hs.every((h) => h.ramped || h.proc.exitCode !== null || h.proc.signalCode !== null)) break;
        if (performance.now() - lastLog > 5000) {
          lastLog = performance.now();
          ctx.log(`connection-soak: ramp ${fmtInt(sum(hs.map((h) => h.last), 'attempted'))} attempted, ${fmtInt(sum(hs.map((h) => h.last), 'idle'))} idle`);
        }
        await sleep(100, ctx.signal);
      }
      const rampMs = Math.max(...hs.map((h) => h.ramped?.rampedAt ?? NaN));
      const rampWallS = (performance.now() - rampT0) / 1000;
      const atStart = await Promise.all(hs.map((h) => snapshot(h)));
      const heldAtStart = sum(atStart, 'idle');
      const fdsAtStart = kids.map(fdCount);
      const holdStartPoint = sample('hold start');
      // The first connection went idle when the ramp began: ramp + hold must stay under the keep-alive timeout, with a margin.
      const holdS = Math.max(1, Math.min(ctx.soakSeconds, Math.floor(keepAliveTimeoutMs / 1000 - 3 - rampWallS)));
      if (holdS < ctx.soakSeconds) notes.push(`The hold was shortened from ${ctx.soakSeconds} s to ${holdS} s: the ramp took ${fmt(rampWallS, 1)} s, and the first connections must not reach the ${keepAliveTimeoutMs / 1000} s keep-alive timeout.`);
      title = `Connection soak: ${fmtInt(total)} idle connections held ${holdS} s, ${workers} workers`;
      ctx.log(`connection-soak: ${fmtInt(heldAtStart)} held after ${fmt(rampWallS, 1)} s (refused ${sum(atStart, 'refused')}, connect errors ${sum(atStart, 'connectErrors')}); holding ${holdS} s`);
      if (ctx.signal.aborted) throw new Error('aborted');

      // The hold: /healthz probes, chat at 50 req/s, and the slowloris group, all at once.
      const holdT0 = performance.now();
      const holdEnd = holdT0 + holdS * 1000;
      // Who else used the CPU meanwhile: on a shared 2-core machine a stall may be someone else's.
      const ourPids = () => [gw.pid, ...kids, ctx.simPid, ctx.gatewayPid, ...hs.map((h) => h.proc.pid!).filter(Boolean)];
      const sys0 = systemCpuSeconds(), ours0 = cpuOf(ourPids()), own0 = process.cpuUsage();
      const loopDelay = monitorEventLoopDelay({ resolution: 10 });
      loopDelay.enable();
      const slowP = slowloris(port, headerTimeoutMs + 15_000, ctx.signal);
      const [probes, chat] = await Promise.all([
        probeHealth(gw.url, holdEnd, ctx.signal),
        openLoop({ target, path: '/v1/chat/completions', body, rate: chatRate, seconds: holdS, drainMs: 5000, signal: ctx.signal }),
      ]);
      await sleep(Math.max(0, holdEnd - performance.now()), ctx.signal);
      loopDelay.disable();
      const sys1 = systemCpuSeconds(), ours1 = cpuOf(ourPids()), own1 = process.cpuUsage(own0);
      const otherCpuS = Math.max(0, sys1.busy - sys0.busy - (ours1 - ours0) - (own1.user + own1.system) / 1e6);
      const listen1 = listenDrops();
      const atEnd = await Promise.all(hs.map((h) => snapshot(h)));
      const holdActualS = (performance.now() - holdT0) / 1000;
      const fdsAtEnd = kids.map(fdCount);
      const peakPoint = sample('hold end');
      const heldAtEnd = sum(atEnd, 'idle');
      const closedDuringHold = sum(atEnd, 'closedByPeer') - sum(atStart, 'closedByPeer');
      const oldestIdleS = (performance.now() - rampT0) / 1000;
      ctx.log(`connection-soak: hold over, ${fmtInt(heldAtEnd)} still held; waiting for the slowloris group`);
      const slow = await slowP;

      // Close the holders and watch the RSS come back.
      creditCpu(hs.map((h) => h.proc.pid!));
      await stopHolders(hs);
      const finals = hs.map((h) => h.final);
      clearInterval(rssTimer); // from here the settle loop samples every 5 s itself
      const closeT = performance.now();
      const afterClose: RssPoint[] = [sample('holders closed')];
      const stillServing = await probeHealth(gw.url, performance.now() + 1000, ctx.signal);
      // Up to 30 s; done early once clearly back (within 20 MB of the start).
      for (let i = 0; i < settleMs / rssEveryMs && !ctx.signal.aborted; i++) {
        await sleep(rssEveryMs, ctx.signal);
        afterClose.push(sample(`+${Math.round((performance.now() - closeT) / 1000)} s after close`));
        if (afterClose.at(-1)!.sum - start.sum <= 20 * MB && i >= 1) break;
      }
      clearInterval(rssTimer);
      const endPoint = afterClose.at(-1)!;
      const kidsAfter = childPids(gw.pid);
      const peak = rss.reduce((a, p) => (p.sum > a.sum ? p : a), start);

      // ---- the table
      const heldAll = heldAtStart === total && heldAtEnd === total && closedDuringHold === 0;
      rows.push({
        metric: `idle keep-alive connections held for the whole ${holdS} s hold`,
        target: `${fmtInt(total)}, none closed`,
        gateway: `${fmtInt(heldAtStart)} at start, ${fmtInt(heldAtEnd)} at end; ${closedDuringHold} closed by the gateway during the hold`,
        pass: heldAll,
      });
      const refused = sum(atEnd, 'refused'), connErr = sum(atEnd, 'connectErrors');
      const otherFail = sum(atEnd, 'failedBeforeAnswer') + sum(atEnd, 'timeouts') + sum(atEnd, 'otherStatus');
      rows.push({
        metric: 'ramp: time to open all / refused (503) / connect errors / other failures',
        target: '0 refused, 0 errors',
        gateway: `${fmt(rampMs / 1000, 1)} s (${fmtInt(total / (rampMs / 1000))}/s) / ${refused} / ${connErr}${connErr ? ` (${mergeCodes(atEnd, 'connectErrorCodes')})` : ''} / ${otherFail}${sum(atEnd, 'otherStatus') ? ` (${mergeCodes(atEnd, 'otherStatuses')})` : ''}`,
        pass: refused === 0 && connErr === 0 && otherFail === 0,
      });
      rows.push({
        metric: 'kernel ListenOverflows / ListenDrops during ramp and hold (accept queue full)',
        target: '0',
        gateway: `${listen1.overflows - listen0.overflows} / ${listen1.drops - listen0.drops}`,
        pass: listen1.overflows - listen0.overflows === 0,
      });
      rows.push({ metric: 'connection fds per worker at hold start / end', gateway: `${fdsAtStart.map((n) => fmtInt(n)).join(' + ')} / ${fdsAtEnd.map((n) => fmtInt(n)).join(' + ')} (cap ${fmtInt(perWorkerCap)} each)` });
      const [b50, b99] = percentiles(base.lat, [50, 99]);
      const [h50, h99, hmax] = percentiles(probes.lat, [50, 99, 100]);
      rows.push({ metric: '/healthz p50 / p99 before the ramp (nothing held)', gateway: `${fmt(b50, 2)} / ${fmt(b99, 2)} ms (${base.lat.length} probes, ${base.failed} failed)` });
      rows.push({
        metric: `/healthz p50 / p99 (max) during the hold, fresh connection every ${probeEveryMs} ms`,
        target: 'p99 < 100 ms, 0 failed',
        gateway: `${fmt(h50, 2)} / ${fmt(h99, 2)} (${fmt(hmax, 1)}) ms; ${probes.lat.length + probes.failed} probes, ${probes.failed} failed${probes.failed ? ` (${Object.entries(probes.failures).map(([k, v]) => `${k} ×${v}`).join(', ')})` : ''}`,
        pass: probes.failed === 0 && probes.lat.length > 0 && h99 < 100,
      });
      const [c50, c99] = percentiles(chat.latencies, [50, 99]);
      const chatFailed = chat.non2xx + chat.errors + chat.timedOut;
      rows.push({
        metric: `chat (non-streaming) at ${chatRate} req/s during the hold: 2xx`,
        target: '100 %',
        gateway: `${fmtInt(chat.ok)} of ${fmtInt(chat.sent)} (${fmt(chat.sent ? (100 * chat.ok) / chat.sent : NaN, 2)} %; ${chat.non2xx} non-2xx, ${chat.errors} errors, ${chat.timedOut} timed out)`,
        pass: chat.sent > 0 && chatFailed === 0 && chat.sent === chat.planned,
      });
      rows.push({ metric: 'chat p50 / p99 during the hold (from intended send time)', gateway: `${fmt(c50, 2)} / ${fmt(c99, 2)} ms (client timer lag max ${fmt(chat.maxSendLagMs, 0)} ms)` });
      rows.push({
        metric: 'during the hold: bench event-loop delay max; CPU used by processes outside the bench',
        gateway: `${fmt(loopDelay.max / 1e6, 0)} ms; ${fmt(otherCpuS, 1)} CPU-s (${fmt((100 * otherCpuS) / holdActualS, 0)} % of one core)${otherCpuS / holdActualS > 0.1 ? ' — not quiet: latency tails are noisier' : ''}`,
      });
      const perConnKB = ((peak.sum - start.sum) / total) / 1024;
      rows.push({
        metric: `gateway RSS (primary + ${workers} workers) start / all held, before the load / peak / end`,
        gateway: `${fmt(start.sum / MB, 1)} / ${fmt(holdStartPoint.sum / MB, 1)} / ${fmt(peak.sum / MB, 1)} / ${fmt(endPoint.sum / MB, 1)} MB`,
      });
      rows.push({
        metric: `RSS per held connection: (peak − start) ÷ ${fmtInt(total)}; (all held − start) ÷ ${fmtInt(total)}`,
        gateway: `${fmt(perConnKB, 2, ' KB')}; ${fmt((holdStartPoint.sum - start.sum) / total / 1024, 2, ' KB')}`,
      });
      // Informational: the workers give the memory back only when V8 next runs a full GC, and idle workers allocate
      // too little to trigger one soon; on this rig the figure ranged from about 0 to over 100 MB between runs.
      rows.push({
        metric: `RSS ${fmt(endPoint.t - afterClose[0].t, 0)} s after the holders closed, over the start (informational: falls when V8 next runs a full GC in the idle workers)`,
        gateway: `${fmt((endPoint.sum - start.sum) / MB, 1)} MB${endPoint.sum - start.sum <= 50 * MB ? ' (back within 50 MB)' : ' (not yet back within 50 MB)'}`,
      });
      const maxCutS = slow.cutMs.length ? Math.max(...slow.cutMs) / 1000 : NaN;
      const minCutS = slow.cutMs.length ? Math.min(...slow.cutMs) / 1000 : NaN;
      rows.push({
        metric: `slowloris: connections cut by the gateway (of ${slowCount}, one header line every ${slowLineEveryMs / 1000} s)`,
        target: `all ${slowCount}`,
        gateway: `${slow.cut} cut, ${slow.notCut} not cut within ${(headerTimeoutMs + 15_000) / 1000} s, ${slow.connectErrors} connect errors`,
        pass: slow.cut === slowCount,
      });
      rows.push({
        metric: 'slowloris: seconds from connect to close, min / max',
        target: `max ≤ ${headerTimeoutMs / 1000 + 2} s`,
        gateway: `${fmt(minCutS, 2)} / ${fmt(maxCutS, 2)} s`,
        pass: maxCutS <= headerTimeoutMs / 1000 + 2,
      });
      rows.push({
        metric: 'slowloris: answered `408` before the close',
        target: `${slowCount}`,
        gateway: `${slow.got408}${Object.keys(slow.otherFirstLine).length ? ` (other: ${Object.entries(slow.otherFirstLine).map(([k, v]) => `${k} ×${v}`).join(', ')})` : ''}`,
        pass: slow.got408 === slowCount,
      });
      rows.push({
        metric: 'gateway still serving after the holders closed (/healthz for 1 s)',
        gateway: `${stillServing.lat.length} ok, ${stillServing.failed} failed; workers ${kidsAfter.join(', ') === kids.join(', ') ? 'unchanged' : `**changed**: ${kids.join(', ')} → ${kidsAfter.join(', ')}`}`,
      });

      notes.push(
        `Rig: an extra gateway with SWITCHYARD_WORKERS=${workers} (node:cluster, round-robin) and \`server.max_connections: ${fmtInt(soakMaxConnections)}\` per worker (the bench config; every other server limit as the repository sets it or the default: header timeout ${headerTimeoutMs / 1000} s, keep-alive ${keepAliveTimeoutMs / 1000} s), unpinned. ` +
        `The open-file limit here is ${fmtInt(workerFdLimit)} per process, so neither one gateway process nor one client process can hold ${fmtInt(total)} sockets: the gateway splits them over ${workers} workers (cap ${fmtInt(perWorkerCap)} each = min(max_connections, open-file limit − 512)), and the client over ${holders} holder processes (\`dist/bench/idle-holder.js\`) of ${fmtInt(perHolder)} connections each.`,
        `Pace: each holder keeps ${parallelPerHolder} connections in setup (connect, \`GET /healthz\`, read the 200) at a time, ${holders * parallelPerHolder} in all, below Node's listen backlog of 511, so the accept queue never overflows; a setup slower than 15 s counts as a failure. Slowest setup: ${fmt(Math.max(...atEnd.map((h) => h?.maxSetupMs ?? NaN)), 0)} ms. The slowloris group opens 50 at a time.`,
        `Hold: ${fmt(holdActualS, 1)} s from the moment all were open; the oldest connection had been idle ${fmt(oldestIdleS, 1)} s at its end (it must stay under the ${keepAliveTimeoutMs / 1000} s keep-alive timeout: \`--soak-seconds\` is at most 70, and the hold is shortened when ramp + hold would pass 72 s).`,
        `During the hold, from the bench process: /healthz one at a time every ${probeEveryMs} ms on a fresh connection (${probeTimeoutMs / 1000} s timeout = failure); chat with the open-loop client (keep-alive pool); ${slowCount} slowloris connections sending \`POST /v1/chat/completions HTTP/1.1\` and one header line every ${slowLineEveryMs / 1000} s. Peak connections at the gateway ≈ ${fmtInt(total + slowCount + 20)}, below ${workers} × ${fmtInt(perWorkerCap)}.`,
        `RSS (MB, sum of primary + workers; every ${rssEveryMs / 1000} s): ${rss.map((p) => `${fmt(p.t, 0)}s ${fmt(p.sum / MB, 0)}`).join(', ')}. At peak: primary ${fmt(peak.primary / MB, 1)}, workers ${peak.workers.map((w) => fmt(w / MB, 1)).join(' + ')} MB; at the hold's end: ${fmt(peakPoint.sum / MB, 1)} MB.`,
        `Holders at close: ${finals.map((f) => (f ? `${fmtInt(f.heldAtClose)} held` : 'no final report')).join(', ')}; bytes arriving on idle connections: ${sum(atEnd, 'unexpectedData')}.`,
      );
      if (probes.slow.length) notes.push(`/healthz probes over 100 ms or failed (s into the hold: ms): ${probes.slow.slice(0, 12).map((x) => `${fmt(x.atS, 1)}: ${fmt(x.ms, 0)}`).join(', ')}${probes.slow.length > 12 ? `, … (${probes.slow.length} in all)` : ''}.`);
      if (closedDuringHold) notes.push(`First close of an idle connection by the gateway: ${atEnd.map((h) => h?.firstPeerCloseMs).filter((x) => (x ?? -1) >= 0).map((x) => fmt(x! / 1000, 1) + ' s').join(', ')} after its holder started.`);
    } finally {
      clearInterval(rssTimer);
      await stopHolders(hs);
      process.removeListener('exit', killAll);
      creditCpu([gw.pid, ...kids]);
      await gw.stop();
    }
    return { title, rows, notes };
  },
};
