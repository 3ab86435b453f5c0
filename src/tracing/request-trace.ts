// One traced request: the server span (continuing the client's W3C trace context), a span per pipeline stage that
// runs, and a client span per upstream attempt (each failover or retry its own), which carries its context to the
// vendor in `traceparent`. `end` closes whatever is still open, so no path (error, abort, client gone, cut stream)
// leaves a span behind.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, defaultTextMapGetter, defaultTextMapSetter,
  type Attributes, type Context, type HrTime, type Span, type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator, hrTimeToMilliseconds, millisToHrTime } from '@opentelemetry/core';
import type { CompiledChannel } from '../config/runtime.js';
import type { Target } from '../transport/http-client.js';
import type { AttemptTrace, Carrier, RequestTrace, TracedRequest } from './tracing.js';
import { fullUrl, genAiOperation, httpMethod, pathOf, providerOf, upstreamAttributes } from './attributes.js';

const propagator = new W3CTraceContextPropagator();

/** `traceparent` (and `tracestate`) for a span's context. */
export function inject(span: Span): Record<string, string> {
  const headers: Record<string, string> = {};
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
  return headers;
}

/** `ended`: performance.now() when the answer's body closed; the attempt ends then, on the server span's clock. */
interface Winner { span: Span; ended?: number; channel: CompiledChannel; model: string }

/** An attempt of a request the sampler left out: nothing to record, its trace context still goes to the vendor. */
const unrecorded: AttemptTrace = { answered: () => undefined, failed: () => undefined };

export class OtelRequestTrace implements RequestTrace {
  private readonly server: Span;
  private readonly parent: Context;
  /** False when the sampler left the request out: then no stage or attempt span is made, only the context passed on. */
  private readonly recording: boolean;
  private current: Span | undefined;
  private winner: Winner | undefined;
  private done = false;

  constructor(private readonly tracer: Tracer, req: IncomingMessage, private readonly ctx: TracedRequest) {
    const remote = propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
    const method = httpMethod(req.method);
    this.server = tracer.startSpan(method, {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': method, 'url.path': pathOf(ctx.url), 'url.scheme': 'http',
        'network.protocol.version': req.httpVersion, 'client.address': req.socket.remoteAddress,
        'user_agent.original': req.headers['user-agent']?.slice(0, 256), 'switchyard.request_id': ctx.id,
      },
    }, remote);
    this.parent = trace.setSpan(ROOT_CONTEXT, this.server);
    this.recording = this.server.isRecording();
  }

  stage<T>(name: string, run: () => T): T {
    if (!this.recording) return run();
    const span = this.tracer.startSpan(name, { attributes: { 'switchyard.stage': name } }, this.parent);
    this.current = span;
    let out: T;
    try {
      out = run();
    } catch (err) {
      this.closeStage(span, err);
      throw err;
    }
    if (!(out instanceof Promise)) {
      this.closeStage(span);
      return out;
    }
    return out.then((v) => { this.closeStage(span); return v; }, (err) => { this.closeStage(span, err); throw err; }) as T;
  }

  private closeStage(span: Span, err?: unknown): void {
    if (this.current === span) this.current = undefined;
    if (err !== undefined) failed(span, errorType(err));
    span.end();
  }

  attempt(channel: CompiledChannel, target: Target, operation: string, model: string, n: number, call?: string): AttemptTrace {
    if (!this.recording) {
      Object.assign(target.headers, inject(this.server));
      return unrecorded;
    }
    const op = genAiOperation(operation);
    const attributes: Attributes = {
      'gen_ai.operation.name': op, 'gen_ai.request.model': model, ...providerOf(channel), ...upstreamAttributes(channel),
      'http.request.method': httpMethod(target.method), 'url.full': fullUrl(target.url), 'switchyard.channel': channel.id,
    };
    if (n > 0) attributes['http.request.resend_count'] = n;
    if (call) attributes['switchyard.call'] = call;
    const parent = this.current ? trace.setSpan(ROOT_CONTEXT, this.current) : this.parent;
    const span = this.tracer.startSpan(call ? `task ${call}` : `${op} ${model}`, { kind: SpanKind.CLIENT, attributes }, parent);
    Object.assign(target.headers, inject(span));
    return {
      answered: (response, final) => {
        const status = response.statusCode ?? 0;
        span.setAttribute('http.response.status_code', status);
        if (status >= 400) failed(span, String(status));
        if (!final) { span.end(); return; }
        // The answer's body is read (or relayed) after this; the span lasts until then, and gets the usage at `end`.
        const w: Winner = { span, channel, model };
        this.winner = w;
        response.once('close', () => { w.ended = performance.now(); });
      },
      failed: (kind) => { failed(span, kind); span.end(); },
    };
  }

  carrier(): Carrier | undefined {
    const headers = this.winner ? inject(this.winner.span) : inject(this.server);
    return headers.traceparent ? { traceparent: headers.traceparent, ...(headers.tracestate ? { tracestate: headers.tracestate } : {}) } : undefined;
  }

  end(res: ServerResponse): void {
    if (this.done) return;
    this.done = true;
    if (!this.recording) { this.server.end(); return; }
    const { ctx } = this;
    if (this.current) this.closeStage(this.current, { code: ctx.errorCode ?? 'aborted' }); // a stage the request's end overtook
    const usage: Attributes = ctx.usage
      ? { 'gen_ai.usage.input_tokens': ctx.usage.prompt_tokens, 'gen_ai.usage.output_tokens': ctx.usage.completion_tokens }
      : {};
    const w = this.winner;
    const status = ctx.logStatus ?? res.statusCode;
    const route = ctx.route;
    if (route) this.server.updateName(`${httpMethod(ctx.method)} ${route.path}`);
    this.server.setAttributes({
      'http.response.status_code': status,
      ...(route ? { 'http.route': route.path, 'switchyard.route': route.id, 'gen_ai.operation.name': genAiOperation(route.operation) } : {}),
      ...(ctx.token ? { 'switchyard.token.id': ctx.token.id, 'switchyard.token.name': ctx.token.name, 'switchyard.user': ctx.token.user, 'switchyard.group': ctx.token.group } : {}),
      ...(ctx.model ? { 'gen_ai.request.model': ctx.model } : {}),
      ...(w ? { 'gen_ai.response.model': ctx.responseModel ?? w.model, ...providerOf(w.channel), 'switchyard.channel': w.channel.id } : {}),
      ...usage,
      ...(ctx.outcome ? { 'switchyard.outcome': ctx.outcome } : {}),
      ...(ctx.charged !== undefined ? { 'switchyard.quota.charged': ctx.charged } : {}),
    });
    if (ctx.errorCode) this.server.setAttribute('error.type', ctx.errorCode);
    if (status >= 500) this.server.setStatus({ code: SpanStatusCode.ERROR, message: ctx.errorCode });
    this.server.end();
    if (w) {
      w.span.setAttributes({ ...usage, ...(ctx.outcome ? { 'switchyard.outcome': ctx.outcome } : {}), ...(ctx.responseModel ? { 'gen_ai.response.model': ctx.responseModel } : {}) });
      if (ctx.outcome && ctx.outcome !== 'done') failed(w.span, ctx.outcome);
      w.span.end(w.ended === undefined ? undefined : earlierThan(this.server, w.ended));
    }
  }
}

/**
 * The time `ms` of performance.now() on `span`'s clock, which has just ended. Each span converts performance time
 * with an offset of its own (taken from Date.now() at its start, whole milliseconds), so an attempt ended on its own
 * clock could end after the request that holds it; counted back from the request's end, it cannot.
 */
function earlierThan(span: Span, ms: number): HrTime | undefined {
  const end = (span as { endTime?: HrTime }).endTime;
  if (!end) return undefined;
  return millisToHrTime(hrTimeToMilliseconds(end) - Math.max(0, performance.now() - ms));
}

function failed(span: Span, type: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** An error's code (GatewayError, UpstreamFailure kind), never its message: messages may quote what a client sent. */
function errorType(err: unknown): string {
  const e = err as { code?: unknown; kind?: unknown; name?: unknown };
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.kind === 'string') return e.kind;
  return typeof e?.name === 'string' ? e.name : 'error';
}
