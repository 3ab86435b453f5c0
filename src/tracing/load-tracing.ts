// Starts OpenTelemetry when the standard variables ask for traces: the SDK and the code that makes spans (otel.ts) are
// imported here and only here, so a gateway without an endpoint never loads them.
import type { Logger } from 'pino';
import type { Tracing } from './tracing.js';

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
