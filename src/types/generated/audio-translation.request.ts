/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/audio/translations (multipart/form-data), in OpenAI's shape: an audio file (at most 25 MiB) translated into English text. The answer is the vendor's: JSON, text, srt or vtt.
 */
export interface AudioTranslationRequest {
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
  prompt?: string;
  response_format?: 'json' | 'text' | 'srt' | 'verbose_json' | 'vtt';
  temperature?: string | number;
}
