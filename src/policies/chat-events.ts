// Per-event work on a unified chat stream: capture usage, hide it when the client did not ask, map vendor chunks.
import type { SseEvent } from '../transport/sse-parser.js';
import type { Transform } from '../transform/compile-transform.js';
import type { Usage } from '../pipeline/context.js';

export interface ChatStreamState { usage?: Usage; done: boolean; dataEvents: number; sawError: boolean }

const usageObject = /"usage"\s*:\s*\{/;

/** Handler for upstreams that already speak the unified format: no JSON work unless an event carries usage. */
export function unifiedHandler(state: ChatStreamState, clientWantsUsage: boolean) {
  return (ev: SseEvent): string | undefined => {
    const data = ev.data;
    if (data === undefined) return `${ev.raw}\n\n`;
    if (data === '[DONE]') { state.done = true; return undefined; }
    state.dataEvents++;
    if (data.startsWith('{"error"')) state.sawError = true;
    if (!data.includes('"usage"') || !usageObject.test(data)) return `data: ${data}\n\n`;
    return withUsage(state, clientWantsUsage, JSON.parse(data));
  };
}

/** Handler for vendors with a `chunk` transform: every event is parsed and mapped. */
export function transformedHandler(state: ChatStreamState, clientWantsUsage: boolean, chunk: Transform, bindings: Record<string, unknown>) {
  return async (ev: SseEvent): Promise<string | undefined> => {
    if (ev.data === undefined) return undefined;
    if (ev.data === '[DONE]') { state.done = true; return undefined; }
    state.dataEvents++;
    let parsed: unknown;
    try { parsed = JSON.parse(ev.data); } catch { return undefined; }
    const mapped = await chunk.run(parsed, bindings);
    const list = mapped === undefined ? [] : Array.isArray(mapped) ? mapped : [mapped];
    return list.map((c) => withUsage(state, clientWantsUsage, c as Record<string, unknown>) ?? '').join('');
  };
}

function withUsage(state: ChatStreamState, clientWantsUsage: boolean, obj: Record<string, unknown>): string | undefined {
  if (obj.error) state.sawError = true;
  if (obj.usage && typeof obj.usage === 'object') state.usage = obj.usage as Usage;
  if (!clientWantsUsage && obj.usage !== undefined) {
    // The usage-only chunk exists because the gateway asked for it; the client never sees it.
    if (Array.isArray(obj.choices) && obj.choices.length === 0) return undefined;
    delete obj.usage;
  }
  return `data: ${JSON.stringify(obj)}\n\n`;
}

export function streamErrorEvent(message: string, code: string): string {
  return `data: ${JSON.stringify({ error: { message, type: 'platform_api_error', param: '', code } })}\n\n`;
}
