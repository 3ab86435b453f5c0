/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

export type ResponsesInputItem = InputItem & InputItem;
export type ResponsesContentPart = ContentPart & ContentPart;

/**
 * POST /v1/responses body (OpenAI Responses shape), translated to the unified chat format. Fields not listed are accepted and not forwarded.
 */
export interface ResponsesRequest {
  /**
   * Model name, used for billing and dispatch.
   */
  model: string;
  /**
   * A user message as text, or input items (messages, function calls and their outputs, item references).
   */
  input: string | [ResponsesInputItem, ...ResponsesInputItem[]];
  /**
   * A system message placed first (not carried over by previous_response_id).
   */
  instructions?: string | null;
  /**
   * A kept response this one continues.
   */
  previous_response_id?: string | null;
  /**
   * Keep the response so it can be retrieved and continued (default true).
   */
  store?: boolean | null;
  /**
   * Answer as a stream of response events.
   */
  stream?: boolean | null;
  /**
   * Upper limit of output tokens.
   */
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  parallel_tool_calls?: boolean | null;
  user?: string;
  metadata?: {
    [k: string]: string;
  } | null;
  /**
   * Function tools (other tool types are not supported).
   *
   * @maxItems 128
   */
  tools?: {
    type: 'function';
    name: string;
    description?: string | null;
    parameters?: {} | null;
    strict?: boolean | null;
  }[];
  tool_choice?:
    | ('none' | 'auto' | 'required')
    | {
        type: 'function';
        name: string;
      };
  text?: {
    format?: {
      type: 'text' | 'json_object' | 'json_schema';
      name?: string;
      schema?: {};
      strict?: boolean | null;
      description?: string;
    };
  } | null;
  reasoning?: {
    effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | null;
    summary?: string | null;
  } | null;
  /**
   * Background mode is not supported.
   */
  background?: false | null;
  /**
   * Conversation objects are not supported; use previous_response_id.
   */
  conversation?: null;
  /**
   * Stored prompts are not supported.
   */
  prompt?: null;
}
export interface InputItem {
  type?: 'message' | 'function_call' | 'function_call_output' | 'item_reference' | 'reasoning';
  role?: 'user' | 'assistant' | 'system' | 'developer';
  content?: string | ResponsesContentPart[];
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: string | ResponsesContentPart[];
  id?: string;
}
export interface ContentPart {
  type: 'input_text' | 'input_image' | 'output_text' | 'refusal';
  text?: string;
  image_url?: string;
  detail?: 'low' | 'high' | 'auto' | null;
}
