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
  /**
   * Client dialects: API formats other than the unified one (OpenAI chat completions), each with how it translates to and from the unified format. A route names the dialect its clients speak (`dialect`); a channel operation names the dialect its vendor speaks. Where the two are the same the bytes pass untouched; otherwise the request is translated through the unified format and the answer back.
   */
  dialects?: {
    [k: string]: Dialect;
  };
  /**
   * Where each operation's unified answers carry usage, by operation name (e.g. `chat_completions`, `images_generate`). A vendor operation with a dialect reads its dialect's `usage`, one with its own `usage` reads that, and an operation named nowhere reads the chat completions shape.
   */
  usage?: {
    [k: string]: UsagePaths;
  };
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
  /**
   * Slowest average pace of a request body, in bytes per second, once `min_body_rate_grace_ms` has passed (Apache mod_reqtimeout's MinRate; default 500, 0 turns it off). A body behind that pace is answered 408 request_timeout and its connection closed, however short its pauses.
   */
  min_body_rate?: number;
  /**
   * Time a body has before `min_body_rate` applies (default 10000): a body must have arrived within this plus its size divided by the rate.
   */
  min_body_rate_grace_ms?: number;
  /**
   * After an answer given before the request's body was read (401, 403, 404, 413, 429, ...), which carries `Connection: close`: how long the gateway still reads and drops what the client sends, so the client can read the answer, before it closes the connection (nginx lingering_time, 30 s; default 10000, at most 30000).
   */
  linger_ms?: number;
  /**
   * The linger ends sooner when the client sends nothing for this long (nginx lingering_timeout, 5 s; default 2000).
   */
  linger_idle_ms?: number;
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
 * Per-token request rate limit: at most `requests` in any `window_s` seconds (a sliding window, counted in the shared store by every instance together, in twentieths of the window: a client refused waits until its oldest twentieth leaves, Retry-After says when). More are refused with too_many_requests (429).
 */
export interface RateLimit {
  /**
   * Requests allowed per window.
   */
  requests: number;
  /**
   * Window length in seconds: no span this long holds more than `requests` admitted requests.
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
   * Path; `{name}` segments capture parameters. Several routes may share a method and path when each names its own operation and a `model_expr` over the path: the first whose operation some channel serves that model on (any group, enabled or not) answers, picked before the key is read, so every refusal comes in that route's shape (e.g. Gemini's generateContent for image and for chat models); `switchyard check` refuses a model served on two of the path's operations.
   */
  path: string;
  /**
   * The operation channels implement for this route (defaults to the route id).
   */
  operation?: string;
  /**
   * What the model list (`GET /v1/models`) calls this route in each model's `supported_endpoint_types`, on a route that calls a model (policies stream, json, passthrough, relay, realtime, client_secret, count_tokens, and task submits): a model is listed with the types of the routes whose operation a channel of the caller's group serves for it, and a model no such route serves is not listed. Routes of one API share a type (e.g. `openai` for chat completions, `anthropic` for Messages and its token count); default: the route id.
   */
  endpoint_type?: string;
  /**
   * How the engine serves the route: `stream` (JSON request, JSON or SSE answer chosen by the body's `stream` flag), `json` (JSON request and answer), `task` (asynchronous task), `passthrough` (bytes piped unchanged), `relay` (a JSON or multipart request whose answer streams back as it comes: audio bytes, text, JSON or SSE events, its usage read on the way; see `audio`), `realtime` (a WebSocket relayed to the vendor's, billed per response; see `realtime`), `client_secret` (mints a short-lived secret of the caller's token for a browser; see `client_secret`), `models` (the caller's model list; with an `{id}` path parameter, that one model or 404), `metrics` (Prometheus text; usually with `auth: false` on an internal listener). `health` (liveness) and `ready` (config loaded, store reachable, config hash) for orchestrators. `stored` answers GET (the stored answer) and DELETE on records a route with `store` kept. `count_tokens` answers the prompt-token estimate billing would reserve, through `answer`. `admin` is the operator's API (tokens, usage, tasks, channels, reload; `auth: admin`), `billing` the balance and usage a token holder's chat front-end shows (OpenAI's dashboard billing shape); both name their `action`. `openapi` answers the OpenAPI 3.1 document of the routes this instance serves, generated from the running config and its request schemas once per config (usually with `auth: false`). `console` serves the operator's console page (no path parameter) and its files (`{asset}`), which call the admin API with the key the operator signs in with; like `admin`, it exists only while `SWITCHYARD_ADMIN_KEY` is set (use `auth: false`: the page itself holds no data). `files` keeps the caller's files (OpenAI's Files API: `action` `upload`, `list`, `get`, `content`, `delete`): an upload is checked as the route's `files` says and stored at the vendor that will use it, the gateway keeping its record; the bytes are read back from there. `account` is the console's users: sign-in with a password set from the operator's invite (`auth: false`, actions `sign_in`, `invite_accept`), then, on their session (`auth: session`), their own wallet, tokens, usage and request log (actions `sign_out`, `me`, `my_tokens`, `my_token_create`, `my_token_revoke`, `my_token_rotate`, `my_usage`, `my_requests`, `my_request`); like `console`, it exists only while `SWITCHYARD_ADMIN_KEY` is set.
   */
  policy:
    | 'stream'
    | 'json'
    | 'task'
    | 'passthrough'
    | 'models'
    | 'metrics'
    | 'health'
    | 'ready'
    | 'stored'
    | 'count_tokens'
    | 'admin'
    | 'billing'
    | 'openapi'
    | 'console'
    | 'relay'
    | 'realtime'
    | 'client_secret'
    | 'files'
    | 'account';
  /**
   * Policy `stream`: every request on this route is answered as SSE whatever its body says (the path says so, e.g. Gemini's `:streamGenerateContent`).
   */
  stream?: boolean;
  /**
   * Request body JSON Schema, relative to schemas/api/.
   */
  body_schema?: string;
  /**
   * Who may call the route: `true` (default) a client token; `false` anyone (health, metrics, the API document, the console page); `admin` the operator's key (`SWITCHYARD_ADMIN_KEY`, Bearer); `session` a console user's session cookie, with the session's `X-CSRF-Token` header on every method but GET (policy `account` only). Routes of policy `admin` exist only while that key is set.
   */
  auth?: boolean | 'admin' | 'session';
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
   * JSONata picking the model from the body when it is not `model` (bindings $params: path parameters, $query: query parameters) (see schemas/transform/model-name.json).
   */
  model_expr?: string;
  /**
   * Also accept multipart/form-data: fields become body properties, files become {filename, content_type, size, data (base64)}.
   */
  multipart?: boolean;
  task?: TaskRoute;
  price_inputs?: PriceInputs;
  /**
   * JSONata run on {}: the body of every error on this route, in the route family's own shape instead of Shape A (bindings $status, $code: the gateway's error code, $message). E.g. the image-art family's `{code: 4, description, result: null}` (see schemas/transform/error-answer.json).
   */
  error_answer?: string;
  /**
   * The client dialect of this route (a key of `dialects`); absent: the unified format (OpenAI chat). Its `key_header`, `key_query` and `error` apply to the route.
   */
  dialect?: string;
  /**
   * A request header that may carry the API key instead of `Authorization: Bearer` (lower case, e.g. x-goog-api-key), for a route in a vendor's format without a dialect; instead of its dialect's `key_header`.
   */
  key_header?: string;
  /**
   * A query parameter that may carry the API key when neither Authorization nor `key_header` does (e.g. Gemini's `?key=`); instead of its dialect's `key_query`. Not on a `passthrough` route, which sends the query upstream.
   */
  key_query?: string;
  store?: ConversationStore;
  /**
   * JSONata run on {}: the answer of a `count_tokens` route (bindings $tokens: the estimate, $model), or of a `models` route in a dialect's own shape (bindings $models: the caller's models as [{id, owned_by, supported_endpoint_types, max_output_tokens?}] for the list; $model: that object for the one model the path names) (see schemas/transform/json-answer.json).
   */
  answer?: string;
  /**
   * What a route of policy `admin`, `billing`, `files` or `account` does. admin: `token_create`, `token_list`, `token_get`, `token_update`, `token_topup`, `token_revoke`, `user_create`, `user_list`, `user_get`, `user_update`, `user_topup`, `user_tokens`, `user_usage`, `user_invite` (a one-time link for the user to set a console password), `team_create`, `team_list`, `team_get`, `team_update`, `team_member_add`, `team_member_remove`, `team_usage`, `usage`, `tasks`, `reconciliation`, `requests`, `request`, `requests_export`, `channels`, `reload`; billing: `subscription`, `usage`, `requests` and `request` (the token's own records of the request log).; files: `upload` (the route's `files` rules), `list` (the caller's files, OpenAI's list shape: `after`, `limit`, `order`, `purpose`), `get`, `content` (the bytes, streamed from the vendor), `delete` (at the vendor, then the record); account: see `policy`.
   */
  action?:
    | 'token_create'
    | 'token_list'
    | 'token_get'
    | 'token_update'
    | 'token_topup'
    | 'token_revoke'
    | 'user_create'
    | 'user_list'
    | 'user_get'
    | 'user_update'
    | 'user_topup'
    | 'user_tokens'
    | 'user_usage'
    | 'team_create'
    | 'team_list'
    | 'team_get'
    | 'team_update'
    | 'team_member_add'
    | 'team_member_remove'
    | 'team_usage'
    | 'usage'
    | 'tasks'
    | 'reconciliation'
    | 'requests'
    | 'request'
    | 'requests_export'
    | 'channels'
    | 'reload'
    | 'subscription'
    | 'upload'
    | 'list'
    | 'get'
    | 'content'
    | 'delete'
    | 'user_invite'
    | 'sign_in'
    | 'invite_accept'
    | 'sign_out'
    | 'me'
    | 'my_tokens'
    | 'my_token_create'
    | 'my_token_revoke'
    | 'my_token_rotate'
    | 'my_usage'
    | 'my_requests'
    | 'my_request';
  audio?: RouteAudio;
  realtime?: RealtimeRoute;
  client_secret?: ClientSecretRoute;
  files?: FilesRoute;
}
/**
 * How a `task` route acts on task records.
 */
export interface TaskRoute {
  /**
   * `submit` creates a task; `query` answers one task by `{id}`; `content` streams its result; `list` answers several by `ids` in the body; `relay` calls the route's operation on the task's own channel (path with `{upstream_id}`) and relays the vendor's answer. `page` answers the caller's tasks of its one family (`families`), newest first, in OpenAI's list shape with the `after` (an id), `limit` (1 to 100, default 20) and `order` (`asc`/`desc`) query parameters. `delete` removes one task by `{id}` and answers the route's `answer` over it: a finished task is deleted at the vendor where its operation has `delete`; an unfinished one is cancelled there where it has `cancel` (then failed and refunded), else refused with 400 while it runs. `cancel` asks the vendor to cancel the task by `{id}` (its operation's `cancel`) and answers it as it then stands; with `ends_task: false` the vendor ends it later, and what it ran is charged.
   */
  action: 'submit' | 'query' | 'content' | 'list' | 'relay' | 'page' | 'delete' | 'cancel';
  /**
   * Submit: the family stored on the record (e.g. `video`).
   */
  family?: string;
  /**
   * Query, list, content, page, delete: families whose records this route may show; a submit with `source`: families the source may be of.
   */
  families?: string[];
  /**
   * JSONata: the task's public view (bindings $base_url) → the client's body, also POSTed to callbacks. Default: the OpenAI video object (see schemas/transform/task-answer.json).
   */
  answer?: string;
  /**
   * Error shape when the group's in-flight task limit is reached: `A` or `B` (code, message, data: null).
   */
  saturated_shape?: 'A' | 'B';
  /**
   * JSONata: wraps the array of answers of a `list` route (default: the array itself) (see schemas/transform/task-answer.json).
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
  input_file?: TaskInputFile;
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
 * Submit: the task runs the requests of one of the caller's uploaded files (a batch): its model, price and channel are the file's. Every line was checked when the file was uploaded; the model, the caller's access to it and the channel's batch operation are checked again, then the batch is reserved from its lines (each one's prompt estimate and completion limit, at the model's `price.batch`) before the vendor is asked.
 */
export interface TaskInputFile {
  /**
   * The body field naming the file (`input_file_id`); the vendor gets its own id for it.
   */
  field: string;
  /**
   * The body field naming the endpoint every line must call (`endpoint`): a file whose lines call another is refused, naming the line.
   */
  endpoint: string;
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
   * The completion limit reserved for token prices, the first present field counting; every field listed is checked (a whole number from 1) and one above the model's `max_output_tokens` is lowered to it in the body sent, or refused per the model's `over_limit`.
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
  /**
   * String fields whose length in characters (Unicode code points) are the request's units: a `per_call` price is then per character (bounds: the model's `price.units`).
   *
   * @minItems 1
   */
  characters?: [string, ...string[]];
  /**
   * Arrays whose length counts the request's billable items (a rerank's `documents`), the first present one counting: the units are that count over the model's `price.units.per_items`, rounded up (a `per_call` price is then per unit, e.g. per search of up to 100 documents); with the model's `price.units.item_tokens`, an item longer than that many tokens (estimated from its bytes at `billing.prompt_bytes_per_token`, the `item_context` fields' bytes added to each) counts once per chunk begun. Bounded by the model's `price.units`; outside them is 400 naming the field.
   *
   * @minItems 1
   */
  items?: [string, ...string[]];
  /**
   * Fields sent beside every item of `items` (a rerank's `query`, scored with each document): their bytes count toward each item's length when the model's `price.units.item_tokens` splits long items into chunks.
   *
   * @minItems 1
   */
  item_context?: [string, ...string[]];
  /**
   * Uploaded files (multipart) whose audio duration, read from the file's own header (WAV, MP3, FLAC, Ogg, MP4/M4A, WebM), is the billable seconds: a `per_second` price reserves exactly it, an `input_tokens_per_second` price its tokens; a file whose duration cannot be read is refused with 400 before anything is reserved (bounds: the model's `price.seconds`).
   *
   * @minItems 1
   */
  media_seconds?: [string, ...string[]];
}
/**
 * Answers kept per owner in the store so a later request may continue them (and `stored` routes may read or delete them).
 */
export interface ConversationStore {
  /**
   * Store namespace of the records.
   */
  namespace: string;
  /**
   * Body field that turns keeping off when it is false (kept when absent).
   */
  enabled_by?: string;
  /**
   * Body field naming a kept record this request continues (its conversation is $previous).
   */
  continues?: string;
  /**
   * How long a record is kept (default 30 days).
   */
  ttl_s?: number;
  /**
   * Largest conversation kept or continued, in bytes (default 16 MiB): a longer one is refused with 400.
   */
  max_bytes?: number;
}
/**
 * How a `relay` route answers audio: the format the client picks, whether it asked for events instead of bytes, and the route's events. The vendor's answer passes untouched where it already is what the client asked; a vendor that sends audio inside its own events (its operation's `audio`), or events where the client asked for bytes, has them decoded chunk by chunk (never held whole).
 */
export interface RouteAudio {
  /**
   * Body fields naming the audio format the client wants (the first present).
   *
   * @minItems 1
   */
  format_at: [string, ...string[]];
  /**
   * The format when the body names none.
   */
  default_format: string;
  /**
   * The Content-Type of each format the route answers in bytes.
   */
  content_types: {
    [k: string]: string;
  };
  /**
   * The body field asking for events instead of bytes, and the value that does (`stream_format: sse`).
   */
  events_at?: {
    field: string;
    value: string | boolean;
  };
  /**
   * The route's audio event: its `type` and the field holding a base64 chunk (`{"type": "speech.audio.delta", "audio": "…"}`).
   */
  delta: {
    type: string;
    data: string;
  };
  /**
   * JSONata: the route's last event when the vendor's events are not the route's own, from `$usage` (`prompt_tokens`, `completion_tokens`, absent when the vendor reported none).
   */
  done?: string;
}
/**
 * A `realtime` route: a WebSocket (GET with `Upgrade: websocket`) relayed to the vendor's WebSocket (the channel's operation of the route's `operation`, its path with `{model}`), frames passed both ways untouched apart from the key. The model is the route's `model_expr` (the `model` query parameter) or the client secret's. Before the vendor is dialled a hold is reserved (a turn's prompt and the model's output limit at their dearest rates); each event named in `charges` is charged when it arrives and the hold taken again for what may come next, topped up from the balance when a response cost more; a balance that runs out ends the session with the `error` event. A session ends (its money settled, its vendor socket closed) when either side leaves, after `idle_s` without a frame, after `max_session_s`, or at a stop.
 */
export interface RealtimeRoute {
  /**
   * The subprotocol the gateway answers with when the client offers it (`realtime`): a browser that offers subprotocols needs one chosen.
   */
  subprotocol?: string;
  /**
   * A subprotocol prefix carrying the key, for browsers that cannot set headers (`openai-insecure-api-key.` + the key or a client secret); never echoed back.
   */
  key_subprotocol?: string;
  /**
   * Server events that carry usage, by `type`: each is charged as it arrives, read by the named usage paths (routes.yaml `usage`), at the session model's price, or, with `model_at`, at the price of the model the session names at that path of its `session_events` (a transcription model; a session naming an unpriced one is ended).
   */
  charges: {
    [k: string]: {
      usage: string;
      model_at?: string;
    };
  };
  /**
   * Server event types whose `session` field is the session's settings (where `model_at` is read).
   */
  session_events?: string[];
  /**
   * The events that open and close a response, and the client event that cancels one: a client that leaves mid-response has the vendor asked to cancel it and its closing event (with its usage) awaited for a few seconds, so what it cost is charged.
   */
  response?: {
    created: string;
    done: string;
    /**
     * JSONata: the cancel event.
     */
    cancel: string;
  };
  /**
   * JSONata: the event telling the client why the gateway ends its session (bindings $type, $code, $message).
   */
  error: string;
  /**
   * Longest a session may last (default 3600).
   */
  max_session_s?: number;
  /**
   * A session with no frame either way for this long is ended (default 600).
   */
  idle_s?: number;
  /**
   * Sessions one token may have open at once across every instance (default 8); one more is 429.
   */
  max_sessions_per_token?: number;
  /**
   * Largest frame either side may send (default 16 MiB: a vendor's 15 MiB audio event and its JSON); a larger one ends the session (close code 1009).
   */
  max_frame_bytes?: number;
  /**
   * Prompt tokens a new turn may add beyond the last response's input and output, in each hold (default 4096).
   */
  turn_tokens?: number;
}
/**
 * A `client_secret` route mints a short-lived secret that stands for the caller's token on the routes in `for` only (a browser then holds it, never the long-lived key): random, kept hashed in the store until it expires, answered once. A secret opens sessions until it expires; a session outlives it. Revoking the token ends what its secrets can open.
 */
export interface ClientSecretRoute {
  /**
   * Route ids a secret opens.
   *
   * @minItems 1
   */
  for: [string, ...string[]];
  /**
   * What every secret starts with (`ek_`): the key is looked up as a secret only then.
   */
  prefix: string;
  /**
   * Body field of the secret's lifetime in seconds.
   *
   * @minItems 1
   */
  ttl_at?: [string, ...string[]];
  default_ttl_s?: number;
  min_ttl_s?: number;
  max_ttl_s?: number;
  /**
   * Body field naming the model a secret is for: it opens that model only.
   *
   * @minItems 1
   */
  model_at?: [string, ...string[]];
  /**
   * Body field of the session settings a secret carries: sent to the vendor as the first event of each session it opens (`update`).
   *
   * @minItems 1
   */
  session_at?: [string, ...string[]];
  /**
   * JSONata: the event carrying the secret's session settings ($session) to the vendor when it opens a session.
   */
  update?: string;
  /**
   * JSONata: the answer ($value, $expires_at in unix seconds, $session).
   */
  answer: string;
}
/**
 * What an `upload` route of policy `files` accepts: batch input files (OpenAI's JSON Lines of requests), each checked line by line as it is read from the spooled upload (never held in memory), then streamed to the channel that will run its batch.
 */
export interface FilesRoute {
  /**
   * The `purpose` an upload must name (OpenAI's `batch`); any other is refused with 400.
   */
  purpose: string;
  /**
   * What a line may call: its `url` → the id of the route whose body schema, price inputs and usage paths its `body` follows (and whose operation its model must be served for). A line naming another url is refused, naming the line.
   */
  lines: {
    [k: string]: string;
  };
  /**
   * The task operation the file's requests run on (`batch`): the file goes to a channel of the caller's group whose this operation serves the lines' model (and which has this route's operation, to store it). A model no such channel serves is refused, naming the line.
   */
  operation: string;
  /**
   * Requests a file may hold (default 50,000, OpenAI's limit).
   */
  max_lines?: number;
  /**
   * Bytes the file may hold (default 200 MB, OpenAI's limit for a batch input file); the route's `limits.max_body_bytes` bounds the whole form.
   */
  max_bytes?: number;
  /**
   * Bytes one line may hold (default: the `limits.max_body_bytes` of the route it follows, plus 64 KiB for its envelope).
   */
  max_line_bytes?: number;
  /**
   * How long a file is kept (the gateway's record, and the vendor's copy through the form's `expires_after[seconds]`).
   */
  expires_s?: {
    /**
     * When the upload names none (default 30 days, OpenAI's for batch files).
     */
    default?: number;
    /**
     * Shortest accepted (default 3600).
     */
    min?: number;
    /**
     * Longest accepted (default 30 days).
     */
    max?: number;
  };
}
/**
 * One client-facing API format and its translations to and from the unified format (OpenAI chat completions).
 */
export interface Dialect {
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
