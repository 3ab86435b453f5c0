// The server-side conversation of a Realtime session: items in order, each with the tokens it costs when it is input to
// a response (user audio 10 a second, assistant audio 20 a second, text in words), plus the questions the response
// planner asks of it (the last user text, whether the current turn already has a function_call_output).
import type { Json } from './defaults.js';
import { itemId } from './events.js';
import { ASSISTANT_AUDIO_TOKENS_PER_SECOND, type Tokens, USER_AUDIO_TOKENS_PER_SECOND, audioTokens, sum, words } from './usage.js';

export interface Entry {
  item: Json;
  tokens: Tokens;
}

const ITEM_TYPES = ['message', 'function_call', 'function_call_output'];
const ROLES = ['user', 'assistant', 'system'];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export class Conversation {
  readonly id = itemId().replace('item_', 'conv_');
  entries: Entry[] = [];

  lastId(): string | null {
    return (this.entries.at(-1)?.item.id as string | undefined) ?? null;
  }

  /** Appends and answers the previous item's id (null for the first), as conversation.item.added reports it. */
  add(item: Json, tokens: Tokens): string | null {
    const previous = this.lastId();
    this.entries.push({ item, tokens });
    return previous;
  }

  find(id: unknown): Entry | undefined {
    return this.entries.find((e) => e.item.id === id);
  }

  remove(id: unknown): boolean {
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.item.id !== id);
    return this.entries.length < before;
  }

  tokens(): Tokens {
    return sum(this.entries.map((e) => e.tokens));
  }

  /** Text of the latest user message that has any (an audio turn has none, so an earlier text's directives hold). */
  lastUserText(): string {
    for (const { item } of [...this.entries].reverse()) {
      if (item.role !== 'user' || !Array.isArray(item.content)) continue;
      const text = item.content.filter((c) => isObject(c) && typeof c.text === 'string').map((c) => (c as Json).text).join(' ');
      if (text) return text;
    }
    return '';
  }

  /** True once a function_call_output follows the last user message: the call was answered, the model now speaks. */
  answeredSinceLastUser(): boolean {
    for (const { item } of [...this.entries].reverse()) {
      if (item.type === 'function_call_output') return true;
      if (item.type === 'message' && item.role === 'user') return false;
    }
    return false;
  }
}

/** Checks a conversation.item.create item; undefined when valid, else the problem's param and message. */
export function itemProblem(item: unknown): { param: string; message: string } | undefined {
  if (!isObject(item)) return { param: 'item', message: "Missing required parameter: 'item'." };
  if (!ITEM_TYPES.includes(String(item.type))) {
    return { param: 'item.type', message: `Invalid value: '${String(item.type)}'. Supported values are: ${ITEM_TYPES.map((t) => `'${t}'`).join(', ')}.` };
  }
  if (item.type === 'message' && !ROLES.includes(String(item.role))) return { param: 'item.role', message: `Invalid value: '${String(item.role)}'. Supported values are: 'user', 'assistant', and 'system'.` };
  if (item.type === 'message' && !Array.isArray(item.content)) return { param: 'item.content', message: "Missing required parameter: 'item.content'." };
  if (item.type === 'function_call_output' && typeof item.call_id !== 'string') return { param: 'item.call_id', message: "Missing required parameter: 'item.call_id'." };
  if (item.type === 'function_call_output' && typeof item.output !== 'string') return { param: 'item.output', message: "Missing required parameter: 'item.output'." };
  return undefined;
}

/** The tokens a client-made item costs as input: text in words, input audio by its length in the session's format. */
export function itemTokens(item: Json, bytesPerSecond: number): Tokens {
  if (item.type === 'function_call_output') return { text: words(item.output), audio: 0 };
  if (item.type === 'function_call') return { text: words(item.arguments) + 1, audio: 0 };
  const rate = item.role === 'assistant' ? ASSISTANT_AUDIO_TOKENS_PER_SECOND : USER_AUDIO_TOKENS_PER_SECOND;
  return sum((item.content as Json[]).map((c) => ({
    text: words(c.text) + words(c.transcript),
    audio: typeof c.audio === 'string' ? audioTokens(Buffer.from(c.audio, 'base64').length / bytesPerSecond, rate) : 0,
  })));
}
