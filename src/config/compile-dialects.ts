// Compiles the `dialects` of routes.yaml: each side's JSONata once (request translations with their own time limit),
// usage paths, stream end events.
import type { Dialect, StreamTransform } from '../types/generated/routes.js';
import { after, compileTransform, type Transform } from '../transform/compile-transform.js';
import type { CompiledStream } from '../transform/stream-transform.js';
import { compileUsagePaths } from '../transform/usage-paths.js';
import type { CompiledDialect } from './runtime.js';

export function compileDialects(dialects: Record<string, Dialect> | undefined, ms: number): Map<string, CompiledDialect> {
  const out = new Map<string, CompiledDialect>();
  for (const [name, d] of Object.entries(dialects ?? {})) {
    // A request's translation grows with the conversation; answers and stream events are one message or event.
    const requestMs = d.request_timeout_ms ?? ms;
    const requestSetting = d.request_timeout_ms ? `dialects.${name}.request_timeout_ms` : undefined;
    const client = d.client && side(d.client.functions, ms, requestMs, requestSetting);
    const vendor = d.vendor && side(d.vendor.functions, ms, requestMs, requestSetting);
    out.set(name, {
      name,
      description: d.description,
      error: d.error ? compileTransform(d.error, ms) : undefined,
      client: d.client && client && {
        request: client.request(d.client.request), response: client.t(d.client.response), stream: client.stream(d.client.stream),
        conversation: d.client.conversation ? client.request(d.client.conversation) : undefined,
      },
      vendor: d.vendor && vendor && { request: vendor.request(d.vendor.request), response: vendor.t(d.vendor.response), stream: vendor.stream(d.vendor.stream) },
      usage: d.usage && compileUsagePaths(d.usage),
      streamEnd: new Set(d.stream_end ?? []),
      streamResult: d.stream_result && { events: new Set(d.stream_result.events), at: d.stream_result.at.split('.') },
      sseQuery: d.sse_query ? { name: d.sse_query.split('=')[0], value: d.sse_query.split('=')[1] } : undefined,
    });
  }
  return out;
}

/**
 * One side's compiler. A request or answer transform gets the side's `functions` made in an evaluation of their own
 * just before it (a function jsonata evaluates is bound to the evaluation that made it, time limit included). A stream
 * makes compiled helpers once (they run under the limit of the hook that calls them) and helpers jsonata evaluates
 * again once older than half the limit (see StreamTransformer), so a runaway one is stopped either way.
 */
function side(functions: string | undefined, ms: number, requestMs: number, requestSetting?: string) {
  const streamFns = functions ? compileTransform(functions, ms) : undefined;
  const withFns = (limit: number, setting?: string) => {
    const fns = functions ? compileTransform(functions, limit, setting) : undefined;
    return (src: string): Transform => {
      const own = compileTransform(src, limit, setting);
      if (!fns) return own;
      const evaluate = (input: unknown, bindings: Record<string, unknown> = {}) => after(fns.evaluate(null, bindings), (fn) => own.evaluate(input, { ...bindings, fn }));
      return {
        source: own.source, compiled: own.compiled && fns.compiled, fallbackReason: own.fallbackReason ?? fns.fallbackReason, evaluate,
        direct: own.direct && fns.direct && ((input, bindings) => own.direct!(input, { ...bindings, fn: fns.direct!(null, bindings) })),
        run: async (input, bindings) => evaluate(input, bindings),
        reference: async (input, bindings = {}) => own.reference(input, { ...bindings, fn: await fns.reference(null, bindings) }),
      };
    };
  };
  const t = withFns(ms);
  const request = withFns(requestMs, requestSetting);
  const h = (src: string | undefined) => (src ? compileTransform(src, ms) : undefined);
  const stream = (s: StreamTransform): CompiledStream => ({
    functions: streamFns, functionsFreshMs: ms / 2, init: h(s.init), event: h(s.event)!, end: h(s.end), error: h(s.error),
  });
  return { t, request, stream };
}
