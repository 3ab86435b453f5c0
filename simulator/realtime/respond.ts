// response.create (or server VAD's automatic one): the directives, the tool call decision, the input tokens, then the
// response played (response.ts) and what it leaves: its item in the conversation, its context in cache, its usage in
// the session record, and rate_limits.updated after response.done, as OpenAI sends it.
import { intDirective, toolArgFragments } from '../directives.js';
import { randomId } from '../http.js';
import { usageDirective } from '../usage-directive.js';
import type { Json } from './defaults.js';
import { eventId } from './events.js';
import { type ResponsePlan, playResponse } from './response.js';
import type { RealtimeSession } from './session.js';
import { addUsage } from './store.js';
import { type Tokens, responseUsage, sum, words } from './usage.js';
import { itemTokens } from './conversation.js';

const TOKEN_LIMIT = 15_000_000;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function createResponse(s: RealtimeSession, params: Json, clientId: string | null): Promise<void> {
  if (s.active) {
    return s.error({ code: 'conversation_already_has_active_response', message: `Conversation already has an active response in progress: ${s.active.id}. Wait until the response is finished before creating a new one.` }, clientId);
  }
  const modalities = params.output_modalities ?? s.session.output_modalities;
  if (!Array.isArray(modalities) || modalities.length !== 1 || !['audio', 'text'].includes(modalities[0])) {
    return s.error({ code: 'invalid_value', param: 'response.output_modalities', message: `Invalid value: ${JSON.stringify(modalities)}. Supported values are: ["audio"] and ["text"].` }, clientId);
  }
  const instructions = String(params.instructions ?? s.session.instructions ?? '');
  const d = s.directives(instructions);
  if (d.error) return s.error({ type: d.error === 'server_error' ? 'server_error' : 'invalid_request_error', code: d.error, message: `Simulated error (${d.error}).` }, clientId);
  const outOfBand = params.conversation === 'none';
  const context: Tokens = Array.isArray(params.input) ? sum(params.input.filter(isObject).map((i) => itemTokens(i, 48000))) : s.conversation.tokens();
  const input = { text: words(instructions) + context.text, audio: context.audio };
  const id = randomId('resp_', 21);
  const plan: ResponsePlan = {
    id, conversationId: outOfBand ? null : s.conversation.id, previousItemId: outOfBand ? null : s.conversation.lastId(),
    modality: modalities[0], call: chosenCall(s, params, d), chunks: intDirective(d, 'chunks', 5), intervalMs: intDirective(d, 'interval_ms', 10),
    closeAfter: intDirective(d, 'close_after'), maxOutputTokens: (params.max_output_tokens ?? s.session.max_output_tokens ?? 'inf') as number | 'inf',
    audioOutput: audioOutput(s, params), metadata: isObject(params.metadata) ? params.metadata : null,
    usageFor: (output) => responseUsage(input, output, s.cache, instructions, usageDirective(d)),
  };
  const controller = new AbortController();
  s.active = { id, controller };
  const outcome = await playResponse(s, plan, controller.signal);
  s.active = undefined;
  if (outcome.status === 'closed' || !outcome.usage) return;
  if (!outOfBand) s.conversation.add(outcome.item, outcome.tokens);
  s.cache = { instructions, context: { text: input.text + outcome.tokens.text, audio: input.audio + outcome.tokens.audio } };
  addUsage(s.record.usage, outcome.usage);
  s.record.responseUsages.push(outcome.usage);
  s.send({ type: 'rate_limits.updated', event_id: eventId(), rate_limits: [{ name: 'tokens', limit: TOKEN_LIMIT, remaining: Math.max(0, TOKEN_LIMIT - s.record.usage.total_tokens), reset_seconds: 0.001 }] });
}

/** `[sim tool_call=NAME]` calls NAME when it is a declared function, tool_choice allows it, and the turn has no answer yet. */
function chosenCall(s: RealtimeSession, params: Json, d: Record<string, string>): ResponsePlan['call'] {
  const tools = (Array.isArray(params.tools) ? params.tools : s.session.tools) as unknown[];
  const choice = params.tool_choice ?? s.session.tool_choice;
  const name = d.tool_call;
  if (!name || choice === 'none' || s.conversation.answeredSinceLastUser()) return undefined;
  if (!tools.some((t) => isObject(t) && t.name === name && (t.type ?? 'function') === 'function')) return undefined;
  return { name, callId: randomId('call_', 16), fragments: toolArgFragments(d) };
}

function audioOutput(s: RealtimeSession, params: Json): Json {
  const session = (s.session.audio as Json).output as Json;
  const asked = isObject(params.audio) && isObject(params.audio.output) ? params.audio.output : {};
  return { format: asked.format ?? session.format, voice: asked.voice ?? session.voice };
}
