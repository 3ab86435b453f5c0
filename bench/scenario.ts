// What a scenario receives and returns: one file in bench/scenarios/ per scenario, listed in bench/run.ts.
import { median } from './stats.js';

export type Mode = 'quick' | 'full';

/**
 * One side of a comparison: the gateway; the bare node:http pass-through (bench/bare-proxy.ts, on the gateway's core,
 * the baseline of the speed targets); or the simulator called directly with its own key.
 */
export interface Target { name: 'gateway' | 'bare' | 'direct'; url: string; key: string }

export interface BenchContext {
  mode: Mode;
  runs: number;
  soakMinutes: number;
  /** How long the connection soak holds its idle connections (`--soak-seconds`, 10-70). */
  soakSeconds: number;
  /** `--slow-streams N --slow-seconds S`: the many-long-streams scenario's size; undefined: its mode's default. */
  slowStreams?: { streams: number; seconds: number };
  gateway: Target;
  /** The gateway with a token of a user in a team (four levels reserved per request against the lone token's two). */
  teamGateway: Target;
  /** The bare pass-through; it swaps the client's key for the simulator's, so this carries the gateway's key. */
  bare: Target;
  direct: Target;
  gatewayPid: number;
  barePid: number;
  simPid: number;
  /**
   * Starts another gateway (same store, config and key) with extra env, unpinned or (`pinned`) on the gateway's core;
   * the rig stops it on exit too.
   */
  extraGateway(name: string, env: NodeJS.ProcessEnv, pinned?: boolean): Promise<{ url: string; pid: number; stop(): Promise<void> }>;
  /**
   * The bare WebSocket relay to the simulator's Realtime socket (bench/bare-ws-relay.ts, on the gateway's core, started
   * on the first call): the realtime scenario's baseline. Its `url` is http://; it swaps the client's key too.
   */
  bareWs(): Promise<{ url: string; pid: number }>;
  /** Credits CPU seconds of processes a scenario started itself (extra gateways, client helpers), so the report's
   *  "other processes" figure leaves them out; call it just before stopping them. */
  childCpu?(seconds: number): void;
  /**
   * Starts measuring how much of each pinned core processes outside the rig take; the returned function ends the
   * measurement. Undefined when nothing is pinned (then every process may run anywhere and it means nothing).
   */
  foreignLoad?(): () => Foreign;
  /** Aborted on SIGINT or the global watchdog; every loop checks it. */
  signal: AbortSignal;
  log(msg: string): void;
}

/**
 * Share of a core (0-1, over the measured wall time) used by anything but the rig's own processes: busy time from
 * /proc/stat less the CPU time of the processes pinned there (gateway and bare proxy on the gateway core; simulator
 * and this process on the client core).
 */
export interface Foreign { gatewayCore: number; clientCore: number }

/** A table row; `pass` undefined means the row is informational (no target). */
export interface Row {
  metric: string;
  target?: string;
  gateway?: string;
  /** The bare pass-through's figure; the column appears in a section when any of its rows has one. */
  bare?: string;
  direct?: string;
  /** Gateway against bare: a ratio (`1.42×`) or a difference, as the row's target states. */
  vsBare?: string;
  delta?: string;
  pass?: boolean;
}

export interface Section {
  title: string;
  rows: Row[];
  notes?: string[];
  perRun?: Record<string, number[]>;
  /** Rows for the summary of the speed targets at the top of the report (repeated from `rows`, counted once). */
  headline?: Row[];
}

export interface Scenario {
  name: string;
  /** Skipped in quick mode when false. */
  quick: boolean;
  run(ctx: BenchContext): Promise<Section>;
}

/** Interleaves the two targets run by run (gateway, direct, gateway, direct, ...) so slow drift hits both alike. */
export async function interleaved<T>(ctx: BenchContext, fn: (t: Target, run: number) => Promise<T>): Promise<{ gateway: T[]; direct: T[] }> {
  const out = { gateway: [] as T[], direct: [] as T[] };
  for (let i = 0; i < ctx.runs && !ctx.signal.aborted; i++) {
    out.gateway.push(await fn(ctx.gateway, i));
    if (ctx.signal.aborted) break;
    out.direct.push(await fn(ctx.direct, i));
  }
  return out;
}

/**
 * Gateway, bare pass-through, direct, run by run (gateway, bare, direct; bare, direct, gateway; ...): slow drift hits all three
 * alike, and the gateway and bare proxy, which share a core, are never loaded at the same time.
 */
export async function interleaved3<T>(ctx: BenchContext, fn: (t: Target, run: number) => Promise<T>): Promise<Runs3<T>> {
  const { runs, foreign } = await rotation(ctx, { gateway: ctx.gateway, bare: ctx.bare, direct: ctx.direct }, fn);
  return { gateway: runs.gateway, bare: runs.bare, direct: runs.direct, foreign: foreign as Runs3<T>['foreign'] };
}

/**
 * Any set of targets, run by run in an order rotated each run, with other processes' share of each core during each
 * target's runs: `interleaved3`'s loop, for a scenario with a target more (another gateway on the same core).
 */
export async function rotation<T, K extends string>(ctx: BenchContext, targets: Record<K, Target>, fn: (t: Target, run: number, key: K) => Promise<T>):
  Promise<{ runs: Record<K, T[]>; foreign: Record<K, Foreign[]> }> {
  const keys = Object.keys(targets) as K[];
  const runs = Object.fromEntries(keys.map((k) => [k, []])) as unknown as Record<K, T[]>;
  const foreign = Object.fromEntries(keys.map((k) => [k, []])) as unknown as Record<K, Foreign[]>;
  for (let i = 0; i < ctx.runs && !ctx.signal.aborted; i++) {
    // Rotated per run: in a fixed order bare always ran right after the gateway and paid ~8 % for it (its caches
    // cold, the gateway's GC still finishing on the shared core), which flattered the gateway ÷ bare ratio.
    for (const k of keys.map((_, j) => keys[(j + i) % keys.length])) {
      if (ctx.signal.aborted) break;
      const stop = ctx.foreignLoad?.();
      runs[k].push(await fn(targets[k], i, k));
      if (stop) foreign[k].push(stop());
    }
  }
  return { runs, foreign };
}

export interface Runs3<T> {
  gateway: T[]; bare: T[]; direct: T[];
  /** Per run: how much of each core other processes took meanwhile (empty when not pinned). */
  foreign: Record<Target['name'], Foreign[]>;
}

const disturbedShare = 0.1;

/**
 * A row and a note from interleaved3's foreign-load readings: other processes' share of each core during each
 * target's runs, so a disturbed run is visible next to the figure it moved. Nothing when not measured.
 */
export function foreignLoadReport(f: Runs3<unknown>['foreign'] & Record<string, Foreign[]>): { rows: Row[]; notes: string[]; perRun: Record<string, number[]> } {
  const all = Object.values(f).flat();
  if (!all.length) return { rows: [], notes: [], perRun: {} };
  const perRun: Record<string, number[]> = {};
  for (const [name, rs] of Object.entries(f)) {
    perRun[`${name} runs: other processes' share of CPU 0`] = rs.map((r) => Math.max(0, r.gatewayCore));
    perRun[`${name} runs: other processes' share of CPU 1`] = rs.map((r) => Math.max(0, r.clientCore));
  }
  const pc = (v: number) => `${Math.round(Math.max(0, v) * 100)} %`;
  const show = (rs: Foreign[]) => {
    if (!rs.length) return undefined;
    const g = rs.map((r) => r.gatewayCore);
    const c = rs.map((r) => r.clientCore);
    return `${pc(median(g))} / ${pc(median(c))} (max ${pc(Math.max(...g))} / ${pc(Math.max(...c))})`;
  };
  const worst = Math.max(...all.map((r) => Math.max(r.gatewayCore, r.clientCore)));
  return {
    rows: [{
      metric: 'other processes\' share of CPU 0 / CPU 1 during the runs, median (max)',
      gateway: show(f.gateway), bare: show(f.bare), direct: show(f.direct),
    }],
    notes: worst > disturbedShare
      ? [`**Disturbed:** in at least one run other processes took ${pc(worst)} of a bench core; the figures of that target moved with it (see the per-run values), so rerun on a quiet machine before comparing.`]
      : [],
    perRun,
  };
}

export function chatBody(extra: Record<string, unknown> = {}, text = 'Say hello in five words.'): Buffer {
  return Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }], ...extra }));
}
