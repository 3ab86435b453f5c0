/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/chat/completions body (OpenAI shape). Fields not listed pass through to the upstream.
 */
export interface ChatCompletionRequest {
  /**
   * Model name, used for billing and dispatch.
   */
  model: string;
  /**
   * Messages in chronological order.
   *
   * @minItems 1
   */
  messages: [ChatMessage, ...ChatMessage[]];
  /**
   * When true the answer is text/event-stream.
   */
  stream?: boolean;
  /**
   * Streaming options.
   */
  stream_options?: {
    /**
     * Send usage in the last chunk.
     */
    include_usage?: boolean;
  } | null;
  /**
   * Upper limit of generated tokens.
   */
  max_tokens?: number | null;
  /**
   * Upper limit of completion tokens, reasoning included.
   */
  max_completion_tokens?: number | null;
  /**
   * Sampling temperature.
   */
  temperature?: number | null;
  /**
   * Nucleus sampling.
   */
  top_p?: number | null;
  /**
   * Number of choices.
   */
  n?: number | null;
  /**
   * Function-calling tools.
   */
  tools?: {
    type: string;
    function?: {
      name: string;
    };
  }[];
  /**
   * `auto`, `none`, `required`, or an object naming a function.
   */
  tool_choice?:
    | ('auto' | 'none' | 'required')
    | {
        type: string;
      };
  /**
   * Output format.
   */
  response_format?: {
    type: 'text' | 'json_object' | 'json_schema';
  };
  /**
   * Reasoning effort; its effect depends on the model.
   */
  reasoning_effort?: string | null;
}
/**
 * One chat message.
 */
export interface ChatMessage {
  /**
   * Author role.
   */
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';
  /**
   * Plain text, or multimodal parts.
   */
  content?: string | null | ContentPart[];
}
/**
 * One multimodal content part.
 */
export interface ContentPart {
  /**
   * Part type.
   */
  type: 'text' | 'image_url' | 'input_audio' | 'file' | 'video_url' | 'refusal';
  text?: string;
  image_url?: {
    url: string;
    detail?: string;
  };
}
