// A stateful stream translation written in JSONata: per-stream state the expressions read ($state) and replace,
// any number of output events per input event (named SSE events included), and hooks for a clean end and a failure.
// Every hook returns {state?, events?, result?}; a bare array is taken as the events.
// Compiled hooks run synchronously: an event costs no promise unless a hook hands over to jsonata (see `step`).
import { after, type Transform } from './compile-transform.js';

export interface CompiledStream {
  /**
   * Helpers bound as $fn for every hook. A JSONata function keeps the time limit of the evaluation that made it, so
   * they are made again once older than `functionsFreshMs`: a helper that runs away inside a later hook is still
   * stopped, within the limit, and a stream that outlives the limit keeps working helpers. (Compiled helpers run under
   * the limit of the hook that calls them.)
   */
  functions?: Transform;
  functionsFreshMs?: number;
  init?: Transform; event: Transform; end?: Transform; error?: Transform;
}

/** One output event: an SSE event name (optional) and its data, serialized as JSON. */
export interface StreamEvent { event?: string; data: unknown }

/** Events now, or a promise of them where a hook went to jsonata. */
export type Events = StreamEvent[] | Promise<StreamEvent[]>;

interface HookOutput { state?: unknown; events?: unknown; result?: unknown }

export class StreamTransformer {
  private state: unknown = {};
  private started = false;
  /** The whole answer the stream amounts to, once a hook has said it (kept by routes that store answers). */
  result: unknown;

  private fn: unknown;
  private fnAt = 0;
  private readonly extra: Record<string, unknown>;

  constructor(private readonly spec: CompiledStream, private readonly bindings: Record<string, unknown>) {
    // One bindings object per stream, updated in place: hooks read it during their (synchronous) evaluation only.
    this.extra = { ...bindings };
  }

  /** The events `init` opens the stream with, at once (before any input event); later hooks will not repeat them. */
  async open(): Promise<StreamEvent[]> {
    return this.started ? [] : this.start();
  }

  /** Events for one input event (`data` parsed, `name` its SSE event name). */
  async push(data: unknown, name?: string): Promise<StreamEvent[]> {
    return this.step(data, name);
  }

  /** As `push`, without a promise when the hooks are compiled: the relay's hot path. */
  step(data: unknown, name?: string): Events {
    if (this.started) return this.run(this.spec.event, data, { event: name });
    return then2(this.start(), () => this.run(this.spec.event, data, { event: name }));
  }

  /** The closing events after a clean end. */
  async end(): Promise<StreamEvent[]> {
    const before = this.started ? [] : await this.start();
    return this.spec.end ? before.concat(await this.run(this.spec.end, null, {})) : before;
  }

  /** The events that close a failed or cut stream. */
  async fail(message: string, code: string): Promise<StreamEvent[]> {
    if (!this.spec.error) return [];
    const before = this.started ? [] : await this.start();
    return before.concat(await this.run(this.spec.error, null, { message, code }));
  }

  private start(): Events {
    this.started = true;
    return this.spec.init ? this.run(this.spec.init, null, {}) : [];
  }

  private helpers(): unknown {
    const { functions, functionsFreshMs } = this.spec;
    if (!functions) return undefined;
    const now = performance.now();
    if (this.fn === undefined || (functionsFreshMs && now - this.fnAt > functionsFreshMs && !functions.compiled)) {
      this.fnAt = now;
      this.fn = functions.evaluate(null, this.bindings);
    }
    return this.fn;
  }

  private run(t: Transform, input: unknown, extra: Record<string, unknown>): Events {
    const fn = this.helpers();
    if (fn instanceof Promise) {
      // Made by jsonata: keep the helpers, not the promise.
      return fn.then((made) => { if (this.fn === fn) this.fn = made; return this.run(t, input, extra); });
    }
    const b = this.extra;
    b.fn = fn;
    b.event = extra.event;
    b.message = extra.message;
    b.code = extra.code;
    b.state = this.state;
    const out = t.evaluate(input, b);
    return out instanceof Promise ? out.then((o) => this.take(o)) : this.take(out);
  }

  private take(out: unknown): StreamEvent[] {
    if (out === undefined || out === null) return [];
    if (Array.isArray(out)) return out.filter(isEvent);
    const o = out as HookOutput;
    if (o.state !== undefined) this.state = o.state;
    if (o.result !== undefined) this.result = o.result;
    const events = o.events === undefined ? [] : Array.isArray(o.events) ? o.events : [o.events];
    return events.filter(isEvent);
  }
}

/** `first`'s events, then `next`'s, without a promise when both are there. */
function then2(first: Events, next: () => Events): Events {
  return after(first, (a) => after(next(), (b) => (a as StreamEvent[]).concat(b as StreamEvent[]))) as Events;
}

const isEvent = (e: unknown): e is StreamEvent => Boolean(e) && typeof e === 'object' && 'data' in (e as object);

/** An event as SSE text: `event:` line when named, one `data:` line of JSON. */
export function sseText(e: StreamEvent): string {
  const data = `data: ${JSON.stringify(e.data)}\n\n`;
  return typeof e.event === 'string' && /^[\w.-]+$/.test(e.event) ? `event: ${e.event}\n${data}` : data;
}

export const sseTexts = (events: StreamEvent[]) => events.map(sseText).join('');
