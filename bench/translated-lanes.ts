// The translated-stream lanes shared by the sse-translated and workers scenarios: one stream shape (20 vendor events
// 5 ms apart) through the gateway untranslated (OpenAI chat on an OpenAI-format channel, bytes passed) and through each
// dialect translation (Responses, Messages and Gemini clients on that channel; an OpenAI chat client on a
// Messages-format vendor and on a Gemini-format vendor). A new translated lane is one more entry in `lanes`.
import { streamLoad, summarize, type StreamSummary } from './sse-client.js';
import type { BenchContext, Target } from './scenario.js';

const pace = '[sim chunks=20 interval_ms=5]';
export const eventsPerStream = 20;
export const eventIntervalMs = 5;

export interface Lane { name: string; path: string; body: Buffer; endMarker: string }
const json = (v: unknown) => Buffer.from(JSON.stringify(v));
/** The untranslated lane first: the others are compared with it. */
export const lanes: Lane[] = [
  { name: 'chat, untranslated', path: '/v1/chat/completions', endMarker: '[DONE]',
    body: json({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: `Count for me. ${pace}` }] }) },
  // compat-chat: a chat-only vendor (OpenAI's own models take Responses clients natively, untranslated).
  { name: 'Responses client → OpenAI-format channel', path: '/v1/responses', endMarker: 'response.completed',
    body: json({ model: 'compat-chat', stream: true, input: `Count for me. ${pace}` }) },
  { name: 'Messages client → OpenAI-format channel', path: '/v1/messages', endMarker: 'message_stop',
    body: json({ model: 'gpt-4o-mini', stream: true, max_tokens: 256, messages: [{ role: 'user', content: `Count for me. ${pace}` }] }) },
  { name: 'chat client → Messages-format vendor', path: '/v1/chat/completions', endMarker: '[DONE]',
    body: json({ model: 'claude-haiku-4-5', stream: true, messages: [{ role: 'user', content: `Count for me. ${pace}` }] }) },
  { name: 'Gemini client → OpenAI-format channel', path: '/v1beta/models/gpt-4o-mini:streamGenerateContent?alt=sse', endMarker: '"finishReason"',
    body: json({ contents: [{ role: 'user', parts: [{ text: `Count for me. ${pace}` }] }] }) },
  { name: 'chat client → Gemini-format vendor', path: '/v1/chat/completions', endMarker: '[DONE]',
    body: json({ model: 'gemini-2.5-flash', stream: true, messages: [{ role: 'user', content: `Count for me. ${pace}` }] }) },
];

/** `coreShare`: the gateway's CPU seconds over the wall seconds of the load (1.00 = one whole core). */
export interface LaneMeasure { s: StreamSummary; cpuMsPerStream: number; coreShare: number }

/**
 * `concurrency` streams on one lane for `secs` seconds (each opening its next when the last ends), with the gateway's
 * CPU over the load read from `cpu` (seconds; the processes to count are the caller's choice).
 */
export async function laneLoad(ctx: BenchContext, target: Target, cpu: () => number, lane: Lane, concurrency: number, secs: number): Promise<LaneMeasure> {
  const c0 = cpu();
  const t0 = performance.now();
  const results = await streamLoad({
    target, path: lane.path, body: lane.body, endMarker: lane.endMarker, concurrency, seconds: secs,
    maxStreams: 50_000, timeoutMs: 15_000, signal: ctx.signal,
  });
  const s = summarize(results);
  const used = cpu() - c0;
  return { s, cpuMsPerStream: (used * 1000) / Math.max(1, s.streams), coreShare: used / ((performance.now() - t0) / 1000) };
}
