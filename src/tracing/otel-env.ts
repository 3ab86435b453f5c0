// The standard OpenTelemetry variables, read from the gateway's environment (the one `startGateway` was given), so a
// test or an embedding process configures tracing as it configures everything else.
// Spec: opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/ and the OTLP exporter's.
import type { Attributes } from '@opentelemetry/api';
import {
  AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type BufferConfig, type Sampler,
} from '@opentelemetry/sdk-trace-base';

export interface ExporterSettings {
  url: string; headers: Record<string, string>; timeoutMillis?: number; compression?: 'gzip' | 'none';
  protocol: 'http/protobuf' | 'http/json';
}

/** The traces endpoint: `..._TRACES_ENDPOINT` as it is, else `OTEL_EXPORTER_OTLP_ENDPOINT` plus `/v1/traces`. */
export function exporterSettings(env: NodeJS.ProcessEnv): ExporterSettings {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ?? '';
  const url = own || `${base.replace(/\/+$/, '')}/v1/traces`;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() || 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use http/protobuf (the default) or http/json, on the OTLP/HTTP port (4318)`);
  }
  const timeout = Number(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT?.trim() || env.OTEL_EXPORTER_OTLP_TIMEOUT);
  const compression = env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION?.trim() || env.OTEL_EXPORTER_OTLP_COMPRESSION?.trim();
  return {
    url, protocol,
    headers: { ...keyValues(env.OTEL_EXPORTER_OTLP_HEADERS), ...keyValues(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    timeoutMillis: timeout > 0 ? timeout : undefined,
    compression: compression === 'gzip' ? 'gzip' : compression === 'none' ? 'none' : undefined,
  };
}

/** `OTEL_SERVICE_NAME` over `service.name` in `OTEL_RESOURCE_ATTRIBUTES`, over `switchyard`. */
export function resourceAttributes(env: NodeJS.ProcessEnv, version: string): Attributes {
  const attrs: Attributes = { 'service.name': 'switchyard', 'service.version': version, ...keyValues(env.OTEL_RESOURCE_ATTRIBUTES) };
  const name = env.OTEL_SERVICE_NAME?.trim();
  if (name) attrs['service.name'] = name;
  return attrs;
}

/** `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`; the default is the spec's `parentbased_always_on`. */
export function samplerOf(env: NodeJS.ProcessEnv): Sampler {
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = Number.isFinite(arg) && arg >= 0 && arg <= 1 && env.OTEL_TRACES_SAMPLER_ARG?.trim() ? arg : 1;
  switch (env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on') {
    case 'always_on': return new AlwaysOnSampler();
    case 'always_off': return new AlwaysOffSampler();
    case 'traceidratio': return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    default: throw new Error(`OTEL_TRACES_SAMPLER=${env.OTEL_TRACES_SAMPLER} is not a sampler this gateway knows (always_on, always_off, traceidratio, parentbased_*)`);
  }
}

/** The batch processor's `OTEL_BSP_*` settings. */
export function batchSettings(env: NodeJS.ProcessEnv): BufferConfig {
  const n = (name: string) => {
    const v = Number(env[name]);
    return env[name]?.trim() && Number.isFinite(v) && v >= 0 ? v : undefined;
  };
  return {
    scheduledDelayMillis: n('OTEL_BSP_SCHEDULE_DELAY'), exportTimeoutMillis: n('OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: n('OTEL_BSP_MAX_QUEUE_SIZE'), maxExportBatchSize: n('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  };
}

/** `k1=v1,k2=v2` with percent-encoded values, as the W3C Baggage format these variables use. */
function keyValues(s: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (s ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    try { out[key] = decodeURIComponent(pair.slice(at + 1).trim()); } catch { out[key] = pair.slice(at + 1).trim(); }
  }
  return out;
}
