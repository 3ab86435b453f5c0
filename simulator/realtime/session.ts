// One open Realtime WebSocket: the session object, the input audio buffer with simulated server VAD, the conversation,
// and the response in progress. Client events are dispatched by type; every event in and out is counted in the
// session's record for the control plane.
import type { WebSocket } from 'ws';
import { parseDirectives } from '../directives.js';
import { familyOf } from '../audio/stt-models.js';
import { defaultText, sttUsage } from '../audio/transcript.js';
import { type Json, inputBytesPerSecond } from './defaults.js';
import { Conversation, itemProblem, itemTokens } from './conversation.js';
import { BINARY_FRAME, CLIENT_EVENTS, INVALID_JSON, MISSING_TYPE, type RealtimeError, errorEvent, eventId, itemId, missingParam, unknownType } from './events.js';
import { createResponse } from './respond.js';
import { mergeSession } from './session-update.js';
import { type RealtimeSessionRecord, type RealtimeStore, zeroUsage } from './store.js';
import { type CacheState, USER_AUDIO_TOKENS_PER_SECOND, audioTokens } from './usage.js';
import { Vad } from './vad.js';

export interface SessionInit {
  ws: WebSocket;
  store: RealtimeStore;
  session: Json;
  key: string;
  keyKind: RealtimeSessionRecord['keyKind'];
}

const MIN_COMMIT_MS = 100;

export class RealtimeSession {
  readonly record: RealtimeSessionRecord;
  session: Json;
  readonly conversation = new Conversation();
  active: { id: string; controller: AbortController } | undefined;
  cache: CacheState | undefined;
  #bufferBytes = 0;
  #clockMs = 0;
  #expiry: NodeJS.Timeout | undefined;
  /** The close frame this side sent first, recorded when the client never answers it (the close event then says 1006). */
  #sentClose: { code: number; reason: string } | undefined;
  readonly #ws: WebSocket;
  readonly #store: RealtimeStore;
  readonly #vad = new Vad({ started: (id, ms) => this.#speechStarted(id, ms), stopped: (id, ms) => this.#speechStopped(id, ms) }, itemId);

  constructor(init: SessionInit) {
    this.#ws = init.ws;
    this.#store = init.store;
    this.session = init.session;
    this.record = {
      id: String(init.session.id), model: String(init.session.model), open: true, key: init.key, keyKind: init.keyKind, clientEvents: {}, serverEvents: {},
      usage: zeroUsage(), responseUsages: [], inputAudioSeconds: 0, openedAt: Date.now(), closedAt: null, closeCode: null, closeReason: null, closedBy: null,
    };
    init.store.records.push(this.record);
    init.store.live.add(this);
    this.#ws.on('message', (data, binary) => this.#received(data as Buffer, binary));
    this.#ws.on('close', (code, reason) => this.#closed(code, reason.toString()));
    // A message above maxPayload makes `ws` itself close the socket with 1009: the server closed it, not the client.
    this.#ws.on('error', (err: Error & { code?: string }) => {
      if (err.code !== 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return;
      this.record.closedBy ??= 'server';
      this.#sentClose ??= { code: 1009, reason: '' };
    });
  }

  start(): void {
    this.send({ type: 'session.created', event_id: eventId(), session: this.session });
    const ms = this.#store.limits.maxSessionMs;
    this.#expiry = setTimeout(() => this.#expire(ms), ms);
  }

  send(event: Json): void {
    if (this.#ws.readyState !== this.#ws.OPEN) return;
    const type = String(event.type);
    this.record.serverEvents[type] = (this.record.serverEvents[type] ?? 0) + 1;
    this.#ws.send(JSON.stringify(event));
  }

  error(e: RealtimeError, clientEventId: string | null = null): void {
    this.send(errorEvent(e, clientEventId));
  }

  closeSocket(code: number, reason: string): void {
    this.record.closedBy ??= 'server';
    if (this.#ws.readyState === this.#ws.OPEN || this.#ws.readyState === this.#ws.CONNECTING) {
      this.#sentClose ??= { code, reason };
      this.#ws.close(code, reason);
    }
  }

  /** Ends the socket for the simulator's close(): a close frame, then the TCP connection if the client dawdles. */
  shutdown(code: number, reason: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.#ws.readyState === this.#ws.CLOSED) return resolve();
      const timer = setTimeout(() => this.#ws.terminate(), 100);
      this.#ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.closeSocket(code, reason);
    });
  }

  #closed(code: number, reason: string): void {
    clearTimeout(this.#expiry);
    this.#vad.reset();
    this.active?.controller.abort('client_cancelled');
    const sent = code === 1006 && this.record.closedBy === 'server' ? this.#sentClose : undefined;
    Object.assign(this.record, {
      open: false, closedAt: Date.now(), closeCode: sent?.code ?? code, closeReason: (sent ? sent.reason : reason) || null, closedBy: this.record.closedBy ?? 'client',
    });
    this.#store.live.delete(this);
  }

  #expire(ms: number): void {
    const span = ms % 60000 === 0 ? `${ms / 60000} minutes` : `${ms / 1000} seconds`;
    const message = `Your session hit the maximum duration of ${span}.`;
    this.error({ code: 'session_expired', message });
    this.closeSocket(1001, message);
  }

  #count(type: string): void {
    this.record.clientEvents[type] = (this.record.clientEvents[type] ?? 0) + 1;
  }

  #received(data: Buffer, binary: boolean): void {
    if (binary) return (this.#count('(binary)'), this.error(BINARY_FRAME));
    let event: unknown;
    try {
      event = JSON.parse(data.toString('utf8'));
    } catch {
      return (this.#count('(invalid_json)'), this.error(INVALID_JSON));
    }
    const e = (typeof event === 'object' && event !== null ? event : {}) as Json;
    const clientId = typeof e.event_id === 'string' ? e.event_id : null;
    if (typeof e.type !== 'string') return (this.#count('(missing_type)'), this.error(MISSING_TYPE, clientId));
    this.#count(e.type);
    if (!CLIENT_EVENTS.includes(e.type)) return this.error(unknownType(e.type), clientId);
    this.#dispatch(e, clientId);
  }

  #dispatch(e: Json, clientId: string | null): void {
    switch (e.type) {
      case 'session.update': return this.#update(e.session, clientId);
      case 'input_audio_buffer.append': return this.#append(e.audio, clientId);
      case 'input_audio_buffer.commit': return void this.#commit(clientId);
      case 'input_audio_buffer.clear': return this.#clear();
      case 'conversation.item.create': return this.#createItem(e, clientId);
      case 'conversation.item.delete': return this.#deleteItem(e.item_id, clientId);
      case 'conversation.item.retrieve': return this.#retrieveItem(e.item_id, clientId);
      case 'conversation.item.truncate': return this.#truncateItem(e, clientId);
      case 'response.create': return void createResponse(this, (e.response ?? {}) as Json, clientId);
      case 'response.cancel': return this.#cancel(clientId);
      default: return this.error({ code: 'invalid_value', param: 'type', message: `'${String(e.type)}' is only supported on translation sessions.` }, clientId);
    }
  }

  #update(update: unknown, clientId: string | null): void {
    const next = mergeSession(this.session, update);
    if ('code' in next && 'message' in next) return this.error(next as RealtimeError, clientId);
    this.session = next as Json;
    this.send({ type: 'session.updated', event_id: eventId(), session: this.session });
  }

  #turnDetection(): Json | null {
    return (((this.session.audio as Json).input as Json).turn_detection as Json | null) ?? null;
  }

  #append(audio: unknown, clientId: string | null): void {
    if (typeof audio !== 'string') return this.error(missingParam('audio'), clientId);
    const bytes = Buffer.from(audio, 'base64').length;
    const before = this.#clockMs;
    this.#bufferBytes += bytes;
    this.#clockMs += (bytes / inputBytesPerSecond(this.session)) * 1000;
    this.#vad.heard(this.#turnDetection(), before, this.#clockMs);
  }

  #speechStarted(id: string, ms: number): void {
    this.send({ type: 'input_audio_buffer.speech_started', event_id: eventId(), audio_start_ms: ms, item_id: id });
    if (this.active && this.#turnDetection()?.interrupt_response !== false) this.active.controller.abort('turn_detected');
  }

  #speechStopped(id: string, ms: number): void {
    this.send({ type: 'input_audio_buffer.speech_stopped', event_id: eventId(), audio_end_ms: ms, item_id: id });
    if (!this.#commit(null, id)) return;
    if (this.#turnDetection()?.create_response !== false) void createResponse(this, {}, null);
  }

  /** The buffer becomes a user message with input_audio (at least 100 ms, as OpenAI requires). */
  #commit(clientId: string | null, vadItem?: string): boolean {
    const seconds = this.#bufferBytes / inputBytesPerSecond(this.session);
    if (seconds * 1000 < MIN_COMMIT_MS) {
      this.error({ code: 'input_audio_buffer_commit_empty', message: `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${(seconds * 1000).toFixed(2)}ms of audio.` }, clientId);
      return false;
    }
    const id = vadItem ?? this.#vad.pendingItem() ?? itemId();
    this.#vad.reset();
    this.#bufferBytes = 0;
    this.record.inputAudioSeconds += seconds;
    const item = { id, type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_audio', transcript: null }] };
    const previous = this.conversation.add(item, { text: 0, audio: audioTokens(seconds, USER_AUDIO_TOKENS_PER_SECOND) });
    this.send({ type: 'input_audio_buffer.committed', event_id: eventId(), previous_item_id: previous, item_id: id });
    this.send({ type: 'conversation.item.added', event_id: eventId(), previous_item_id: previous, item });
    this.send({ type: 'conversation.item.done', event_id: eventId(), previous_item_id: previous, item });
    this.#transcribe(id, seconds);
    return true;
  }

  /** With audio.input.transcription set, the committed audio is transcribed (billed separately, usage on completed). */
  #transcribe(id: string, seconds: number): void {
    const t = ((this.session.audio as Json).input as Json).transcription as Json | null;
    if (!t || typeof t.model !== 'string') return;
    const text = defaultText(seconds, false);
    this.send({ type: 'conversation.item.input_audio_transcription.delta', event_id: eventId(), item_id: id, content_index: 0, delta: text });
    this.send({
      type: 'conversation.item.input_audio_transcription.completed', event_id: eventId(), item_id: id, content_index: 0, transcript: text,
      usage: sttUsage(familyOf(t.model), { text, seconds, language: 'english' }, typeof t.prompt === 'string' ? t.prompt : undefined),
    });
  }

  #clear(): void {
    this.#bufferBytes = 0;
    this.#vad.reset();
    this.send({ type: 'input_audio_buffer.cleared', event_id: eventId() });
  }

  #createItem(e: Json, clientId: string | null): void {
    const problem = itemProblem(e.item);
    if (problem) return this.error({ code: 'invalid_value', ...problem }, clientId);
    const item = { id: itemId(), ...(e.item as Json), status: 'completed' };
    const previous = this.conversation.add(item, itemTokens(item, inputBytesPerSecond(this.session)));
    this.send({ type: 'conversation.item.added', event_id: eventId(), previous_item_id: previous, item });
    this.send({ type: 'conversation.item.done', event_id: eventId(), previous_item_id: previous, item });
  }

  #deleteItem(id: unknown, clientId: string | null): void {
    if (!this.conversation.remove(id)) return this.error(noItem(id, 'deleting'), clientId);
    this.send({ type: 'conversation.item.deleted', event_id: eventId(), item_id: id });
  }

  #retrieveItem(id: unknown, clientId: string | null): void {
    const entry = this.conversation.find(id);
    if (!entry) return this.error(noItem(id, 'retrieving'), clientId);
    this.send({ type: 'conversation.item.retrieved', event_id: eventId(), item: entry.item });
  }

  #truncateItem(e: Json, clientId: string | null): void {
    if (!this.conversation.find(e.item_id)) return this.error(noItem(e.item_id, 'truncating'), clientId);
    this.send({ type: 'conversation.item.truncated', event_id: eventId(), item_id: e.item_id, content_index: e.content_index ?? 0, audio_end_ms: e.audio_end_ms ?? 0 });
  }

  #cancel(clientId: string | null): void {
    if (!this.active) return this.error({ code: 'response_cancel_not_active', message: 'Cancellation failed: no active response found.' }, clientId);
    this.active.controller.abort('client_cancelled');
  }

  /** Directives for the next response: the instructions', overridden by the last user text's. */
  directives(instructions: string): Record<string, string> {
    return { ...parseDirectives(instructions), ...parseDirectives(this.conversation.lastUserText()) };
  }
}

function noItem(id: unknown, doing: string): RealtimeError {
  return { code: 'item_not_found', param: 'item_id', message: `Error ${doing} item: the item with id '${String(id)}' does not exist.` };
}
