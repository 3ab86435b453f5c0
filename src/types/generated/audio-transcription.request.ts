/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/audio/transcriptions (multipart/form-data), in OpenAI's shape: an audio file (flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav or webm; at most 25 MiB) and its model. Fields arrive as text, as a form sends them. The answer is the vendor's: JSON, text, srt, vtt, or (`stream=true`) `transcript.text.delta` events and a closing `transcript.text.done` with the usage.
 */
export interface AudioTranscriptionRequest {
  /**
   * The audio, uploaded as a file part.
   */
  file: {
    /**
     * At most 25 MiB, the vendor's limit.
     */
    size: number;
  };
  model: string;
  language?: string;
  prompt?: string;
  response_format?: 'json' | 'text' | 'srt' | 'verbose_json' | 'vtt' | 'diarized_json';
  temperature?: string | number;
  stream?: 'true' | 'false' | true | false;
  timestamp_granularities?: ('word' | 'segment')[];
  include?: 'logprobs'[];
  chunking_strategy?: string;
  /**
   * @maxItems 4
   */
  known_speaker_names?: string[];
  /**
   * @maxItems 4
   */
  known_speaker_references?: string[];
}
