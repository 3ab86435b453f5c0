// A minimal SSE client that timestamps every event as it arrives: time to first byte, gaps between events, bursts.
import { Agent, request } from 'node:http';
import type { Target } from './scenario.js';
import { percentiles } from './stats.js';

export interface StreamResult {
  status: number;
  /** Ended with its end marker (`data: [DONE]` by default) and no error. */
  ok: boolean;
  events: number;
  /** ms from sending the request to the first body byte (the first event, since SSE headers carry no data). */
  ttfbMs: number;
  /** ms between consecutive events; 0 for an event that arrived in the same read as the one before it. */
  gaps: number[];
  /** The longest silence, counting the wait for the first byte too: a stream queued for seconds is stalled. */
  maxGapMs: number;
  error?: string;
  /** performance.now() at send, first byte and end, so a caller can count how many streams were open at once. */
  startedAt: number;
  firstAt: number;
  endedAt: number;
}

export interface StreamOptions {
  agent: Agent; target: Target; path: string; body: Buffer; timeoutMs: number; signal: AbortSignal;
  /** What the last bytes of a complete stream hold: `[DONE]` for OpenAI chat, a dialect's closing event otherwise. */
  endMarker?: string;
  /** Called once, when the stream's first body byte arrives. */
  onFirstEvent?: () => void;
}

const NL = 10;

export function runStream(o: StreamOptions): Promise<StreamResult> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const r: StreamResult = { status: 0, ok: false, events: 0, ttfbMs: NaN, gaps: [], maxGapMs: 0, startedAt: t0, firstAt: NaN, endedAt: NaN };
    let last = 0;
    let prevByte = 0;
    let tail = '';
    let settled = false;
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal.removeEventListener('abort', onAbort);
      if (error) r.error = error;
      r.endedAt = performance.now();
      // Silence until the end counts too: a stream that never answered, or went quiet before a timeout, stalled.
      r.maxGapMs = Math.max(r.maxGapMs, r.endedAt - (Number.isFinite(r.firstAt) ? last : t0));
      r.ok = !r.error && r.status === 200 && tail.includes(o.endMarker ?? '[DONE]');
      resolve(r);
    };
    const req = request(new URL(o.path, o.target.url), {
      method: 'POST', agent: o.agent,
      headers: { 'content-type': 'application/json', 'content-length': String(o.body.length), authorization: `Bearer ${o.target.key}` },
    }, (res) => {
      r.status = res.statusCode ?? 0;
      res.on('data', (chunk: Buffer) => {
        const now = performance.now();
        if (r.events === 0 && Number.isNaN(r.ttfbMs)) {
          r.firstAt = now;
          r.ttfbMs = now - t0;
          r.maxGapMs = r.ttfbMs;
          o.onFirstEvent?.();
        }
        // An event ends at a blank line ("\n\n"); the byte before this chunk counts, as a read may split the pair.
        let first = true;
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i];
          if (b === NL && prevByte === NL) {
            if (r.events > 0) {
              const gap = first ? now - last : 0;
              r.gaps.push(gap);
              if (gap > r.maxGapMs) r.maxGapMs = gap;
            }
            first = false;
            last = now;
            r.events++;
            prevByte = 0; // "\n\n\n" is one terminator plus a stray newline, not two events
            continue;
          }
          prevByte = b;
        }
        tail = (tail + chunk.toString('latin1')).slice(-1024); // a closing event's data can be long
      });
      res.once('end', () => finish(r.status === 200 ? undefined : `HTTP ${r.status}`));
      res.once('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
    });
    const timer = setTimeout(() => { req.destroy(); finish('timeout'); }, o.timeoutMs);
    const onAbort = () => { req.destroy(); finish('aborted'); };
    o.signal.addEventListener('abort', onAbort, { once: true });
    req.once('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
    req.end(o.body);
  });
}

export interface StreamLoadOptions extends Omit<StreamOptions, 'agent'> {
  concurrency: number;
  seconds: number;
  /** Hard cap on streams started, whatever the duration. */
  maxStreams: number;
}

/** `concurrency` workers, each opening its next stream when the last one ends, until the time or the cap is reached. */
export async function streamLoad(o: StreamLoadOptions): Promise<StreamResult[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: o.concurrency });
  const results: StreamResult[] = [];
  const until = performance.now() + o.seconds * 1000;
  let started = 0;
  const worker = async () => {
    while (performance.now() < until && started < o.maxStreams && !o.signal.aborted) {
      started++;
      results.push(await runStream({ ...o, agent }));
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  agent.destroy();
  return results;
}

/**
 * `count` streams sent at the same instant, each on a connection of its own opened for it (a crowd of clients arriving
 * together): what a burst of new streams costs before their first events.
 */
export async function streamBurst(o: Omit<StreamOptions, 'agent'> & { count: number }): Promise<StreamResult[]> {
  const agent = new Agent({ keepAlive: false, maxSockets: o.count });
  try {
    return await Promise.all(Array.from({ length: o.count }, () => runStream({ ...o, agent })));
  } finally {
    agent.destroy();
  }
}

export interface StreamSummary {
  streams: number;
  failed: number;
  errors: Record<string, number>;
  ttfbP50: number;
  ttfbP99: number;
  gapP50: number;
  gapP99: number;
  /** Share of gaps under 1 ms: events that arrived glued to the one before instead of at the upstream's pace. */
  burstShare: number;
  maxGap: number;
}

export function summarize(results: StreamResult[]): StreamSummary {
  const errors: Record<string, number> = {};
  let failed = 0;
  let gapsN = 0;
  for (const r of results) {
    if (!r.ok) { failed++; const k = r.error ?? 'no [DONE]'; errors[k] = (errors[k] ?? 0) + 1; }
    gapsN += r.gaps.length;
  }
  const gaps = new Float64Array(gapsN);
  let k = 0;
  let bursts = 0;
  let maxGap = 0;
  for (const r of results) {
    for (const g of r.gaps) { gaps[k++] = g; if (g < 1) bursts++; }
    if (r.maxGapMs > maxGap) maxGap = r.maxGapMs;
  }
  const ttfb = results.filter((r) => Number.isFinite(r.ttfbMs)).map((r) => r.ttfbMs);
  const [ttfbP50, ttfbP99] = percentiles(ttfb, [50, 99]);
  const [gapP50, gapP99] = percentiles(gaps, [50, 99]);
  return { streams: results.length, failed, errors, ttfbP50, ttfbP99, gapP50, gapP99, burstShare: gapsN ? bursts / gapsN : NaN, maxGap };
}

/** The largest number of streams that had sent their first event and not yet ended, at any one time. */
export function peakOpen(results: StreamResult[]): number {
  const marks: [number, number][] = [];
  for (const r of results) if (Number.isFinite(r.firstAt)) marks.push([r.firstAt, 1], [r.endedAt, -1]);
  marks.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0, peak = 0;
  for (const [, d] of marks) { open += d; if (open > peak) peak = open; }
  return peak;
}
