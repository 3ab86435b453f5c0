// Closed-loop load with autocannon (N connections, each sends the next request when the last one answers).
import autocannon from 'autocannon';
import type { Target } from './scenario.js';

export interface ClosedLoopResult {
  ok: number;
  non2xx: number;
  errors: number;
  seconds: number;
  rps: number;
  /** Per-request latency in ms, 2xx only; autocannon's own histogram keeps whole milliseconds, too coarse here. */
  latencies: number[];
  /** CPU seconds spent during the run by each watched clock, keyed by the name given in `watch`. */
  cpu: Record<string, number>;
}

export interface ClosedLoopOptions {
  target: Target;
  path: string;
  body: Buffer;
  connections: number;
  seconds: number;
  watch: Record<string, () => number>; // name → a CPU-seconds clock read before and after the run
  signal: AbortSignal;
}

const maxSamples = 2_000_000; // bounds memory even for a long full-mode run at a high rate

export async function closedLoop(o: ClosedLoopOptions): Promise<ClosedLoopResult> {
  const latencies: number[] = [];
  let ok = 0;
  let non2xx = 0;
  const before = Object.fromEntries(Object.entries(o.watch).map(([k, clock]) => [k, clock()]));
  const t0 = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const inst = autocannon({
      url: `${o.target.url}${o.path}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${o.target.key}` },
      body: o.body,
      connections: o.connections,
      duration: o.seconds,
      timeout: 10,
      pipelining: 1,
    }, (err, res) => (err ? reject(err) : resolve(res)));
    inst.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) {
        ok++;
        if (latencies.length < maxSamples) latencies.push(ms);
      } else non2xx++;
    });
    const abort = () => inst.stop();
    o.signal.addEventListener('abort', abort, { once: true });
    inst.once('done', () => o.signal.removeEventListener('abort', abort));
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = Object.fromEntries(Object.entries(o.watch).map(([k, clock]) => [k, clock() - before[k]]));
  return { ok, non2xx, errors: result.errors, seconds, rps: ok / seconds, latencies, cpu };
}
