/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * routes.yaml: the public routes of the gateway, each with its policy and limits.
 */
export interface RoutesFile {
  /**
   * Config format version.
   */
  version: 1;
  server?: ServerLimits;
  defaults?: RouteLimits;
  /**
   * Public routes, matched by method and path.
   *
   * @minItems 1
   */
  routes: [Route, ...Route[]];
}
/**
 * Bounds on client connections, near nginx's defaults. A client that is too slow gets 408, one too many gets 503, all in Shape A. Read at start; a reload does not change a running listener.
 */
export interface ServerLimits {
  /**
   * Time a client has to send a request's headers (nginx client_header_timeout; default 30000). A connection that dribbles them is answered 408 and closed.
   */
  header_timeout_ms?: number;
  /**
   * Longest pause while a request body arrives (nginx client_body_timeout; default 30000); then 408.
   */
  body_idle_timeout_ms?: number;
  /**
   * Time a client has to send a whole request, headers and body (default 300000): the bound for the slowest upload.
   */
  request_timeout_ms?: number;
  /**
   * How long an idle keep-alive connection stays open (nginx keepalive_timeout; default 75000).
   */
  keep_alive_timeout_ms?: number;
  /**
   * Open client connections at most (default 10000, and never more than the process may open files); one more is answered 503 and closed.
   */
  max_connections?: number;
  /**
   * Request bodies held in memory at once, all requests together (default 268435456, 256 MiB); a body that would pass it is answered 503. Multipart uploads are spooled to disk and do not count.
   */
  max_body_memory_bytes?: number;
}
/**
 * Bounds applied to a route; unset fields take the file's defaults, then built-in defaults.
 */
export interface RouteLimits {
  /**
   * Largest request body accepted, checked while reading (default 1 MiB).
   */
  max_body_bytes?: number;
  /**
   * Deepest JSON nesting accepted (default 64).
   */
  max_json_depth?: number;
  /**
   * Largest non-streamed upstream body read (default 64 MiB).
   */
  max_response_bytes?: number;
  /**
   * Largest single SSE event relayed (default 8 MiB).
   */
  max_sse_event_bytes?: number;
  rate_limit?: RateLimit;
}
/**
 * Per-token request rate limit: at most `requests` per `window_s` seconds.
 */
export interface RateLimit {
  /**
   * Requests allowed per window.
   */
  requests: number;
  /**
   * Window length in seconds.
   */
  window_s: number;
}
/**
 * One public route.
 */
export interface Route {
  /**
   * Unique route id (snake_case), used in logs and metrics.
   */
  id: string;
  /**
   * HTTP method.
   */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /**
   * Path; `{name}` segments capture parameters.
   */
  path: string;
  /**
   * The operation channels implement for this route (defaults to the route id).
   */
  operation?: string;
  /**
   * How the engine serves the route: `stream` (JSON request, JSON or SSE answer chosen by the body's `stream` flag), `json` (JSON request and answer), `task` (asynchronous task), `passthrough` (bytes piped unchanged), `models` (the caller's model list; with an `{id}` path parameter, that one model or 404), `metrics` (Prometheus text; usually with `auth: false` on an internal listener). `health` (liveness) and `ready` (config loaded, store reachable, config hash) for orchestrators.
   */
  policy: 'stream' | 'json' | 'task' | 'passthrough' | 'models' | 'metrics' | 'health' | 'ready';
  /**
   * Request body JSON Schema, relative to schemas/api/.
   */
  body_schema?: string;
  /**
   * Whether the route needs a client token.
   */
  auth?: boolean;
  /**
   * `error.type` of every Shape A error on this route (e.g. `platform_api_error` on the unified video routes, request errors included). Default: the catalog's type per error.
   */
  error_type?: string;
  limits?: RouteLimits;
  /**
   * A fixed model for routes whose body names none (billing and dispatch use it).
   */
  model?: string;
  /**
   * JSONata picking the model from the body when it is not `model` (bindings $params: path parameters, $query: query parameters).
   */
  model_expr?: string;
  /**
   * Also accept multipart/form-data: fields become body properties, files become {filename, content_type, size, data (base64)}.
   */
  multipart?: boolean;
  task?: TaskRoute;
  price_inputs?: PriceInputs;
  /**
   * JSONata: the body of every error on this route, in the route family's own shape instead of Shape A (bindings $status, $code: the gateway's error code, $message). E.g. the image-art family's `{code: 4, description, result: null}`.
   */
  error_answer?: string;
}
/**
 * How a `task` route acts on task records.
 */
export interface TaskRoute {
  /**
   * `submit` creates a task; `query` answers one task by `{id}`; `content` streams its result; `list` answers several by `ids` in the body; `relay` calls the route's operation on the task's own channel (path with `{upstream_id}`) and relays the vendor's answer. `page` answers the caller's tasks of its one family (`families`), newest first, in OpenAI's list shape with the `after` (an id), `limit` (1 to 100, default 20) and `order` (`asc`/`desc`) query parameters. `delete` removes one task by `{id}` and answers the route's `answer` over it: a finished task is deleted at the vendor where its operation has `delete`; an unfinished one is cancelled there where it has `cancel` (then failed and refunded), else refused with 400 while it runs.
   */
  action: 'submit' | 'query' | 'content' | 'list' | 'relay' | 'page' | 'delete';
  /**
   * Submit: the family stored on the record (e.g. `video`).
   */
  family?: string;
  /**
   * Query, list, content, page, delete: families whose records this route may show; a submit with `source`: families the source may be of.
   */
  families?: string[];
  /**
   * JSONata: the task's public view (bindings $base_url) → the client's body. Default: the OpenAI video object.
   */
  answer?: string;
  /**
   * Error shape when the group's in-flight task limit is reached: `A` or `B` (code, message, data: null).
   */
  saturated_shape?: 'A' | 'B';
  /**
   * JSONata: wraps the array of answers of a `list` route (default: the array itself).
   */
  list_answer?: string;
  callback?: TaskCallback;
  /**
   * Submit: body fields holding the id of an earlier task of the caller (e.g. `taskId` for a variation). The public id is swapped for the vendor's, and the new task goes to the same channel.
   */
  refs?: string[];
  /**
   * Submit: the path parameter naming one of the caller's tasks (of `families`) the new task derives from, e.g. a remix. The source must be completed (else 400 `task_not_completed`; another user's or unknown: 404); the new task takes its model, seconds and size (so the same price, reserved before the vendor is called), goes to its channel, whose operation path gets `{source_upstream_id}`, and records it (the video object shows it as `remixed_from_video_id`). A source whose channel lacks the route's operation is 400 `invalid_request`.
   */
  source?: string;
}
/**
 * Client callbacks: the URL is read from the submit body and gets the task's answer POSTed on every change.
 */
export interface TaskCallback {
  /**
   * Body field holding the callback URL (e.g. `notifyHook`).
   */
  field: string;
  /**
   * Id of the route whose `answer` shapes the callback body (default: this route's).
   */
  route?: string;
}
/**
 * Body fields the price depends on, each a list of dotted paths of which the first present one counts. Every value is checked before anything is reserved: a positive whole number (a JSON integer, or a string of digits), within the model's bounds; anything else is 400 `invalid_request` naming the field.
 */
export interface PriceInputs {
  /**
   * Billable seconds of media, for `per_second` prices (bounds: the model's `price.seconds`).
   *
   * @minItems 1
   */
  seconds?: [string, ...string[]];
  /**
   * Billable units such as `n` images; `per_call` is charged per unit (bounds: the model's `price.units`).
   *
   * @minItems 1
   */
  units?: [string, ...string[]];
  /**
   * The completion limit reserved for token prices (bounds: 1 to the model's `max_output_tokens`).
   *
   * @minItems 1
   */
  completion_tokens?: [string, ...string[]];
  /**
   * How many completions are generated (1 to 128); the completion limit is reserved for each.
   *
   * @minItems 1
   */
  choices?: [string, ...string[]];
}
