// Relays SSE event by event with backpressure, an idle bound and client-abort propagation; never holds the stream.
import type { Signal } from '../http/abort.js';
import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from './http-client.js';
import { SseParser, SseTooLarge, type SseEvent } from './sse-parser.js';

export type RelayEnd = 'eof' | 'client_gone' | 'idle_timeout' | 'upstream_cut' | 'too_large' | 'cut';

/**
 * Returns the text to send for an event, or undefined to drop it; a promise where the event's translation waits for
 * something (then the upstream is held until it settles, so events stay in order). Bytes (audio decoded from an
 * event) are written as they are, after the text of the events before them.
 */
export type OnEvent = (ev: SseEvent) => Sent | Promise<Sent>;
type Sent = string | Buffer | undefined;

export interface RelayOptions {
  maxEventBytes: number; idleMs: number; onEvent: OnEvent;
  /** The request's abort: the client left (`client_gone`) or a stop cut the stream (`cut`). */
  signal: Signal;
}

export function relaySse(upstream: UpstreamResponse, res: ServerResponse, opts: RelayOptions): Promise<RelayEnd> {
  const { idleMs, onEvent } = opts;
  const parser = new SseParser(opts.maxEventBytes);
  return new Promise((resolve) => {
    let ended = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (why: RelayEnd) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      upstream.removeListener('data', onData);
      if (why !== 'eof') upstream.destroy();
      resolve(why);
    };
    // One timer per stream, pushed back only when it fires early: re-arming it per chunk costs more than the chunk.
    let lastData = Date.now();
    const check = () => {
      const idle = Date.now() - lastData;
      if (idle < idleMs) timer = setTimeout(check, idleMs - idle);
      else finish('idle_timeout');
    };
    const arm = () => { lastData = Date.now(); };
    const write = (out: string | Buffer) => {
      if (out.length && !res.write(out)) {
        upstream.pause();
        res.once('drain', () => upstream.resume());
      }
    };
    // The hot path: events handled synchronously and written once per upstream chunk. An event whose handler answers
    // a promise holds the upstream; it, the rest of its chunk and any chunk read meanwhile follow once it settles.
    let waiting = false;
    const queued: SseEvent[][] = [];
    let whenIdle: (() => void) | undefined;
    const handle = (events: SseEvent[], from: number, out: string): void => {
      for (let i = from; i < events.length; i++) {
        let r: ReturnType<OnEvent>;
        try { r = onEvent(events[i]); } catch { write(out); return finish('upstream_cut'); }
        if (r instanceof Promise) {
          waiting = true;
          upstream.pause();
          r.then((t) => { if (!ended) handle(events, i + 1, joined(out, t)); }, () => { write(out); finish('upstream_cut'); });
          return;
        }
        if (typeof r === 'string') out += r;
        else if (r) out = joined(out, r);
      }
      write(out);
      const next = queued.shift();
      if (next) return handle(next, 0, '');
      if (waiting) {
        waiting = false;
        upstream.resume();
      }
      whenIdle?.();
    };
    /** Text so far, then bytes: the text is written first, and what follows starts afresh. */
    const joined = (out: string, t: Sent): string => {
      if (!Buffer.isBuffer(t)) return out + (t ?? '');
      write(out);
      write(t);
      return '';
    };
    function onData(chunk: Buffer) {
      arm();
      let events: SseEvent[];
      try { events = parser.push(chunk); } catch (e) { if (e instanceof SseTooLarge) return finish('too_large'); throw e; }
      if (waiting) queued.push(events);
      else handle(events, 0, '');
    }
    upstream.on('data', onData);
    // The end waits for events still being transformed, so the last ones are never overtaken by the close.
    upstream.once('end', () => {
      const close = async () => {
        whenIdle = undefined;
        const tail = parser.flush();
        const t = tail ? await Promise.resolve().then(() => onEvent(tail)).catch(() => undefined) : undefined;
        if (t && !ended) write(t);
        finish('eof');
      };
      if (waiting) whenIdle = () => { void close(); };
      else void close();
    });
    upstream.once('error', () => finish('upstream_cut'));
    upstream.once('close', () => { if (!upstream.readableEnded) finish('upstream_cut'); });
    function onAbort() { finish(opts.signal.reason === 'shutdown' ? 'cut' : 'client_gone'); }
    if (opts.signal.aborted) return onAbort();
    opts.signal.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(check, idleMs);
  });
}
