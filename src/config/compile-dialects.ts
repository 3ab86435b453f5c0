// Compiles the `dialects` of routes.yaml: each side's JSONata once (request translations with their own time limit),
// usage paths, stream end events.
import type { Dialect, StreamTransform } from '../types/generated/routes.js';
import { compileTransform } from '../transform/compile-transform.js';
import type { CompiledStream } from '../transform/stream-transform.js';
import { compileUsagePaths } from '../transform/usage-paths.js';
import type { CompiledDialect } from './runtime.js';

export function compileDialects(dialects: Record<string, Dialect> | undefined, ms: number): Map<string, CompiledDialect> {
  const t = (src: string) => compileTransform(src, ms);
  const stream = (s: StreamTransform): CompiledStream => ({
    init: s.init ? t(s.init) : undefined, event: t(s.event), end: s.end ? t(s.end) : undefined, error: s.error ? t(s.error) : undefined,
  });
  const out = new Map<string, CompiledDialect>();
  for (const [name, d] of Object.entries(dialects ?? {})) {
    // A request's translation grows with the conversation; answers and stream events are one message or event.
    const request = (src: string) => compileTransform(src, d.request_timeout_ms ?? ms);
    out.set(name, {
      name,
      error: d.error ? t(d.error) : undefined,
      client: d.client && {
        request: request(d.client.request), response: t(d.client.response), stream: stream(d.client.stream),
        conversation: d.client.conversation ? t(d.client.conversation) : undefined,
      },
      vendor: d.vendor && { request: request(d.vendor.request), response: t(d.vendor.response), stream: stream(d.vendor.stream) },
      usage: d.usage && compileUsagePaths(d.usage),
      streamEnd: new Set(d.stream_end ?? []),
    });
  }
  return out;
}
