/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * One client dialect in `dialects/<name>.yaml`: an API format other than the unified one (OpenAI chat completions), with how it translates to and from the unified format. A route names the dialect its clients speak (`dialect`); a channel operation names the dialect its vendor speaks. Where the two are the same the bytes pass untouched; otherwise the request is translated through the unified format and the answer back.
 */
export interface DialectFile {
  description?: string;
  /**
   * A request header that may carry the API key instead of `Authorization: Bearer` (lower case, e.g. x-api-key).
   */
  key_header?: string;
  /**
   * A query parameter that may carry the API key when neither Authorization nor `key_header` does (e.g. Gemini's `?key=`). It never reaches an upstream or a log line (the access line logs the path without its query).
   */
  key_query?: string;
  /**
   * JSONata: the body of every error on the dialect's routes (bindings $status, $code: the gateway's error code, $message, $type: the Shape A type).
   */
  error?: string;
  /**
   * Time limit for translating one request (`client.request`, `vendor.request`), whose work grows with the conversation; a request over it is refused with 400. Default: channels.yaml `dispatch.transform_timeout_ms` (1000), which every other slot keeps.
   */
  request_timeout_ms?: number;
  client?: DialectClient;
  vendor?: DialectVendor;
  usage?: UsagePaths;
  /**
   * Names of the SSE events that end one of this dialect's streams cleanly; an upstream stream that stops before one is a cut. A dialect whose events have no names leaves it out: its translated stream ends cleanly at the finish (a unified chunk with a finish_reason), an untouched one at the end of the body.
   *
   * @minItems 1
   */
  stream_end?: [string, ...string[]];
  /**
   * Where an untouched stream of this dialect carries the whole answer (for routes with `store`, which keep it): the events and the dotted path in their data.
   */
  stream_result?: {
    /**
     * @minItems 1
     */
    events: [string, ...string[]];
    at: string;
  };
  /**
   * `name=value`: the client's streams are SSE only when its query has this parameter (Google's `alt=sse`); otherwise the same events go out as one JSON array of their data, element by element as they come (Google's default framing).
   */
  sse_query?: string;
}
/**
 * The client side: requests in this dialect become unified requests, unified answers become this dialect's.
 */
export interface DialectClient {
  /**
   * JSONata evaluated before each of this side's transforms (the stream hooks included); its value, usually an object of functions, is bound as $fn so helpers are written once. Bindings as for the transform it precedes.
   */
  functions?: string;
  /**
   * JSONata: the client's request → a unified chat request (see schemas/transform/chat-request.json). Bindings $model, $previous (the stored conversation's items when the route has `store` and the request continues one, else []), $recall(id) (a stored item by id, or undefined).
   */
  request: string;
  /**
   * JSONata: a unified chat completion → the client's answer. Bindings $request (the client's body), $model, $id (a fresh random id), $created (unix seconds).
   */
  response: string;
  stream: StreamTransform;
  /**
   * JSONata: the items a stored answer keeps for a request that continues it (bindings $request, $response: the client's answer, $previous). Needed by routes with `store`.
   */
  conversation?: string;
}
/**
 * Unified chat chunks (`data` of each event) → the client's events. Bindings as for `response`.
 */
export interface StreamTransform {
  /**
   * JSONata run once before the first event: the initial state (bindings as the dialect side's `response`).
   */
  init?: string;
  /**
   * JSONata per input event ($ is the parsed data; $event its SSE name; $state).
   */
  event: string;
  /**
   * JSONata after a clean end ($state): the closing events.
   */
  end?: string;
  /**
   * JSONata when the stream fails or is cut ($state, $message, $code): the error events that close it.
   */
  error?: string;
}
/**
 * The vendor side: unified requests become this dialect's, its answers become unified ones.
 */
export interface DialectVendor {
  /**
   * JSONata evaluated before each of this side's transforms (the stream hooks included); its value, usually an object of functions, is bound as $fn so helpers are written once. Bindings as for the transform it precedes.
   */
  functions?: string;
  /**
   * JSONata: a unified chat request → the vendor's request. Bindings $model (upstream model), $stream, $max_output_tokens (the completion limit billing reserved: the request's own, else the model's `max_output_tokens`; for vendors that require one).
   */
  request: string;
  /**
   * JSONata: the vendor's answer → a unified chat completion. Bindings $model (the client's model name), $created (unix seconds).
   */
  response: string;
  stream: StreamTransform1;
}
/**
 * The vendor's events → unified chat chunks (the `data` of each output event). Bindings $model, $created, $event.
 */
export interface StreamTransform1 {
  /**
   * JSONata run once before the first event: the initial state (bindings as the dialect side's `response`).
   */
  init?: string;
  /**
   * JSONata per input event ($ is the parsed data; $event its SSE name; $state).
   */
  event: string;
  /**
   * JSONata after a clean end ($state): the closing events.
   */
  end?: string;
  /**
   * JSONata when the stream fails or is cut ($state, $message, $code): the error events that close it.
   */
  error?: string;
}
/**
 * Where answers carry usage, read without JSONata (bytes may pass untouched): in a JSON answer, and in the named stream events. Each token count is the sum of the fields present; `details` name the parts of those totals the vendor reports apart (cache reads and writes, reasoning, audio, images), each the first of its paths present. A later event's count replaces an earlier one. Paths are dotted; `name[key=value]` picks the element of an array whose `key` is `value` (Gemini's `promptTokensDetails[modality=AUDIO].tokenCount`).
 */
export interface UsagePaths {
  /**
   * Dotted paths where a usage object may sit (the first present wins).
   *
   * @minItems 1
   */
  at: [string, ...string[]];
  /**
   * Paths in the usage object summed into prompt tokens: every input token, cached or not.
   *
   * @minItems 1
   */
  prompt_tokens: [string, ...string[]];
  /**
   * Paths in the usage object summed into completion tokens: every output token, reasoning included.
   *
   * @minItems 0
   */
  completion_tokens: string[];
  /**
   * Paths in the usage object summed into the billable units the vendor reports it billed (Cohere's `search_units`): a `per_call` price is charged per unit reported instead of per unit asked (the reservation, from `price_inputs.items` or `units`, still caps it).
   *
   * @minItems 1
   */
  units?: [string, ...string[]];
  /**
   * Parts of the totals by class, each the first of its paths present. `cache_write_<lifetime>` (e.g. `cache_write_5m`, `cache_write_1h`) are the parts of `cache_write` the vendor reports by lifetime.
   */
  details?: {
    /**
     * Prompt tokens read from a prompt cache (every modality).
     *
     * @minItems 1
     */
    cached?: [string, ...string[]];
    /**
     * The audio part of `cached`.
     *
     * @minItems 1
     */
    cached_audio?: [string, ...string[]];
    /**
     * The image part of `cached`.
     *
     * @minItems 1
     */
    cached_image?: [string, ...string[]];
    /**
     * Prompt tokens written to a prompt cache (every lifetime).
     *
     * @minItems 1
     */
    cache_write?: [string, ...string[]];
    /**
     * Audio prompt tokens, cached ones included.
     *
     * @minItems 1
     */
    input_audio?: [string, ...string[]];
    /**
     * Image prompt tokens, cached ones included.
     *
     * @minItems 1
     */
    input_image?: [string, ...string[]];
    /**
     * Completion tokens spent reasoning.
     *
     * @minItems 1
     */
    reasoning?: [string, ...string[]];
    /**
     * Audio completion tokens.
     *
     * @minItems 1
     */
    output_audio?: [string, ...string[]];
    /**
     * Image completion tokens.
     *
     * @minItems 1
     */
    output_image?: [string, ...string[]];
    /**
     * Prompt tokens written to a cache of this lifetime (part of `cache_write`).
     *
     * @minItems 1
     *
     * This interface was referenced by `undefined`'s JSON-Schema definition
     * via the `patternProperty` "^cache_write_[0-9]+[mhd]$".
     */
    [k: string]: [string, ...string[]] | undefined;
  };
  /**
   * Names of the stream events that carry usage (others pass unread). Absent: every event that has one of the `at` paths' first field (a dialect whose events have no names, e.g. Gemini's, whose every chunk may carry usageMetadata).
   */
  events?: string[];
  /**
   * Paths in the usage object of the seconds of media the vendor billed (a transcription's `seconds`): a `per_second` price charges these instead of the seconds asked.
   *
   * @minItems 1
   */
  seconds?: [string, ...string[]];
}
