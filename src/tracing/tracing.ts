// OpenTelemetry tracing, off unless an OTLP endpoint is set. This file is all that loads when it is off: the SDK and
// the code that makes spans are imported (dynamically) only when `OTEL_EXPORTER_OTLP_ENDPOINT` or
// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, so an untraced request makes no span object and does no context
// propagation work: every hook is one `ctx.trace` (or `g.tracing`) check.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { CompiledChannel } from '../config/runtime.js';
import type { RequestContext } from '../pipeline/context.js';
import type { Target, UpstreamResponse } from '../transport/http-client.js';

/** A span context in its W3C form, as kept with a task so its polls (on any instance, after a restart) can link to it. */
export interface Carrier { traceparent: string; tracestate?: string }

export interface Tracing {
  /** Starts a request's server span, continuing the client's `traceparent`/`tracestate`. */
  request(req: IncomingMessage, ctx: RequestContext): RequestTrace;
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

/** Whether the standard variables ask for traces. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (String(env.OTEL_SDK_DISABLED).toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** The tracer when the environment asks for one; the SDK is loaded here and only here. */
export async function loadTracing(env: NodeJS.ProcessEnv, log: Logger): Promise<Tracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  const { startOtel } = await import('./otel.js');
  return startOtel(env, log);
}

/** Runs one pipeline stage, inside a span of its own when the request is traced. */
export function traced<T>(ex: { ctx: RequestContext }, name: string, run: () => T): T {
  const t = ex.ctx.trace;
  return t === undefined ? run() : t.stage(name, run);
}
