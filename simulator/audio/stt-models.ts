// Which transcription model accepts what, as OpenAI's API reference states it: whisper-1 (every format but diarized_json,
// no streaming, billed by the second, the only translation model); the gpt-4o transcribe models (json and text, stream,
// logprobs with json, billed in tokens); gpt-4o-transcribe-diarize (json, text, diarized_json, stream; no prompt,
// logprobs or timestamp granularities; chunking_strategy above 30 s).

export type SttFamily = 'whisper' | 'tokens' | 'diarize';

export const ALL_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json'];
export const TRANSLATION_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt'];

/** By name, so dated snapshots (gpt-4o-mini-transcribe-2025-12-15) and new names follow their family. */
export function familyOf(model: string): SttFamily {
  if (model.includes('diarize')) return 'diarize';
  if (model.includes('transcribe')) return 'tokens';
  return 'whisper';
}

export function formatsOf(family: SttFamily): string[] {
  if (family === 'whisper') return TRANSLATION_FORMATS;
  return family === 'diarize' ? ['json', 'text', 'diarized_json'] : ['json', 'text'];
}

/** The gpt-4o models' input audio: 1 token per 100 ms (measured: 1.7 s → 17 audio tokens; 6.4 s → 64). */
export const STT_AUDIO_TOKENS_PER_SECOND = 10;
/** Files above 25 MB are refused by OpenAI's front end before any model sees them. */
export const MAX_UPLOAD_BYTES = 26214400;
export const UPLOAD_EXTENSIONS = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];
export const DIARIZE_CHUNKING_ABOVE_SECONDS = 30;
export const MIN_SECONDS = 0.1;
