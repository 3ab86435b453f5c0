/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

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
 * Output of a chat operation's `response` transform (src/policies/chat.ts): the OpenAI chat.completion object the client gets. Its `usage` is what is billed; without it the prompt is estimated and the answer's length counted.
 */
export interface ChatCompletion {
  /**
   * Completion id.
   */
  id: string;
  /**
   * Always chat.completion.
   */
  object: 'chat.completion';
  /**
   * Unix seconds when the completion was made.
   */
  created?: number;
  /**
   * The model as the client named it (the `$model` binding), not the vendor's name for it.
   */
  model: string;
  /**
   * Backend configuration fingerprint, when the vendor sends one.
   */
  system_fingerprint?: string | null;
  /**
   * Service tier, when the vendor sends one.
   */
  service_tier?: string | null;
  /**
   * One entry per choice (n).
   *
   * @minItems 1
   */
  choices: [ChatChoice, ...ChatChoice[]];
  usage?: ChatUsage;
  [k: string]: unknown;
}
/**
 * One choice.
 */
export interface ChatChoice {
  /**
   * Choice index.
   */
  index: number;
  message: ChatMessage;
  /**
   * Log probabilities, when asked for.
   */
  logprobs?: {
    [k: string]: unknown;
  } | null;
  /**
   * Why the choice ended: stop, length, tool_calls, content_filter or function_call.
   */
  finish_reason: string;
}
/**
 * The assistant's message.
 */
export interface ChatMessage {
  /**
   * Always assistant.
   */
  role: 'assistant';
  /**
   * The text (null with tool calls or a refusal).
   */
  content?: string | null;
  /**
   * The refusal text, if the model refused.
   */
  refusal?: string | null;
  /**
   * Function calls the model asks for.
   *
   * Items: One call: id, type function, function {name, arguments (JSON text)}.
   */
  tool_calls?: {
    [k: string]: unknown;
  }[];
  [k: string]: unknown;
}
