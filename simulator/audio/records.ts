// What the audio endpoints received, per simulator instance, so gateway tests can check that an upload arrived whole
// and which model and format the vendor was asked for.
import type { Control } from '../control.js';

export interface AudioRequestRecord {
  /** `gemini-tts` is Gemini's generateContent on a TTS model. */
  endpoint: 'speech' | 'transcriptions' | 'translations' | 'gemini-tts';
  model: string | null;
  /** The response_format asked for (speech: mp3 … pcm; transcriptions: json … diarized_json). */
  responseFormat: string | null;
  /** `stream_format: "sse"` (speech) or `stream=true` (transcriptions). */
  stream: boolean;
  /** Seconds of audio produced (speech) or read from the upload (transcriptions). */
  seconds: number | null;
  fileName: string | null;
  fileBytes: number | null;
  /** The container sniffed from the upload's bytes (wav, mp3, flac, ogg, mp4, webm), null when unrecognised. */
  container: string | null;
  at: number;
}

const logs = new WeakMap<Control, AudioRequestRecord[]>();

export function audioLogOf(control: Control): AudioRequestRecord[] {
  let log = logs.get(control);
  if (!log) logs.set(control, (log = []));
  return log;
}

export function recordAudio(control: Control, r: Omit<AudioRequestRecord, 'at'>): void {
  const log = audioLogOf(control);
  log.push({ ...r, at: Date.now() });
  if (log.length > 200) log.splice(0, log.length - 200);
}
