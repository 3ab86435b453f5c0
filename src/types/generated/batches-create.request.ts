/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/batches, in OpenAI's shape: run the requests of an uploaded batch input file on the vendor's Batch API.
 */
export interface BatchesCreateRequest {
  /**
   * One of the caller's files of purpose `batch`.
   */
  input_file_id: string;
  /**
   * The endpoint every line calls (each line's `url`).
   */
  endpoint: '/v1/chat/completions' | '/v1/embeddings' | '/v1/responses';
  /**
   * The time the vendor has to run the batch: only `24h`.
   */
  completion_window: '24h';
  /**
   * Up to 16 string pairs kept with the batch (keys up to 64 characters, values up to 512).
   */
  metadata?: {
    [k: string]: string;
  } | null;
}
