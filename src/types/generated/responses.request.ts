/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

export type ResponsesInputItem = InputItem & InputItem;
export type ResponsesContentPart = ContentPart & ContentPart;
export type ResponsesTool = Tool;

/**
 * POST /v1/responses body (OpenAI Responses shape). A vendor that speaks Responses gets it byte for byte; any other is sent its translation to the unified chat format, which drops what a chat vendor cannot run (hosted tools, reasoning items) and refuses what the turn cannot do without (400 naming it). Fields not listed are accepted (forwarded natively, not translated).
 */
export interface ResponsesRequest {
  /**
   * Model name, used for billing and dispatch.
   */
  model: string;
  /**
   * A user message as text, or input items: messages, function and custom tool calls and their outputs, item references, reasoning items; other item types reach a Responses vendor as they are and are refused (400) on translation.
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
   * Tools: `function`, `custom` (freeform input), `namespace` (a group of functions and custom tools) and OpenAI's hosted tools (web_search, file_search, code_interpreter, image_generation, computer_use, mcp, …), which reach a Responses vendor as they are and are dropped for a chat vendor (the access line names them).
   *
   * @maxItems 512
   */
  tools?: ResponsesTool[];
  tool_choice?:
    | ('none' | 'auto' | 'required')
    | {
        type: string;
        name?: string;
      };
  text?: {
    format?: {
      type: 'text' | 'json_object' | 'json_schema';
      name?: string;
      schema?: {};
      strict?: boolean | null;
      description?: string;
    };
    verbosity?: 'low' | 'medium' | 'high' | null;
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
  /**
   * Extra output to include (e.g. reasoning.encrypted_content): for a Responses vendor; a chat vendor has none of it.
   *
   * @maxItems 64
   */
  include?: string[] | null;
  /**
   * A Responses vendor's cache routing hint (forwarded natively; translated as nothing).
   */
  prompt_cache_key?: string | null;
  /**
   * Client metadata (Codex's session and turn ids): forwarded natively, not translated.
   */
  client_metadata?: {} | null;
}
export interface InputItem {
  type?: string;
  role?: 'user' | 'assistant' | 'system' | 'developer';
  content?: string | ResponsesContentPart[];
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: string | ResponsesContentPart[];
  id?: string;
  input?: string;
}
export interface ContentPart {
  type: string;
  text?: string;
  image_url?: string;
  detail?: 'low' | 'high' | 'auto' | null;
}
export interface Tool {
  type: string;
  name?: string;
  description?: string | null;
  parameters?: {} | null;
  strict?: boolean | null;
  /**
   * @maxItems 512
   */
  tools?: ResponsesTool[];
}
