// OpenTelemetry tracing as the rest of the gateway sees it, off unless an OTLP endpoint is set: this file and
// load-tracing.ts are all that loads when it is off (the SDK and the code that makes spans are imported dynamically by
// load-tracing.ts), so an untraced request makes no span object and does no context propagation work: every hook is
// one `ctx.trace` (or `g.tracing`) check.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CompiledChannel } from '../config/runtime.js';
import type { Usage } from '../transform/usage.js';
import type { Target, UpstreamResponse } from '../transport/http-client.js';

/** A span context in its W3C form, as kept with a task so its polls (on any instance, after a restart) can link to it. */
export interface Carrier { traceparent: string; tracestate?: string }

/**
 * What a request's spans read of it (the pipeline's request context is one): its id and target when it starts, what it
 * came to when it ends.
 */
export interface TracedRequest {
  id: string; method: string; url: string; route?: { id: string; path: string; operation: string }; model?: string; responseModel?: string;
  token?: { id: string; name?: string; user: string; group: string };
  usage?: Usage; logStatus?: number; errorCode?: string; outcome?: string; charged?: number;
}

export interface Tracing {
  /** Starts a request's server span, continuing the client's `traceparent`/`tracestate`. */
  request(req: IncomingMessage, ctx: TracedRequest): RequestTrace;
  /** A poll of one channel's tasks: a root span of its own, linked to each task's submit. */
  poll(channel: CompiledChannel, operation: string, tasks: PolledTask[]): PollTrace;
  /** Exports what is buffered (tests; a stop uses shutdown). */
  flush(): Promise<void>;
  /** Exports what is buffered and stops, within `ms`. */
  shutdown(ms: number): Promise<void>;
}

export interface PolledTask { id: string; upstream_model: string; trace?: Carrier }

/** One request's spans: the server span, a span per stage that runs, one client span per upstream attempt. */
export interface RequestTrace {
  stage<T>(name: string, run: () => T): T;
  /**
   * A client span for one call to `channel` (the n-th attempt of a generation; or a task's `call`: content, relay,
   * cancel, delete); puts its `traceparent` on the target's headers.
   */
  attempt(channel: CompiledChannel, target: Target, operation: string, model: string, n: number, call?: string): AttemptTrace;
  /** The context of the attempt that answered: kept with a task it submitted. */
  carrier(): Carrier | undefined;
  /** Ends every span still open, with what the request came to (status, usage, outcome). */
  end(res: ServerResponse): void;
}

export interface AttemptTrace {
  /** The vendor answered; `final` when this answer is the one the client gets (the span then lasts until its body is read). */
  answered(response: UpstreamResponse, final: boolean): void;
  failed(kind: string): void;
}

export interface PollTrace {
  /** Headers that carry the poll span's context to the vendor. */
  headers(): Record<string, string>;
  answered(status: number): void;
  end(error?: string): void;
}

/** Runs one pipeline stage, inside a span of its own when the request is traced. */
export function traced<T>(ex: { ctx: { trace: RequestTrace | undefined } }, name: string, run: () => T): T {
  const t = ex.ctx.trace;
  return t === undefined ? run() : t.stage(name, run);
}

/** Opens a vendor call's client span for fetchUpstream where the request it serves is traced (`call` names the call). */
export function callSpan(trace: RequestTrace | undefined, channel: CompiledChannel, call: string, operation: string, model: string): ((target: Target) => AttemptTrace) | undefined {
  return trace && ((target) => trace.attempt(channel, target, operation, model, 0, call));
}
