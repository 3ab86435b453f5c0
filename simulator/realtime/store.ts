// Per-simulator Realtime state: a record per session (kept after it closes, for the control plane), the sockets still
// open (so close() can end them), the ephemeral client secrets minted, and the limits tests may shrink.
import type { Control } from '../control.js';
import type { Json } from './defaults.js';

export interface RealtimeLimits {
  /** OpenAI ends a session after 60 minutes; tests pass something small. */
  maxSessionMs: number;
  /** Largest client message accepted; a bigger one closes the socket with 1009 (15 MiB, OpenAI's stated limit). */
  maxMessageBytes: number;
}

export const DEFAULT_LIMITS: RealtimeLimits = { maxSessionMs: 60 * 60 * 1000, maxMessageBytes: 15 * 1024 * 1024 };

export interface UsageTotals {
  responses: number;
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  input_text_tokens: number;
  input_audio_tokens: number;
  output_text_tokens: number;
  output_audio_tokens: number;
}

export interface RealtimeSessionRecord {
  id: string;
  model: string;
  open: boolean;
  /** The credential the socket was opened with: an API key or an `ek_…` client secret. */
  key: string;
  keyKind: 'api_key' | 'client_secret' | 'none';
  /** Client events received, by type (`(invalid_json)`, `(binary)` for frames that are not events). */
  clientEvents: Record<string, number>;
  /** Server events sent, by type. */
  serverEvents: Record<string, number>;
  usage: UsageTotals;
  /** Each response.done's usage, in order. */
  responseUsages: Json[];
  inputAudioSeconds: number;
  openedAt: number;
  closedAt: number | null;
  closeCode: number | null;
  closeReason: string | null;
  /** Who closed the socket first. */
  closedBy: 'client' | 'server' | null;
}

export interface ClientSecret {
  value: string;
  expiresAt: number;
  session: Json;
}

export interface RealtimeStore {
  records: RealtimeSessionRecord[];
  live: Set<{ shutdown(code: number, reason: string): Promise<void> }>;
  secrets: Map<string, ClientSecret>;
  limits: RealtimeLimits;
}

const stores = new WeakMap<Control, RealtimeStore>();

export function realtimeStoreOf(control: Control): RealtimeStore {
  let s = stores.get(control);
  if (!s) stores.set(control, (s = { records: [], live: new Set(), secrets: new Map(), limits: { ...DEFAULT_LIMITS } }));
  return s;
}

export function zeroUsage(): UsageTotals {
  return { responses: 0, total_tokens: 0, input_tokens: 0, output_tokens: 0, cached_tokens: 0, input_text_tokens: 0, input_audio_tokens: 0, output_text_tokens: 0, output_audio_tokens: 0 };
}

/** Adds one response.done usage (OpenAI's shape) to a session's totals. */
export function addUsage(t: UsageTotals, u: Json): void {
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  const inD = (u.input_token_details ?? {}) as Json;
  const outD = (u.output_token_details ?? {}) as Json;
  t.responses++;
  t.total_tokens += n(u.total_tokens);
  t.input_tokens += n(u.input_tokens);
  t.output_tokens += n(u.output_tokens);
  t.cached_tokens += n(inD.cached_tokens);
  t.input_text_tokens += n(inD.text_tokens);
  t.input_audio_tokens += n(inD.audio_tokens);
  t.output_text_tokens += n(outD.text_tokens);
  t.output_audio_tokens += n(outD.audio_tokens);
}
