// Open-loop load at a fixed rate, latency from the intended send time: a slow server cannot hide its queue (no coordinated omission).
import { Agent, request } from 'node:http';
import type { Target } from './scenario.js';

export interface OpenLoopOptions {
  target: Target;
  path: string;
  body: Buffer;
  rate: number; // requests per second
  seconds: number;
  /** How long to wait for stragglers after the last send before counting them as timed out. */
  drainMs: number;
  signal: AbortSignal;
}

export interface OpenLoopResult {
  planned: number;
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  timedOut: number;
  /** ms from the intended send time to the end of the response, 2xx only. */
  latencies: Float64Array;
  /** Worst lateness of the client's own timer: when large, the client, not the server, was the bottleneck. */
  maxSendLagMs: number;
}

export async function openLoop(o: OpenLoopOptions): Promise<OpenLoopResult> {
  const planned = Math.max(1, Math.round(o.rate * o.seconds));
  // Keep-alive sockets are reused; a queue forms in the agent (and counts as latency) only past maxSockets.
  const agent = new Agent({ keepAlive: true, maxSockets: 512 });
  const url = new URL(o.path, o.target.url);
  const headers = {
    'content-type': 'application/json', 'content-length': String(o.body.length), authorization: `Bearer ${o.target.key}`,
  };
  const latencies = new Float64Array(planned);
  let n = 0, sent = 0, ok = 0, non2xx = 0, errors = 0, done = 0, maxSendLagMs = 0;
  const pending = new Set<ReturnType<typeof request>>();
  let allDone: () => void = () => {};
  const finished = new Promise<void>((r) => { allDone = r; });
  const settle = () => { if (++done === planned) allDone(); };

  const send = (intended: number) => {
    sent++;
    const req = request(url, { method: 'POST', agent, headers }, (res) => {
      res.on('data', () => {});
      res.once('error', () => { if (pending.delete(req)) { errors++; settle(); } });
      res.once('end', () => {
        if (!pending.delete(req)) return; // already counted (error, or destroyed after the drain window)
        const ms = performance.now() - intended;
        if (res.statusCode! >= 200 && res.statusCode! < 300) { ok++; latencies[n++] = ms; } else non2xx++;
        settle();
      });
    });
    pending.add(req);
    req.once('error', () => { if (pending.delete(req)) { errors++; settle(); } });
    req.end(o.body);
  };

  const start = performance.now();
  const interval = 1000 / o.rate;
  let i = 0;
  await new Promise<void>((resolve) => {
    // A 1 ms timer sends every request whose slot has come; bounded by `planned` and by the abort signal.
    const tick = () => {
      const now = performance.now();
      const due = Math.min(planned, Math.floor((now - start) / interval) + 1);
      if (i < due) maxSendLagMs = Math.max(maxSendLagMs, now - (start + i * interval));
      for (; i < due; i++) send(start + i * interval);
      if (i >= planned || o.signal.aborted) return resolve();
      setTimeout(tick, 1);
    };
    tick();
  });
  if (sent < planned) done += planned - sent; // aborted: the unsent ones will never settle
  if (done >= planned) allDone();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([finished, new Promise<void>((r) => { timer = setTimeout(r, o.drainMs); })]);
  clearTimeout(timer);
  const timedOut = pending.size;
  for (const req of pending) req.destroy();
  pending.clear();
  agent.destroy();
  return { planned, sent, ok, non2xx, errors, timedOut, latencies: latencies.subarray(0, n), maxSendLagMs };
}
