// Server-side voice activity detection, simulated: the first append after silence is speech starting, and appends
// stopping for the turn detection's silence_duration_ms (semantic_vad: 500 ms) is speech stopping. Times are
// milliseconds of audio written to the buffer during the session, as OpenAI reports audio_start_ms / audio_end_ms.
import type { Json } from './defaults.js';

const SEMANTIC_SILENCE_MS = 500;

export interface VadEvents {
  started(itemId: string, audioStartMs: number): void;
  stopped(itemId: string, audioEndMs: number): void;
}

export class Vad {
  #speaking: string | null = null;
  #timer: NodeJS.Timeout | undefined;
  #endMs = 0;

  constructor(private readonly on: VadEvents, private readonly newItemId: () => string) {}

  /** Called for every append: `beforeMs`/`afterMs` are the session's audio clock around it. */
  heard(turnDetection: Json | null, beforeMs: number, afterMs: number): void {
    if (!turnDetection) return;
    this.#endMs = afterMs;
    if (!this.#speaking) {
      this.#speaking = this.newItemId();
      this.on.started(this.#speaking, Math.round(beforeMs));
    }
    clearTimeout(this.#timer);
    const silence = turnDetection.type === 'semantic_vad' ? SEMANTIC_SILENCE_MS : Number(turnDetection.silence_duration_ms ?? 200);
    this.#timer = setTimeout(() => this.#stop(), silence);
  }

  /** The item id the committed speech gets (the one speech_started announced). */
  pendingItem(): string | null {
    return this.#speaking;
  }

  reset(): void {
    clearTimeout(this.#timer);
    this.#speaking = null;
  }

  #stop(): void {
    const id = this.#speaking;
    this.#speaking = null;
    if (id) this.on.stopped(id, Math.round(this.#endMs));
  }
}
