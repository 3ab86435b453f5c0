// What a scenario receives and returns: one file in bench/scenarios/ per scenario, listed in bench/run.ts.

export type Mode = 'quick' | 'full';

/** One side of a comparison: the gateway, or the simulator called directly with its own key. */
export interface Target { name: 'gateway' | 'direct'; url: string; key: string }

export interface BenchContext {
  mode: Mode;
  runs: number;
  soakMinutes: number;
  /** How long the connection soak holds its idle connections (`--soak-seconds`, 10-70). */
  soakSeconds: number;
  gateway: Target;
  direct: Target;
  gatewayPid: number;
  simPid: number;
  /** Starts another gateway (same store, config and key), unpinned, with extra env; the rig stops it on exit too. */
  extraGateway(name: string, env: NodeJS.ProcessEnv): Promise<{ url: string; pid: number; stop(): Promise<void> }>;
  /** Credits CPU seconds of processes a scenario started itself (extra gateways, client helpers), so the report's
   *  "other processes" figure leaves them out; call it just before stopping them. */
  childCpu?(seconds: number): void;
  /** Aborted on SIGINT or the global watchdog; every loop checks it. */
  signal: AbortSignal;
  log(msg: string): void;
}

/** A table row; `pass` undefined means the row is informational (no target). */
export interface Row {
  metric: string;
  target?: string;
  gateway?: string;
  direct?: string;
  delta?: string;
  pass?: boolean;
}

export interface Section { title: string; rows: Row[]; notes?: string[]; perRun?: Record<string, number[]> }

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

export function chatBody(extra: Record<string, unknown> = {}, text = 'Say hello in five words.'): Buffer {
  return Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }], ...extra }));
}
