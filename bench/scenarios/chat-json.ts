// Non-streaming chat, closed loop at 1 and 64 connections: throughput, latency, added latency, and CPU per request of
// the gateway against the bare node:http pass-through on the same core, with both logs on (as configured) and with
// both off (a second gateway on the same core: SWITCHYARD_LOG_STORE=off, LOG_LEVEL=warn), in the same rotation.
// Issue 38's targets: logs on ≤ 1.75× the bare relay at 64 connections and ≤ 2.25× at 1; logs off ≤ 1.5× at 64; the
// two logs together ≤ 15 µs a request at 64 (issue 33's was ≤ 1.5× at 1 and 64 with the logs on).
import { closedLoop, type ClosedLoopResult } from '../closed-loop.js';
import { chatBody, foreignLoadReport, rotation, type BenchContext, type Row, type Scenario, type Section } from '../scenario.js';
import { cpuSeconds, mainThreadCpuSeconds } from '../proc-stats.js';
import { fmt, fmtInt, fmtRatio, median, pairedDelta, pairedRatio, percentiles, signed } from '../stats.js';

const path = '/v1/chat/completions';
const levels = [1, 64] as const;
/** Gateway CPU per request ÷ the bare pass-through's, both logs on (issue 38; issue 33's was 1.5× at both, issue 21's 1.8× at 64). */
const cpuRatioTarget: Record<number, number> = { 1: 2.25, 64: 1.75 };
/** The same with both logs off, at 64 connections. */
const logsOffRatioTarget = 1.5;
/** What the access line and the request log cost a request together at 64 connections (gateway − logs off, µs). */
const logsCostTarget = 15;
/** A token of a user in a team against a lone token's, CPU per request at 64 connections (issue 39, µs). */
const teamCostTarget = 5;
/** The second gateway: the access line (info) and the request log off. */
export const logsOff = { SWITCHYARD_LOG_STORE: 'off', LOG_LEVEL: 'warn' };

interface Measured {
  rps: number; p50: number; p90: number; p99: number;
  /** CPU per request of the proxy under test (gateway or bare; NaN when direct), all threads and main thread. */
  cpuUs: number; mainUs: number;
  simCpuUs: number;
  /** CPU ms the idle one of gateway/bare used on the shared core during the run (timers, GC): proof they did not compete. */
  idleNeighbourMs: number;
  failed: number;
}

function measure(r: ClosedLoopResult): Measured {
  const [p50, p90, p99] = percentiles(r.latencies, [50, 90, 99]);
  const per = (s: number | undefined) => (s === undefined || r.ok === 0 ? NaN : (s * 1e6) / r.ok);
  return {
    rps: r.rps, p50, p90, p99, cpuUs: per(r.cpu.proxy), mainUs: per(r.cpu.proxyMain), simCpuUs: per(r.cpu.sim),
    idleNeighbourMs: r.cpu.neighbour === undefined ? NaN : r.cpu.neighbour * 1000, failed: r.non2xx + r.errors,
  };
}

export const chatJson: Scenario = {
  name: 'chat-json',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const seconds = ctx.mode === 'full' ? 5 : 3;
    const body = chatBody();
    const quiet = await ctx.extraGateway('gateway-logs-off', logsOff, true);
    try {
      const targets = { gateway: ctx.gateway, team: ctx.teamGateway, quiet: { ...ctx.gateway, url: quiet.url }, bare: ctx.bare, direct: ctx.direct };
      const pidOf = { gateway: ctx.gatewayPid, team: ctx.gatewayPid, quiet: quiet.pid, bare: ctx.barePid, direct: undefined };
      const load = (k: keyof typeof targets, connections: number, secs: number) => {
        const watch: Record<string, () => number> = { sim: () => cpuSeconds(ctx.simPid) };
        // CPU of the proxy under test; the bare proxy (or, in its runs, the gateway), idle on the same core, is
        // watched to show it stayed idle.
        const pid = pidOf[k];
        if (pid !== undefined) {
          const neighbour = k === 'bare' ? ctx.gatewayPid : ctx.barePid;
          Object.assign(watch, { proxy: () => cpuSeconds(pid), proxyMain: () => mainThreadCpuSeconds(pid), neighbour: () => cpuSeconds(neighbour) });
        }
        return closedLoop({ target: targets[k], path, body, connections, seconds: secs, signal: ctx.signal, watch });
      };
      // Warm-up, not recorded: JIT, the token cache, keep-alive pools on every side.
      for (const k of Object.keys(targets) as (keyof typeof targets)[]) await load(k, 64, ctx.mode === 'full' ? 3 : 2);
      const { runs, foreign } = await rotation(ctx, targets, async (_t, i, k) => {
        const out: Record<number, Measured> = {};
        for (const c of levels) {
          ctx.log(`chat-json: ${k === 'quiet' ? 'gateway, logs off' : k === 'team' ? 'gateway, a team member\'s token' : k} ${c} conn, run ${i + 1}/${ctx.runs}`);
          out[c] = measure(await load(k, c, seconds));
        }
        return out;
      });
      const section = summarize(runs.gateway, runs.bare, runs.direct, seconds);
      section.rows.push(...logsRows(runs.gateway, runs.quiet, runs.bare, section), ...teamRows(runs.gateway, runs.team, section));
      const report = foreignLoadReport({ gateway: foreign.gateway, bare: foreign.bare, direct: foreign.direct, 'gateway with both logs off': foreign.quiet });
      section.rows.push(...report.rows);
      section.notes!.push(...report.notes);
      Object.assign(section.perRun!, report.perRun);
      return section;
    } finally {
      await quiet.stop();
    }
  },
};

type Runs = Record<number, Measured>[];

function summarize(gw: Runs, ba: Runs, di: Runs, seconds: number): Section {
  const col = (rs: Runs, c: number, k: keyof Measured) => rs.map((r) => r[c][k]);
  const med = (rs: Runs, c: number, k: keyof Measured) => median(col(rs, c, k));
  const lat = (rs: Runs, c: number) =>
    `${fmt(med(rs, c, 'p50'), 3)} / ${fmt(med(rs, c, 'p90'), 3)} / ${fmt(med(rs, c, 'p99'), 3)} ms`;
  const rows: Row[] = [];
  const headline: Row[] = [];
  const perRun: Record<string, number[]> = {};
  for (const c of levels) {
    const conns = `${c} conn${c > 1 ? 's' : ''}`;
    const rpsG = med(gw, c, 'rps');
    const rpsD = med(di, c, 'rps');
    rows.push({
      metric: `requests/s, ${conns}`, target: c === 64 ? '≥ 6,500' : undefined,
      gateway: fmtInt(rpsG), bare: fmtInt(med(ba, c, 'rps')), direct: fmtInt(rpsD),
      vsBare: fmtRatio(pairedRatio(col(gw, c, 'rps'), col(ba, c, 'rps'))), delta: `${fmt(((rpsG - rpsD) / rpsD) * 100, 1)} %`,
      pass: c === 64 ? rpsG >= 6500 : undefined,
    });
    rows.push({ metric: `latency p50 / p90 / p99, ${conns}`, gateway: lat(gw, c), bare: lat(ba, c), direct: lat(di, c) });
    if (c === 1) {
      for (const [k, limit] of [['p50', 0.35], ['p99', 1]] as const) {
        const added = pairedDelta(col(gw, 1, k), col(di, 1, k));
        rows.push({
          metric: `added latency ${k}, 1 conn (bare column: the bare proxy's own)`, target: `≤ ${limit} ms`,
          bare: signed(pairedDelta(col(ba, 1, k), col(di, 1, k))), vsBare: signed(pairedDelta(col(gw, 1, k), col(ba, 1, k))),
          delta: signed(added), pass: added <= limit,
        });
      }
    }
    const cpuG = med(gw, c, 'cpuUs');
    const cpuB = med(ba, c, 'cpuUs');
    const ratio = pairedRatio(col(gw, c, 'cpuUs'), col(ba, c, 'cpuUs'));
    const cpuRow: Row = {
      metric: `CPU per request, ${conns} (gateway ÷ bare)`, target: `≤ ${cpuRatioTarget[c]}× bare`,
      gateway: fmt(cpuG, 0, ' µs'), bare: fmt(cpuB, 0, ' µs'), vsBare: fmtRatio(ratio), pass: ratio <= cpuRatioTarget[c],
    };
    rows.push(cpuRow);
    headline.push({ ...cpuRow, metric: `CPU per request, non-streaming chat, ${conns}, both logs on (gateway ÷ bare)` });
    const split = (rs: Runs) => {
      const all = med(rs, c, 'cpuUs');
      const main = med(rs, c, 'mainUs');
      return `${fmt(main, 0, ' µs')} / ${fmt(all - main, 0, ' µs')}`;
    };
    rows.push({ metric: `CPU split, main thread / other threads, ${conns}`, gateway: split(gw), bare: split(ba) });
    // Per run, CPU seconds ÷ wall seconds: whether the proxy saturated its core (1.00) or the client core was the limit.
    const busy = (rs: Runs) => fmt(median(rs.map((r) => (r[c].rps * r[c].cpuUs) / 1e6)), 2);
    rows.push({ metric: `share of CPU 0 used (1.00 = the whole core), ${conns}`, gateway: busy(gw), bare: busy(ba) });
    rows.push({
      metric: `simulator CPU per request, ${conns}`,
      gateway: fmt(med(gw, c, 'simCpuUs'), 0, ' µs'), bare: fmt(med(ba, c, 'simCpuUs'), 0, ' µs'), direct: fmt(med(di, c, 'simCpuUs'), 0, ' µs'),
    });
    for (const [name, rs] of [['gateway', gw], ['bare', ba], ['direct', di]] as const) {
      perRun[`${name} req/s ${conns}`] = col(rs, c, 'rps');
      perRun[`${name} p50 ms ${conns}`] = col(rs, c, 'p50');
    }
    perRun[`gateway CPU µs/req ${conns}`] = col(gw, c, 'cpuUs');
    perRun[`bare CPU µs/req ${conns}`] = col(ba, c, 'cpuUs');
  }
  const failed = (rs: Runs) => rs.reduce((s, r) => s + levels.reduce((a, c) => a + r[c].failed, 0), 0);
  const [fG, fB, fD] = [failed(gw), failed(ba), failed(di)];
  rows.push({ metric: 'non-2xx or failed requests (all runs)', target: '0', gateway: String(fG), bare: String(fB), direct: String(fD), pass: fG + fB + fD === 0 });
  const idle = (rs: Runs) => fmt(median(rs.flatMap((r) => levels.map((c) => r[c].idleNeighbourMs))), 0, ' ms');
  return {
    title: 'Non-streaming chat (closed loop, autocannon)',
    rows,
    headline,
    perRun,
    notes: [
      `${seconds} s per level per run after a warm-up; gateway, gateway with both logs off, bare and direct interleaved run by run, their order rotated each run; body \`${chatBody().toString()}\`.`,
      'CPU per request = (utime + stime of the process, all threads, from /proc/<pid>/stat) ÷ completed requests, for the gateway in gateway runs and the bare proxy in bare runs.',
      `Gateway ÷ bare = the median of the per-run ratios: how many times the CPU a minimal node:http pass-through spends on the same request the gateway spends. Issue 38's targets: ≤ ${cpuRatioTarget[64]}× at 64 connections and ≤ ${cpuRatioTarget[1]}× at 1 with both logs on (the access line and the request log, as configured), ≤ ${logsOffRatioTarget}× at 64 with both off (issue 33's was 1.5× at 1 and 64 with the logs on, issue 21's 1.8× at 64).`,
      `The two share CPU 0 but are loaded one at a time: during a run the idle one used a median ${idle(gw)} of CPU in gateway runs (the bare proxy) and ${idle(ba)} in bare runs (the gateway: its timers and background work), against ${seconds * 1000} ms of the core.`,
      'Share of CPU 0 = CPU seconds ÷ wall seconds of the run. Below 1.00 the proxy had idle time (the client and simulator on CPU 1 set the pace), and a process that is not saturated batches less per event-loop turn, so its CPU per request is somewhat higher than at saturation.',
      'Other threads = libuv\'s threadpool (SQLite statements, async file writes of the log) and V8\'s GC and compiler helpers.',
      'The added-latency rows: "gateway − direct" is the target; the bare column is what the bare proxy adds over direct, and "gateway vs bare" the gateway beyond it.',
    ],
  };
}

/** A token of a user in a team against the lone token, on the same gateway, paired run by run. */
function teamRows(gw: Runs, team: Runs, section: Section): Row[] {
  return levels.map((c) => {
    const conns = `${c} conn${c > 1 ? 's' : ''}`;
    const cpu = (rs: Runs) => rs.map((r) => r[c].cpuUs);
    const cost = pairedDelta(cpu(team), cpu(gw));
    const row: Row = {
      metric: `CPU per request, ${conns}: a team member's token − a lone token's (wallet, member cap, team budget)`,
      target: c === 64 ? `≤ ${teamCostTarget} µs` : undefined, gateway: signed(cost, 1, ' µs'), pass: c === 64 ? cost <= teamCostTarget : undefined,
    };
    section.perRun![`gateway team token CPU µs/req ${conns}`] = cpu(team);
    if (c === 64) section.headline!.push(row);
    return row;
  });
}

/**
 * The gateway with both logs off (a second gateway on the same core and store, in the same rotation): its CPU against
 * the bare proxy's, and what the two logs cost (the configured gateway's CPU less its own, paired run by run).
 */
function logsRows(gw: Runs, quiet: Runs, ba: Runs, section: Section): Row[] {
  const rows: Row[] = [];
  for (const c of levels) {
    const conns = `${c} conn${c > 1 ? 's' : ''}`;
    const cpu = (rs: Runs) => rs.map((r) => r[c].cpuUs);
    const ratio = pairedRatio(cpu(quiet), cpu(ba));
    const off: Row = {
      metric: `CPU per request, ${conns}, both logs off (gateway ÷ bare)`, target: c === 64 ? `≤ ${logsOffRatioTarget}× bare` : undefined,
      gateway: fmt(median(cpu(quiet)), 0, ' µs'), bare: fmt(median(cpu(ba)), 0, ' µs'), vsBare: fmtRatio(ratio), pass: c === 64 ? ratio <= logsOffRatioTarget : undefined,
    };
    const cost = pairedDelta(cpu(gw), cpu(quiet));
    const logs: Row = {
      metric: `CPU per request of the two logs, ${conns} (gateway − gateway with both off)`, target: c === 64 ? `≤ ${logsCostTarget} µs` : undefined,
      gateway: fmt(cost, 0, ' µs'), pass: c === 64 ? cost <= logsCostTarget : undefined,
    };
    rows.push(off, logs);
    if (c === 64) section.headline!.push({ ...off, metric: 'CPU per request, non-streaming chat, 64 conns, both logs off (gateway ÷ bare)' }, logs);
    section.perRun![`gateway with both logs off CPU µs/req ${conns}`] = cpu(quiet);
  }
  return rows;
}
