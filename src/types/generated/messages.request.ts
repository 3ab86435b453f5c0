/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Model name, used for billing and dispatch.
 */
export type Model = string;
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
export type MessagesBlock = Block;
/**
 * System prompt: text, or text blocks.
 */
export type System =
  | string
  | {
      type: 'text';
      text: string;
    }[];
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
 * POST /v1/messages body (Anthropic Messages API). Fields not listed pass through to a vendor that speaks Messages; a translation to another vendor reads only the ones it maps.
 */
export interface MessagesRequest {
  model: Model;
  /**
   * Most tokens to generate (reserved by billing; above the model's max_output_tokens it is lowered to it).
   */
  max_tokens: number;
  messages: Messages;
  system?: System;
  /**
   * When true the answer is text/event-stream (message_start … message_stop).
   */
  stream?: boolean;
  /**
   * Text that stops generation.
   *
   * @maxItems 64
   */
  stop_sequences?: string[];
  /**
   * Sampling temperature.
   */
  temperature?: number;
  /**
   * Nucleus sampling.
   */
  top_p?: number;
  /**
   * Sample from the top K options only (Messages vendors only).
   */
  top_k?: number;
  tools?: Tools;
  tool_choice?: ToolChoice;
  /**
   * Request metadata; `user_id` becomes the unified `user`.
   */
  metadata?: {
    /**
     * An opaque id of the end user.
     */
    user_id?: string | null;
  };
  /**
   * Extended thinking (Messages vendors only; dropped when translated).
   */
  thinking?: {
    type: string;
    budget_tokens?: number;
  };
  /**
   * Output settings; `format` (a JSON schema) becomes the unified `response_format`.
   */
  output_config?: {
    format?: {
      type: 'json_schema';
      schema: {};
    } | null;
  };
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
export interface Block {
  /**
   * Block type.
   */
  type: string;
}
/**
 * How the model uses tools: auto, any, a named tool, or none.
 */
export interface ToolChoice {
  type: 'auto' | 'any' | 'tool' | 'none';
  name?: string;
  disable_parallel_tool_use?: boolean;
}
