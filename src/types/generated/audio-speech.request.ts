/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/audio/speech: text to speech, in OpenAI's shape. The answer is the audio's bytes as they are made, or (`stream_format: sse`) `speech.audio.delta` events and a closing `speech.audio.done` with the usage.
 */
export interface AudioSpeechRequest {
  /**
   * A speech model (tts-1, tts-1-hd, gpt-4o-mini-tts, a Gemini TTS model…).
   */
  model: string;
  /**
   * The text to speak.
   */
  input: string;
  /**
   * A voice of the model's vendor (OpenAI: alloy, ash, ballad, coral, echo, fable, onyx, nova, sage, shimmer, verse, marin, cedar; Gemini: Kore, Puck, …), or a custom voice `{id}`.
   */
  voice:
    | string
    | {
        id: string;
      };
  /**
   * How to speak (not for tts-1 or tts-1-hd).
   */
  instructions?: string;
  /**
   * The audio's format; a model whose vendor gives one format (Gemini: pcm, or wav) takes only that.
   */
  response_format?: 'mp3' | 'opus' | 'aac' | 'flac' | 'wav' | 'pcm';
  speed?: number;
  /**
   * `audio` (the bytes, the default) or `sse` (events with base64 chunks and the usage; not for tts-1 or tts-1-hd).
   */
  stream_format?: 'audio' | 'sse';
}
