// Micro-benchmark of one translated stream's hooks, outside the gateway: the shipped dialects' stream transforms run
// on a 20-event stream (role chunk, 17 pieces of text, finish, usage), by jsonata's own evaluator and by the compiled
// one, in the same process. `node dist/bench/stream-hooks.js [streams]` prints the median time per stream and per event.
import { loadRuntime, projectRoot } from '../src/config/load-config.js';
import type { CompiledDialect } from '../src/config/runtime.js';
import type { Transform } from '../src/transform/compile-transform.js';
import { StreamTransformer, sseTexts, type CompiledStream } from '../src/transform/stream-transform.js';

const streams = Number(process.argv[2] ?? 400);
const chunk = (delta: object, finish: string | null = null) => ({
  id: 'c', object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }],
});
const unified = [
  chunk({ role: 'assistant', content: '' }),
  ...Array.from({ length: 17 }, (_, i) => chunk({ content: ` word${i}` })),
  chunk({}, 'stop'),
  { id: 'c', object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 9, completion_tokens: 17, total_tokens: 26 } },
];
const messagesEvents = [
  { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-haiku-4-5', usage: { input_tokens: 9, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ...Array.from({ length: 15 }, (_, i) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ` word${i}` } })),
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 15 } },
  { type: 'message_stop' },
];

const geminiEvents = Array.from({ length: 20 }, (_, i) => ({
  candidates: [{ content: { role: 'model', parts: [{ text: ` word${i}` }] }, index: 0, ...(i === 19 && { finishReason: 'STOP' }) }],
  usageMetadata: { promptTokenCount: 9, candidatesTokenCount: i + 1, totalTokenCount: 10 + i }, modelVersion: 'gemini-2.5-flash', responseId: 'r1',
}));

const withEngine = (s: CompiledStream, engine: 'compiled' | 'jsonata'): CompiledStream => {
  const pick = (t?: Transform): Transform | undefined => t && (engine === 'compiled' ? t : { ...t, compiled: false, evaluate: t.reference });
  return { ...s, functions: pick(s.functions), init: pick(s.init), event: pick(s.event)!, end: pick(s.end), error: pick(s.error) };
};

async function oneStream(spec: CompiledStream, bindings: Record<string, unknown>, events: { data: unknown; name?: string }[]): Promise<number> {
  const t = new StreamTransformer(spec, bindings);
  let out = sseTexts(await t.open());
  for (const e of events) out += sseTexts(await t.step(e.data, e.name));
  out += sseTexts(await t.end());
  return out.length;
}

/** CPU time per stream (this process's user + system time over batches of streams, the median batch): other
 * processes on a shared machine stretch wall time, not this. */
async function measure(spec: CompiledStream, bindings: Record<string, unknown>, events: { data: unknown; name?: string }[]): Promise<number> {
  for (let i = 0; i < 50; i++) await oneStream(spec, bindings, events);
  const batch = 20;
  const perStream: number[] = [];
  for (let i = 0; i < streams; i += batch) {
    const c0 = process.cpuUsage();
    for (let k = 0; k < batch; k++) await oneStream(spec, bindings, events);
    const c = process.cpuUsage(c0);
    perStream.push((c.user + c.system) / 1000 / batch);
  }
  perStream.sort((a, b) => a - b);
  return perStream[Math.floor(perStream.length / 2)];
}

const { runtime } = loadRuntime(projectRoot, { ...process.env, OPENAI_API_KEY: undefined });
const dialects = new Map<string, CompiledDialect>();
for (const r of runtime.routes) if (r.dialect) dialects.set(r.dialect.name, r.dialect);
const answer = { request: { model: 'gpt-4o-mini', input: 'hi', stream: true }, model: 'gpt-4o-mini', id: '0a1b2c3d4e5f60718293a4b5', created: 1767225600 };
const lanes = [
  { name: 'Responses client (client.stream)', spec: dialects.get('openai_responses')?.client?.stream, bindings: answer, events: unified.map((data) => ({ data })) },
  { name: 'Messages client (client.stream)', spec: dialects.get('anthropic_messages')?.client?.stream, bindings: answer, events: unified.map((data) => ({ data })) },
  { name: 'Messages vendor (vendor.stream)', spec: dialects.get('anthropic_messages')?.vendor?.stream, bindings: { model: 'claude-haiku-4-5', created: 1767225600 }, events: messagesEvents.map((data) => ({ data, name: data.type })) },
  { name: 'Gemini client (client.stream)', spec: dialects.get('gemini_generate')?.client?.stream, bindings: { ...answer, request: { contents: [{ parts: [{ text: 'hi' }] }] } }, events: unified.map((data) => ({ data })) },
  { name: 'Gemini vendor (vendor.stream)', spec: dialects.get('gemini_generate')?.vendor?.stream, bindings: { model: 'gemini-2.5-flash', created: 1767225600 }, events: geminiEvents.map((data) => ({ data })) },
];
console.log(`| stream hooks, ${streams} streams of 20 events | jsonata CPU ms/stream | compiled CPU ms/stream | jsonata µs/event | compiled µs/event | speed-up |`);
console.log('|---|---|---|---|---|---|');
for (const l of lanes) {
  if (!l.spec) continue;
  const j = await measure(withEngine(l.spec, 'jsonata'), l.bindings, l.events);
  const c = await measure(withEngine(l.spec, 'compiled'), l.bindings, l.events);
  const n = l.events.length;
  console.log(`| ${l.name} | ${j.toFixed(3)} | ${c.toFixed(3)} | ${((j / n) * 1000).toFixed(1)} | ${((c / n) * 1000).toFixed(1)} | ${(j / c).toFixed(1)}× |`);
}
