// Server event envelopes and the error events of OpenAI's Realtime API: `{type:"error", event_id, error:{type, code,
// message, param, event_id}}`, where error.event_id names the client event at fault (null when none).
import { randomId } from '../http.js';
import type { Json } from './defaults.js';

export const eventId = (): string => randomId('event_', 21);
export const itemId = (): string => randomId('item_', 21);

export interface RealtimeError {
  type?: string;
  code: string | null;
  message: string;
  param?: string | null;
}

export function errorEvent(e: RealtimeError, clientEventId: string | null = null): Json {
  return { type: 'error', event_id: eventId(), error: { type: e.type ?? 'invalid_request_error', code: e.code, message: e.message, param: e.param ?? null, event_id: clientEventId } };
}

/** The client event types the GA API accepts on a realtime socket, in the order its error message lists them. */
export const CLIENT_EVENTS = [
  'session.update', 'session.close', 'input_audio_buffer.append', 'session.input_audio_buffer.append', 'input_audio_buffer.commit',
  'input_audio_buffer.clear', 'conversation.item.create', 'conversation.item.truncate', 'conversation.item.delete',
  'conversation.item.retrieve', 'response.create', 'response.cancel',
];

export function unknownType(value: unknown): RealtimeError {
  const list = CLIENT_EVENTS.map((t) => `'${t}'`);
  return { code: 'invalid_value', param: 'type', message: `Invalid value: '${String(value)}'. Supported values are: ${list.slice(0, -1).join(', ')}, and ${list.at(-1)}.` };
}

export const INVALID_JSON: RealtimeError = { code: 'invalid_json', message: 'Invalid event: failed to parse JSON value.' };
export const MISSING_TYPE: RealtimeError = { code: 'invalid_event', message: "The 'type' field is missing." };
export const BINARY_FRAME: RealtimeError = { code: 'invalid_event', message: 'Expected a text WebSocket message; binary frames are not supported.' };

export const invalidValue = (param: string, message: string): RealtimeError => ({ code: 'invalid_value', param, message });
export const missingParam = (param: string): RealtimeError => ({ code: 'missing_required_parameter', param, message: `Missing required parameter: '${param}'.` });
