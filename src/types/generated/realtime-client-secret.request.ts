/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/realtime/client_secrets, in OpenAI's shape: a short-lived secret (`ek_…`) of the caller's key for a browser to open a Realtime session with (the subprotocol `openai-insecure-api-key.<secret>`), for the session's model only and with its settings.
 */
export interface RealtimeClientSecretRequest {
  expires_after?: {
    anchor?: 'created_at';
    /**
     * 10 to 7200 (default 600).
     */
    seconds?: number;
  };
  /**
   * The session's settings, applied as the first update of every session the secret opens; `model` pins the model.
   */
  session?: {
    type?: 'realtime' | 'transcription';
    model?: string;
  };
}
