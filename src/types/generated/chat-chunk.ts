/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * One event a chat `chunk` transform makes of a vendor stream event (src/policies/chat-events.ts): an OpenAI chat.completion.chunk, or an error event. The transform may also return an array of them (several events) or nothing (the event is dropped). The engine reads `usage` (billing; a chunk with empty `choices` and usage is the usage chunk) and `finish_reason` (the finish chunk carries the usage when the client asked for it); `usage` is removed when the client did not ask for it.
 */
export type ChatChunk = {
  /**
   * Completion id, the same on every chunk of the stream.
   */
  id?: string;
  /**
   * Always chat.completion.chunk.
   */
  object?: 'chat.completion.chunk';
  /**
   * Unix seconds when the completion started.
   */
  created?: number;
  /**
   * The model as the client named it (the `$model` binding), not the vendor's name for it.
   */
  model?: string;
  /**
   * Backend configuration fingerprint, when the vendor sends one.
   */
  system_fingerprint?: string | null;
  /**
   * Service tier, when the vendor sends one.
   */
  service_tier?: string | null;
  /**
   * Deltas, one per choice index; empty on the usage chunk.
   */
  choices?: ChatChunkChoice[];
  usage?: ChatUsage;
  error?: ChatStreamErrorBody;
  [k: string]: unknown;
} & {
  [k: string]: unknown;
};
/**
 * Token counts, billed as reported (prompt_tokens must be a number for the report to be used). Null on stream chunks before the usage chunk.
 */
export type ChatUsage = {
  /**
   * Tokens of the prompt.
   */
  prompt_tokens: number;
  /**
   * Tokens generated.
   */
  completion_tokens: number;
  /**
   * prompt_tokens + completion_tokens.
   */
  total_tokens?: number;
  /**
   * Breakdown of the prompt tokens (cached, audio).
   */
  prompt_tokens_details?: {
    [k: string]: unknown;
  } | null;
  /**
   * Breakdown of the generated tokens (reasoning, audio, predictions).
   */
  completion_tokens_details?: {
    [k: string]: unknown;
  } | null;
  [k: string]: unknown;
} | null;

/**
 * One choice's delta.
 */
export interface ChatChunkChoice {
  /**
   * Choice index (0 unless the client asked for n > 1).
   */
  index: number;
  /**
   * What this chunk adds: role (first chunk), content, refusal or tool_calls fragments; empty on the finish chunk.
   */
  delta: {
    [k: string]: unknown;
  };
  /**
   * Log probabilities, when asked for.
   */
  logprobs?: {
    [k: string]: unknown;
  } | null;
  /**
   * Why the choice ended (stop, length, tool_calls, content_filter, function_call) on its last chunk, else null.
   */
  finish_reason?: string | null;
}
/**
 * An error inside the 200 stream: the stream then ends as an upstream error.
 */
export interface ChatStreamErrorBody {
  /**
   * What went wrong.
   */
  message: string;
  /**
   * Error type (e.g. server_error).
   */
  type?: string | null;
  /**
   * The request field at fault, if any.
   */
  param?: string | null;
  /**
   * Machine-readable code, if any.
   */
  code?: string | number | null;
  [k: string]: unknown;
}
