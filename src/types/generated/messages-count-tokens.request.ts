/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * The conversation, oldest first.
 *
 * @minItems 1
 * @maxItems 10000
 */
export type Messages = [MessagesMessage, ...MessagesMessage[]];
/**
 * One content block. text, image, tool_use and tool_result are checked here; other types (document, thinking, …) pass to vendors that speak Messages and are refused by a translation that cannot carry them.
 */
export type MessagesBlock = {
  /**
   * Block type.
   */
  type: string;
};
/**
 * Tools the model may call: custom tools ({name, description, input_schema}) or a vendor's own typed tools.
 *
 * @maxItems 512
 */
export type Tools = {
  /**
   * Absent or `custom` for a custom tool; a vendor's typed tool otherwise.
   */
  type?: string;
  name: string;
  description?: string;
  input_schema?: {};
}[];

/**
 * POST /v1/messages/count_tokens body: a Messages request without max_tokens (the answer is the gateway's prompt estimate).
 */
export interface MessagesCountTokensRequest {
  /**
   * Model name, used for billing and dispatch.
   */
  model: string;
  messages: Messages;
  /**
   * System prompt: text, or text blocks.
   */
  system?:
    | string
    | {
        type: 'text';
        text: string;
      }[];
  tools?: Tools;
  tool_choice?: ToolChoice;
  /**
   * Extended thinking settings.
   */
  thinking?: {};
}
/**
 * One turn.
 */
export interface MessagesMessage {
  /**
   * Author role.
   */
  role: 'user' | 'assistant' | 'system';
  /**
   * Text, or content blocks.
   */
  content: string | MessagesBlock[];
}
/**
 * How the model uses tools: auto, any, a named tool, or none.
 */
export interface ToolChoice {
  type: 'auto' | 'any' | 'tool' | 'none';
  name?: string;
  disable_parallel_tool_use?: boolean;
}
