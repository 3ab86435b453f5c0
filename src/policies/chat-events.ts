// Per-event work on a unified chat stream: capture usage, hide it when the client did not ask, map vendor chunks,
// and, when the client asked for usage, put it on the last chunk together with its finish_reason (the contract's
// streaming rule 4: the last chunk before [DONE] has an empty delta, the finish_reason and the usage).
import type { SseEvent } from '../transport/sse-parser.js';
import { answerModel } from '../pipeline/context.js';
import type { Usage } from '../transform/usage.js';
import { dig, mayCarryUsage, readUsage, type CompiledUsagePaths } from '../transform/usage-paths.js';
import type { CompiledDialect } from '../config/runtime.js';

export interface ChatStreamState {
  usage?: Usage; done: boolean; dataEvents: number; sawError: boolean;
  /** Where unified chunks carry usage (the operation's shape, usage-source.ts). */
  usagePaths: CompiledUsagePaths;
  /** Where the vendor's own events carry it, when they are not unified: then usage is read there, not from chunks. */
  vendorUsage?: CompiledUsagePaths;
  /** The model a unified stream's usage chunk names. */
  model?: string;
  /** A finish chunk waiting for the usage chunk that follows it (client asked for usage). */
  held?: Record<string, unknown>;
}

const usageObject = /"usage"\s*:\s*\{/;
const finishReason = /"finish_reason"\s*:\s*"/;

/** Handler for upstreams that already speak the unified format: no JSON work unless an event carries usage or a finish. */
export function unifiedHandler(state: ChatStreamState, clientWantsUsage: boolean) {
  return (ev: SseEvent): string | undefined => {
    const data = ev.data;
    if (data === undefined) return `${ev.raw}\n\n`;
    if (data === '[DONE]') { state.done = true; return undefined; }
    state.dataEvents++;
    if (data.startsWith('{"error"')) state.sawError = true;
    const usage = data.includes('"usage"') && usageObject.test(data);
    const finish = clientWantsUsage && data.includes('"finish_reason"') && finishReason.test(data);
    if (!usage && !finish) return state.held ? `${flushHeld(state)}data: ${data}\n\n` : `data: ${data}\n\n`;
    return withUsage(state, clientWantsUsage, JSON.parse(data));
  };
}

/**
 * Handler for a client and vendor that speak the same (non-unified) dialect: the events pass as they came; only those
 * its `usage` names are parsed, for billing. A dialect that names no end event (its events have no names) ends
 * cleanly with the body. The event carrying the whole answer (`stream_result`) is kept by `keep` before it is
 * relayed, so a client that continues the answer at once finds it kept.
 */
export function sameDialectHandler(state: ChatStreamState, d: Pick<CompiledDialect, 'usage' | 'streamEnd' | 'streamResult'>,
  keep?: (result: unknown) => Promise<void>) {
  const { streamEnd: end, streamResult } = d;
  const usage = state.vendorUsage ?? d.usage;
  if (!end.size) state.done = true;
  return (ev: SseEvent): string | Promise<string> => {
    if (ev.name && end.has(ev.name)) state.done = true;
    if (ev.data !== undefined) {
      state.dataEvents++;
      // A named `error` event, or an unnamed one that is an error object (dialects whose events have no names).
      if (ev.name === 'error' || (!ev.name && ev.data.startsWith('{"error"'))) state.sawError = true;
      const forUsage = usage !== undefined && mayCarryUsage(usage, ev.name, ev.data);
      const forResult = ev.name !== undefined && streamResult?.events.has(ev.name);
      const parsed = forUsage || forResult ? parseOrNull(ev.data) : undefined;
      if (forUsage) state.usage = readUsage(usage, parsed, state.usage);
      const result = forResult ? dig(parsed, streamResult!.at) : undefined;
      if (result !== undefined && keep) return keep(result).then(() => `${ev.raw}\n\n`);
    }
    return `${ev.raw}\n\n`;
  };
}

function parseOrNull(s: string): unknown {
  try { return JSON.parse(s); } catch { return null; }
}

export function withUsage(state: ChatStreamState, clientWantsUsage: boolean, obj: Record<string, unknown>): string | undefined {
  if (obj.error) state.sawError = true;
  const hasUsage = Boolean(obj.usage && typeof obj.usage === 'object');
  if (hasUsage) {
    if (!state.vendorUsage) state.usage = readUsage(state.usagePaths, obj, state.usage);
    state.model = answerModel(obj);
  }
  const usageOnly = hasUsage && Array.isArray(obj.choices) && obj.choices.length === 0;
  if (!clientWantsUsage) {
    // The usage-only chunk exists because the gateway asked for it; the client never sees it.
    if (usageOnly) return undefined;
    if (obj.usage !== undefined) delete obj.usage;
    return event(obj);
  }
  if (usageOnly && state.held) {
    const merged = { ...state.held, usage: obj.usage };
    state.held = undefined;
    return event(merged);
  }
  const out = flushHeld(state);
  if (!hasUsage && finishes(obj)) { state.held = obj; return out; }
  return out + event(obj);
}

/** The held finish chunk as it is (no usage came), or nothing. Called before anything that follows it. */
export function flushHeld(state: ChatStreamState): string {
  if (!state.held) return '';
  const held = state.held;
  state.held = undefined;
  return event(held);
}

const finishes = (obj: Record<string, unknown>) => Array.isArray(obj.choices) && obj.choices.some((c) => typeof (c as { finish_reason?: unknown })?.finish_reason === 'string');
const event = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;

export function streamErrorEvent(message: string, code: string): string {
  return `data: ${JSON.stringify({ error: { message, type: 'platform_api_error', param: '', code } })}\n\n`;
}
