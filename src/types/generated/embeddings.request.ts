/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * One input as token ids (at most 8192, the models' context).
 *
 * @minItems 1
 * @maxItems 8192
 */
export type TokenIds = [number, ...number[]];

/**
 * POST /v1/embeddings (OpenAI's shape): one input or a batch, as text or as token ids. Counts are bounded as OpenAI bounds them (2048 inputs per request); the route's body limit bounds the total.
 */
export interface EmbeddingsRequest {
  /**
   * Embedding model name.
   */
  model: string;
  /**
   * Text to embed: a string, an array of strings, an array of token ids, or an array of token-id arrays. None may be empty.
   */
  input: string | [string, ...string[]] | TokenIds | [TokenIds, ...TokenIds[]];
  /**
   * `float` (arrays of numbers, default) or `base64` (little-endian float32 bytes).
   */
  encoding_format?: 'float' | 'base64';
  /**
   * Output dimensions, for models that can shorten their vectors.
   */
  dimensions?: number;
  /**
   * The end user's id, passed to the vendor for abuse monitoring.
   */
  user?: string;
}
