// Relays SSE event by event with backpressure, an idle bound and client-abort propagation; never holds the stream.
import type { Signal } from '../http/abort.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SseParser, SseTooLarge, type SseEvent } from './sse-parser.js';

export type RelayEnd = 'eof' | 'client_gone' | 'idle_timeout' | 'upstream_cut' | 'too_large' | 'cut';

/** Returns the text to send for an event, or undefined to drop it. */
export type OnEvent = (ev: SseEvent) => string | undefined;
export type OnEventAsync = (ev: SseEvent) => Promise<string | undefined>;

export interface RelayOptions {
  maxEventBytes: number; idleMs: number; onEvent: OnEvent | OnEventAsync; isAsync: boolean;
  /** The request's abort: the client left (`client_gone`) or a stop cut the stream (`cut`). */
  signal: Signal;
}

export function relaySse(upstream: IncomingMessage, res: ServerResponse, opts: RelayOptions): Promise<RelayEnd> {
  const { idleMs, onEvent, isAsync } = opts;
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
    const write = (out: string) => {
      if (out && !res.write(out)) {
        upstream.pause();
        res.once('drain', () => upstream.resume());
      }
    };
    const handle = async (events: SseEvent[]) => {
      let out = '';
      for (const ev of events) out += (await onEvent(ev)) ?? '';
      return out;
    };
    function onData(chunk: Buffer) {
      arm();
      let events: SseEvent[];
      try { events = parser.push(chunk); } catch (e) { if (e instanceof SseTooLarge) return finish('too_large'); throw e; }
      if (!isAsync) return write(handleSync(events, onEvent as OnEvent));
      // An asynchronous transform: hold the upstream so events stay in order.
      upstream.pause();
      pending = pending.then(() => handle(events)).then((out) => { if (!ended) { write(out); upstream.resume(); } }, () => finish('upstream_cut'));
    }
    // The end waits for events still being transformed, so the last ones are never overtaken by the close.
    let pending: Promise<void> = Promise.resolve();
    upstream.on('data', onData);
    upstream.once('end', () => {
      pending = pending.then(async () => {
        const tail = parser.flush();
        const s = tail ? await Promise.resolve(onEvent(tail)).catch(() => undefined) : undefined;
        if (s && !ended) write(s);
        finish('eof');
      });
    });
    upstream.once('error', () => finish('upstream_cut'));
    upstream.once('close', () => { if (!upstream.readableEnded) finish('upstream_cut'); });
    function onAbort() { finish(opts.signal.reason === 'shutdown' ? 'cut' : 'client_gone'); }
    if (opts.signal.aborted) return onAbort();
    opts.signal.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(check, idleMs);
  });
}

// The hot path: unified-format events are handled synchronously and written once per upstream chunk.
function handleSync(events: SseEvent[], onEvent: OnEvent): string {
  let out = '';
  for (let i = 0; i < events.length; i++) {
    const r = onEvent(events[i]);
    if (r) out += r;
  }
  return out;
}
