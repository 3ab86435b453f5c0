// The OpenTelemetry SDK behind `Tracing`, loaded only when tracing is on (tracing.ts). Spans are exported over
// OTLP/HTTP in batches; the tracer is the gateway's own (never registered as the global one, and no context manager:
// every span names its parent explicitly), so libraries that also speak the OpenTelemetry API are left as they were.
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import { DiagLogLevel, diag, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Link, type Tracer } from '@opentelemetry/api';
import { parseTraceParent, TraceState } from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { CompiledChannel } from '../config/runtime.js';
import type { Carrier, PollTrace, PolledTask, Tracing } from './tracing.js';
import { batchSettings, exporterSettings, resourceAttributes, samplerOf, type ExporterSettings } from './otel-env.js';
import { OtelRequestTrace, inject } from './request-trace.js';
import { genAiOperation, providerOf, upstreamAttributes } from './attributes.js';

const version = (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;

export async function startOtel(env: NodeJS.ProcessEnv, log: Logger): Promise<Tracing> {
  const settings = exporterSettings(env);
  // The SDK reports export failures through its diagnostic logger: they belong in the gateway's log, once each.
  diag.setLogger(diagToPino(log), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  const provider = new BasicTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes(resourceAttributes(env, version))),
    sampler: samplerOf(env),
    spanProcessors: [new BatchSpanProcessor(await exporterOf(settings), batchSettings(env))],
  });
  log.info({ endpoint: settings.url, protocol: settings.protocol }, 'tracing on: OpenTelemetry spans exported over OTLP/HTTP');
  return new OtelTracing(provider, provider.getTracer('switchyard', version));
}

async function exporterOf(s: ExporterSettings): Promise<SpanExporter> {
  const options = { url: s.url, headers: s.headers, timeoutMillis: s.timeoutMillis, compression: s.compression as never };
  if (s.protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(options);
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(options);
}

class OtelTracing implements Tracing {
  constructor(private readonly provider: BasicTracerProvider, private readonly tracer: Tracer) {}

  request(req: Parameters<Tracing['request']>[0], ctx: Parameters<Tracing['request']>[1]): OtelRequestTrace {
    return new OtelRequestTrace(this.tracer, req, ctx);
  }

  poll(channel: CompiledChannel, operation: string, tasks: PolledTask[]): PollTrace {
    const links = tasks.map((t) => linkOf(t)).filter((l): l is Link => l !== undefined);
    const span = this.tracer.startSpan(`task poll ${channel.id}`, {
      kind: SpanKind.CLIENT, root: true, links,
      attributes: {
        'gen_ai.operation.name': genAiOperation(operation), 'gen_ai.request.model': tasks[0]?.upstream_model,
        ...providerOf(channel), ...upstreamAttributes(channel), 'switchyard.channel': channel.id, 'switchyard.operation': operation,
        'switchyard.task.count': tasks.length, ...(tasks.length === 1 ? { 'switchyard.task.id': tasks[0].id } : {}),
      },
    }, ROOT_CONTEXT);
    let ended = false;
    let refused = false;
    return {
      headers: () => inject(span),
      answered: (status) => {
        span.setAttribute('http.response.status_code', status);
        refused = status >= 400;
        if (refused) span.setAttribute('error.type', String(status)).setStatus({ code: SpanStatusCode.ERROR });
      },
      end: (error) => {
        if (ended) return;
        ended = true;
        if (error !== undefined && !refused) span.setStatus({ code: SpanStatusCode.ERROR, message: error }).setAttribute('error.type', error);
        span.end();
      },
    };
  }

  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  async shutdown(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.provider.shutdown().catch(() => undefined), new Promise((r) => { timer = setTimeout(r, ms); })]);
    clearTimeout(timer);
  }
}

/** The submit's span context, persisted with the task: a poll on any instance, after any restart, links to it. */
function linkOf(t: PolledTask): Link | undefined {
  const carrier: Carrier | undefined = t.trace;
  const parsed = carrier && parseTraceParent(carrier.traceparent);
  if (!parsed) return undefined;
  const context = { ...parsed, isRemote: true, traceState: carrier.tracestate ? new TraceState(carrier.tracestate) : undefined };
  return { context, attributes: { 'switchyard.task.id': t.id } };
}

function diagToPino(log: Logger) {
  const at = (level: 'warn' | 'error') => (message: string, ...args: unknown[]) => log[level]({ detail: args.map(String).join(' ').slice(0, 500) }, `opentelemetry: ${message}`);
  const quiet = () => undefined;
  return { error: at('error'), warn: at('warn'), info: quiet, debug: quiet, verbose: quiet };
}

