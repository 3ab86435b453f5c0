// Plays one Realtime response in OpenAI's GA event order: response.created, the output item (added to the response and
// the conversation), its content part, the deltas (audio with its transcript, or text, or a function call's arguments),
// the done events, conversation.item.done, response.output_item.done, response.done with usage. A cancel (client or
// turn detection) ends it with response.done `cancelled`; `close_after` drops the socket mid-answer with 1011.
import { sleep } from '../http.js';
import { pcmBytes } from '../audio/formats.js';
import type { Json } from './defaults.js';
import { eventId, itemId } from './events.js';
import { ASSISTANT_AUDIO_TOKENS_PER_SECOND, type Tokens, audioTokens } from './usage.js';

export interface ResponsePlan {
  id: string;
  conversationId: string | null;
  previousItemId: string | null;
  modality: 'audio' | 'text';
  call?: { name: string; callId: string; fragments: string[] };
  /** Content deltas wanted (`chunks=`), before max_output_tokens. */
  chunks: number;
  intervalMs: number;
  closeAfter?: number;
  maxOutputTokens: number | 'inf';
  audioOutput: Json;
  metadata: Json | null;
  /** Turns the output tokens into the response.done usage (input and cache are the session's business). */
  usageFor(output: Tokens): Json;
}

/** What the response left behind: the item to add to the conversation and the output's tokens. */
export interface ResponseOutcome {
  status: 'completed' | 'cancelled' | 'incomplete' | 'closed';
  item: Json;
  tokens: Tokens;
  usage?: Json;
}

export interface Wire {
  send(event: Json): void;
  closeSocket(code: number, reason: string): void;
}

const CHUNK_SECONDS = 0.1;
const TONE_CHUNK = pcmBytes(CHUNK_SECONDS).toString('base64'); // 100 ms of 440 Hz is 44 whole cycles: chunks join seamlessly

function responseObject(p: ResponsePlan, status: string, details: Json | null, output: Json[], usage: Json | null): Json {
  return {
    object: 'realtime.response', id: p.id, status, status_details: details, output, conversation_id: p.conversationId,
    output_modalities: [p.modality], max_output_tokens: p.maxOutputTokens, audio: { output: p.audioOutput }, usage, metadata: p.metadata,
  };
}

/** Audio costs a transcript word and 2 audio tokens per 100 ms delta; text one token a delta. */
function deltasAllowed(p: ResponsePlan): number {
  if (p.maxOutputTokens === 'inf') return p.chunks;
  const cost = p.modality === 'audio' ? 1 + audioTokens(CHUNK_SECONDS, ASSISTANT_AUDIO_TOKENS_PER_SECOND) : 1;
  return Math.min(p.chunks, Math.floor(p.maxOutputTokens / cost));
}

function outputAudio(format: Json): string {
  const type = (format?.format as Json)?.type;
  if (type === 'audio/pcmu') return Buffer.alloc(800, 0xff).toString('base64'); // G.711 μ-law silence, 8 kHz
  if (type === 'audio/pcma') return Buffer.alloc(800, 0xd5).toString('base64'); // G.711 A-law silence
  return TONE_CHUNK;
}

export async function playResponse(wire: Wire, p: ResponsePlan, signal: AbortSignal): Promise<ResponseOutcome> {
  wire.send({ type: 'response.created', event_id: eventId(), response: responseObject(p, 'in_progress', null, [], null) });
  return p.call ? playCall(wire, p, signal) : playMessage(wire, p, signal);
}

async function playMessage(wire: Wire, p: ResponsePlan, signal: AbortSignal): Promise<ResponseOutcome> {
  const id = itemId();
  const audio = p.modality === 'audio';
  const at = { response_id: p.id, item_id: id, output_index: 0, content_index: 0 };
  const shell = { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
  wire.send({ type: 'response.output_item.added', event_id: eventId(), response_id: p.id, output_index: 0, item: { ...shell, object: 'realtime.item' } });
  wire.send({ type: 'conversation.item.added', event_id: eventId(), previous_item_id: p.previousItemId, item: shell });
  wire.send({ type: 'response.content_part.added', event_id: eventId(), ...at, part: audio ? { type: 'audio', transcript: '' } : { type: 'text', text: '' } });
  const allowed = deltasAllowed(p);
  const pieces: string[] = [];
  for (let i = 0; i < allowed; i++) {
    if (i > 0 && !(await sleep(p.intervalMs, signal))) break;
    if (signal.aborted) break;
    const piece = `tok${i + 1} `;
    pieces.push(piece);
    if (audio) {
      wire.send({ type: 'response.output_audio.delta', event_id: eventId(), ...at, delta: outputAudio(p.audioOutput) });
      wire.send({ type: 'response.output_audio_transcript.delta', event_id: eventId(), ...at, delta: piece });
    } else wire.send({ type: 'response.output_text.delta', event_id: eventId(), ...at, delta: piece });
    if (pieces.length === p.closeAfter) {
      wire.closeSocket(1011, 'Internal server error');
      return { status: 'closed', item: shell, tokens: messageTokens(audio, pieces.length) };
    }
  }
  const text = pieces.join('');
  const part = audio ? { type: 'output_audio', transcript: text } : { type: 'output_text', text };
  const tokens = messageTokens(audio, pieces.length);
  if (signal.aborted) return finish(wire, p, { ...shell, status: 'incomplete', content: [part] }, tokens, 'cancelled', signal.reason);
  if (audio) {
    wire.send({ type: 'response.output_audio.done', event_id: eventId(), ...at });
    wire.send({ type: 'response.output_audio_transcript.done', event_id: eventId(), ...at, transcript: text });
  } else wire.send({ type: 'response.output_text.done', event_id: eventId(), ...at, text });
  wire.send({ type: 'response.content_part.done', event_id: eventId(), ...at, part: audio ? { type: 'audio', transcript: text } : { type: 'text', text } });
  const capped = allowed < p.chunks;
  return finish(wire, p, { ...shell, status: capped ? 'incomplete' : 'completed', content: [part] }, tokens, capped ? 'incomplete' : 'completed', 'max_output_tokens');
}

function messageTokens(audio: boolean, deltas: number): Tokens {
  return { text: deltas, audio: audio ? audioTokens(deltas * CHUNK_SECONDS, ASSISTANT_AUDIO_TOKENS_PER_SECOND) : 0 };
}

async function playCall(wire: Wire, p: ResponsePlan, signal: AbortSignal): Promise<ResponseOutcome> {
  const call = p.call!;
  const id = itemId();
  const shell = { id, type: 'function_call', status: 'in_progress', name: call.name, call_id: call.callId, arguments: '' };
  wire.send({ type: 'response.output_item.added', event_id: eventId(), response_id: p.id, output_index: 0, item: { ...shell, object: 'realtime.item' } });
  wire.send({ type: 'conversation.item.added', event_id: eventId(), previous_item_id: p.previousItemId, item: shell });
  const at = { response_id: p.id, item_id: id, output_index: 0, call_id: call.callId };
  for (const [i, delta] of call.fragments.entries()) {
    if (i > 0 && !(await sleep(p.intervalMs, signal))) break;
    wire.send({ type: 'response.function_call_arguments.delta', event_id: eventId(), ...at, delta });
  }
  const args = call.fragments.join('');
  const tokens = { text: call.fragments.length, audio: 0 };
  if (signal.aborted) return finish(wire, p, { ...shell, status: 'incomplete', arguments: args }, tokens, 'cancelled', signal.reason);
  wire.send({ type: 'response.function_call_arguments.done', event_id: eventId(), ...at, name: call.name, arguments: args });
  return finish(wire, p, { ...shell, status: 'completed', arguments: args }, tokens, 'completed');
}

/** conversation.item.done, response.output_item.done (OpenAI sends them in that order), then response.done. */
function finish(wire: Wire, p: ResponsePlan, item: Json, tokens: Tokens, status: 'completed' | 'cancelled' | 'incomplete', reason?: unknown): ResponseOutcome {
  const usage = p.usageFor(tokens);
  const details = status === 'completed' ? null : { type: status, reason: String(reason ?? (status === 'cancelled' ? 'client_cancelled' : 'max_output_tokens')) };
  if (status !== 'cancelled') {
    wire.send({ type: 'conversation.item.done', event_id: eventId(), previous_item_id: p.previousItemId, item });
    wire.send({ type: 'response.output_item.done', event_id: eventId(), response_id: p.id, output_index: 0, item: { ...item, object: 'realtime.item' } });
  }
  wire.send({ type: 'response.done', event_id: eventId(), response: responseObject(p, status, details, [item], usage) });
  return { status, item, tokens, usage };
}
