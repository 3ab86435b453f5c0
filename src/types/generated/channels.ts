/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Rates by prompt size, as vendors bill long prompts: when a request's prompt tokens (every input class, cache reads and writes included) are more than a tier's `above`, the whole request is charged at that tier's rates (the last such tier). A tier replaces the token rates it names.
 *
 * @minItems 1
 */
export type PriceTiers = [PriceTier, ...PriceTier[]];
export type PriceDimension = PriceDimension1 & PriceDimension2;
export type PriceDimension1 = {
  [k: string]: unknown;
};
/**
 * How one operation reaches the upstream. Omit the JSONata slots when the vendor speaks the unified format: the body then passes untouched.
 */
export type Operation = Operation1 & Operation2;
export type Operation1 = {
  [k: string]: unknown;
};
/**
 * How to find a task whose submit was cut before the vendor answered (the gateway process died mid-submit): ask the vendor by the gateway's own task id, which the `request` transform sent along (e.g. as a client reference). Without it such a task is refunded and marked failed.
 */
export type Reconcile = Reconcile1 & Reconcile2;
export type Reconcile1 = {
  [k: string]: unknown;
};

/**
 * channels.yaml: groups, model prices, and the upstream channels that serve them.
 */
export interface ChannelsFile {
  /**
   * Config format version.
   */
  version: 1;
  dispatch?: DispatchSettings;
  billing?: BillingSettings;
  /**
   * Token groups by name. A token belongs to one group; a group may use the channels that list it.
   */
  groups: {
    [k: string]: Group;
  };
  /**
   * Public model names with their price. A model without an entry here cannot be served.
   */
  models: {
    [k: string]: Model;
  };
  /**
   * Reusable channel fragments (e.g. an OpenAI-compatible vendor), named by `extends` on a channel.
   */
  templates?: {
    [k: string]: ChannelTemplate;
  };
  /**
   * Upstream channels.
   */
  channels: Channel[];
  tasks?: TaskSettings;
  callbacks?: CallbackSettings;
}
/**
 * Gateway-wide dispatch settings.
 */
export interface DispatchSettings {
  /**
   * Channels tried per request before giving up (default 3).
   */
  max_attempts?: number;
  /**
   * How long a token record is cached in memory; a revoke takes effect within this bound (default 2000).
   */
  token_cache_ms?: number;
  /**
   * Time limit for one JSONata evaluation, in wall-clock time (default 1000). A transform takes well under a millisecond; the limit stops one that runs away. It is generous because wall time stretches when the process is busy or starved of CPU, and a stream transform that trips it cuts the stream.
   */
  transform_timeout_ms?: number;
  /**
   * How long an open circuit breaker skips its channel before one probe request is let through (default 30000).
   */
  breaker_open_ms?: number;
  /**
   * The sliding window over which a channel's failure rate is measured (default 60000).
   */
  breaker_window_ms?: number;
  /**
   * Requests a channel must have had in the window before its failure rate can open the breaker (default 20): one bad answer never takes a model down.
   */
  breaker_min_requests?: number;
  /**
   * The share of failed requests (5xx, timeouts, connect errors, 401/403) in the window that opens the breaker (default 0.5). 429s are back-pressure, not failures: the channel is skipped for its Retry-After.
   */
  breaker_failure_rate?: number;
}
/**
 * How token usage is estimated before the upstream reports it, and the calendar and alerts of budgets.
 */
export interface BillingSettings {
  /**
   * Prompt tokens are estimated as request body bytes divided by this, for the reservation and for streams that end without usage (default 4). A charge never exceeds its reservation; usage beyond it is recorded as uncharged.
   */
  prompt_bytes_per_token?: number;
  /**
   * Quota units per US dollar, for the dollar figures token holders' front-ends show (`/v1/dashboard/billing/*`) and the admin usage report. The shipped prices make one unit a tenth of a cent.
   */
  units_per_usd?: number;
  /**
   * The IANA time zone whose calendar budget periods (day, week from Monday, month) follow: a team's budget and a token's or member's cap for a period reset at local midnight there (default UTC).
   */
  time_zone?: string;
  budget_alerts?: BudgetAlertSettings;
}
/**
 * Alerts when a team's budget, a member's cap or a token's cap for a period passes a share of itself: one event per threshold, period and account across every instance, as a log line and, when `webhook_url` is set, a signed webhook.
 */
export interface BudgetAlertSettings {
  /**
   * Percentages of the period's budget at which an alert is sent (default 50, 80, 100).
   *
   * @minItems 1
   * @maxItems 10
   */
  thresholds?: [number, ...number[]];
  /**
   * Where alerts are POSTed as JSON (retried with back-off; never on a request's path).
   */
  webhook_url?: string;
  /**
   * The HMAC-SHA256 key that signs each webhook body (header X-Switchyard-Signature); use ${env:NAME} to keep it out of the file.
   */
  webhook_secret?: string;
}
/**
 * A token group.
 */
export interface Group {
  /**
   * What the group is for.
   */
  description?: string;
  rate_limit?: RateLimit;
  /**
   * Per-token limit on tokens (prompt plus completion, as billed) over the last minute, on every route that reaches a vendor, counted in the shared store by every instance together. A request is counted when it settles, so requests in flight when the minute's tokens run out still finish and count; the next ones are refused with too_many_requests (429, Retry-After) until enough of the minute's usage is older than a minute. A token's own `tokens_per_minute` replaces it.
   */
  tokens_per_minute?: number;
  /**
   * Most unfinished upstream tasks the group may have at once; more are refused with too_many_requests.
   */
  max_inflight_tasks?: number;
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
 * A public model and its price in quota units.
 */
export interface Model {
  /**
   * Shown in /v1/models.
   */
  owned_by?: string;
  /**
   * The model's largest completion: reserved when the request sets no limit, and the most a request gets (a larger `max_tokens` is lowered to it, or refused with `over_limit: refuse`). Default 4096.
   */
  max_output_tokens?: number;
  /**
   * What a request whose completion limit (the route's `price_inputs.completion_tokens`) exceeds `max_output_tokens` gets: `clamp` (default) lowers it to the maximum, in the reservation and in the body sent, and says so in `x-switchyard-clamped`; `refuse` answers 400 naming the field.
   */
  over_limit?: 'clamp' | 'refuse';
  price: Price;
  /**
   * Extra request schema (in schemas/api/) checked for this model after the route's: a family's own rules.
   */
  body_schema?: string;
  /**
   * Left out of /v1/models (e.g. a pseudo-model that only prices an auxiliary route).
   */
  hidden?: boolean;
}
/**
 * Quota units charged: token rates per million tokens by class, tiers by prompt size, per call (or image), per second of media, and variants by request field (service tier, resolution, mode, audio), as the vendor's price page has them.
 */
export interface Price {
  /**
   * Units per million prompt tokens: the same as `tokens.input` (an older form, still read).
   */
  input_per_mtok?: number;
  /**
   * Units per million completion tokens: the same as `tokens.output` (an older form, still read).
   */
  output_per_mtok?: number;
  tokens?: TokenRates;
  tiers?: PriceTiers;
  /**
   * Units per request or task, times the request's units (`price_inputs.units`, e.g. `n` images): a price per call, or per image.
   */
  per_call?: number;
  /**
   * Units per second of generated media (tasks).
   */
  per_second?: number;
  /**
   * Seconds the `per_call` price covers before `per_second` counts (a vendor's "starts at N for the first two seconds, then +M a second"); default 0.
   */
  included_seconds?: number;
  /**
   * Output tokens one second of generated media makes, for a vendor that bills media by tokens (e.g. width × height × frames / 1024): what a task reserves per second asked, at its dearest output rate. The charge is the tokens the vendor reports.
   */
  tokens_per_second?: number;
  /**
   * Input tokens one second of uploaded media makes (audio a transcription reads, at the vendor's own rate): what a request reserves for its upload (the route's `price_inputs.media_seconds`), at its dearest input rate. The charge is the tokens the vendor reports.
   */
  input_tokens_per_second?: number;
  /**
   * Bounds of the billable seconds a request may ask for (read from the route's `price_inputs.seconds` fields); anything outside is refused with 400 before anything is reserved.
   */
  seconds?: {
    /**
     * Smallest value accepted (default 1).
     */
    min?: number;
    /**
     * Largest value accepted (default 60).
     */
    max?: number;
    /**
     * The value charged when the request names none (default 5).
     */
    default?: number;
  };
  /**
   * Bounds of the billable units a request may ask for (the route's `price_inputs.units`, e.g. `n` images); anything outside is refused with 400.
   */
  units?: {
    /**
     * Items one unit covers, for a route counting items (`price_inputs.items`, a rerank's documents): the units are the items over this, rounded up (Cohere: a search is up to 100 documents; default 1).
     */
    per_items?: number;
    /**
     * Tokens one item may have before it counts as several (the vendor splits it into chunks of this many, each billed as an item; Cohere: 500 with the query). The reservation estimates each item's tokens from its bytes; the charge is what the vendor reports.
     */
    item_tokens?: number;
    /**
     * Smallest value accepted (default 1).
     */
    min?: number;
    /**
     * Largest value accepted (default 10).
     */
    max?: number;
    /**
     * The value charged when the request names none (default 1).
     */
    default?: number;
  };
  /**
   * Prices by what a request asks for: every variant whose `when` matches, in order, replaces the price fields it names (token rates class by class), adds its `add` surcharges and multiplies by its `multiply`. The chosen price is fixed when the request is priced, so the reservation and the charge (a task's too) follow it.
   *
   * @minItems 1
   */
  variants?: [PriceVariant, ...PriceVariant[]];
  /**
   * Request fields the vendor bills by (service tier, resolution, mode, audio, quality, size): each is read from the body before anything is reserved, and a value the price does not list is refused with 400 naming the field, so no request is served at a price that does not cover it. `variants` price each value.
   */
  dimensions?: {
    [k: string]: PriceDimension;
  };
  /**
   * The vendor's own billing unit (Kling's units, Vidu's credits), for reconciliation: what the vendor reports it charged, times `units`, is kept beside the gateway's charge.
   */
  vendor_unit?: {
    name: string;
    /**
     * Quota units one vendor unit is worth.
     */
    units: number;
  };
  batch?: PriceBatch;
}
/**
 * Units per million tokens of each class the vendor prices apart. The classes part a request's tokens without overlap: `input` (uncached text), `cached_input` (prompt-cache reads), `cache_write` (prompt-cache writes; `cache_write_5m`, `cache_write_1h`… where the vendor reports and prices them by lifetime), `input_audio` and `input_image` (uncached), `cached_input_audio`, `cached_input_image`, `output` (text), `reasoning`, `output_audio`, `output_image`. A class the price leaves out is charged at the rate it falls back to: cached_input, cache_write, input_audio and input_image → input; cache_write_<lifetime> → cache_write; cached_input_audio → input_audio where the price names it, else cached_input (and images alike); reasoning, output_audio and output_image → output.
 */
export interface TokenRates {
  /**
   * This interface was referenced by `TokenRates`'s JSON-Schema definition
   * via the `patternProperty` "^(input|cached_input|cache_write(_[0-9]+[mhd])?|input_audio|cached_input_audio|input_image|cached_input_image|output|reasoning|output_audio|output_image)$".
   */
  [k: string]: number;
}
export interface PriceTier {
  /**
   * Prompt tokens above which the tier applies.
   */
  above: number;
  tokens: TokenRates;
}
export interface PriceVariant {
  /**
   * The dimension values that select the variant (`{ mode: pro, sound: "on" }`; a list matches any of its values); every one named must match. The older form `{ field, in }` reads a body field directly.
   */
  when: PriceCondition | PriceFieldCondition;
  tokens?: TokenRates;
  tiers?: PriceTiers;
  /**
   * Units per request or task (or image), instead of the model's.
   */
  per_call?: number;
  /**
   * Units per second of generated media, instead of the model's.
   */
  per_second?: number;
  /**
   * Seconds the `per_call` price covers, instead of the model's.
   */
  included_seconds?: number;
  /**
   * Output tokens per second of media, instead of the model's.
   */
  tokens_per_second?: number;
  /**
   * Surcharges added to the price chosen so far, instead of replacing it (an audio track billed on top of whatever the resolution costs): units per call, per second.
   */
  add?: {
    per_call?: number;
    per_second?: number;
  };
  /**
   * A factor on every rate of the request (e.g. 2 for a vendor's priority tier billed at twice the standard rate).
   */
  multiply?: number;
}
export interface PriceCondition {
  [k: string]: string | number | boolean | [string | number | boolean, ...(string | number | boolean)[]];
}
export interface PriceFieldCondition {
  /**
   * Dotted path of a request body field.
   */
  field: string;
  /**
   * The values of the field that select this variant.
   *
   * @minItems 1
   */
  in: [string | number | boolean, ...(string | number | boolean)[]];
}
export interface PriceDimension2 {
  /**
   * Dotted body paths the field may be at (e.g. `resolution`, `metadata.resolution`; `content[type=video_url]` picks an array's element by a field). Every path present must say the same (a request that says two things is refused).
   *
   * @minItems 1
   */
  at: [string, ...string[]];
  /**
   * The values priced (strings compare without case; a number written as a string is that number). Absent with `present`.
   *
   * @minItems 1
   */
  values?: [string | number | boolean, ...(string | number | boolean)[]];
  /**
   * The value a request that names none gets from the vendor (one of `values`).
   */
  default?: string | number | boolean;
  /**
   * The dimension is whether any of its paths is present (true or false), not a value.
   */
  present?: true;
}
/**
 * The model's price when its requests run through the vendor's Batch API (a route's `task.input_file`): laid over its standard price as a variant is (token rates class by class, the rest replaced, `multiply` a factor on every rate), e.g. `{ multiply: 0.5 }` for a vendor that bills a batch at half its standard rates. A model without it has no batch price: a batch of its requests is refused before anything is reserved.
 */
export interface PriceBatch {
  tokens?: TokenRates;
  tiers?: PriceTiers;
  /**
   * Units per request of the batch, instead of the model's.
   */
  per_call?: number;
  /**
   * A factor on every rate (0.5: half the standard price).
   */
  multiply?: number;
}
/**
 * Fields a channel inherits with `extends`; the channel's own fields win.
 */
export interface ChannelTemplate {
  /**
   * Upstream origin, e.g. https://api.openai.com. May use ${env:NAME} or ${env:NAME:-default}.
   */
  base_url?: string;
  /**
   * Groups allowed to use this channel.
   *
   * @minItems 1
   */
  groups?: [string, ...string[]];
  /**
   * Public model names served by a channel that does not list its own.
   *
   * @minItems 1
   */
  models?: [string, ...string[]];
  /**
   * Public model name → upstream model name.
   */
  model_map?: {
    [k: string]: string;
  };
  auth?: Auth;
  headers?: Headers;
  timeouts?: Timeouts;
  operations?: Operations;
  /**
   * The vendor's name in traces (gen_ai.provider.name): OpenTelemetry's well-known value where there is one (openai, anthropic, gcp.gemini, aws.bedrock, …). Default: the name of the vendor file the channel extends.
   */
  telemetry_provider?: string;
  /**
   * The vendor lives on a network the operator trusts (a self-hosted model server, the bundled simulator): result URLs it reports may point to private, loopback or link-local addresses. Default false: such URLs are refused, so a vendor's answer cannot make the gateway fetch from its own network.
   */
  private_network?: boolean;
  probe?: Probe;
}
/**
 * How the gateway authenticates to the upstream. `bearer`: Authorization: Bearer <key>; `header`: <header>: <prefix><key>; `jwt_hs256`: Authorization: Bearer <JWT signed with secret, iss=key, exp, nbf>, minted once per key pair and reused until a minute before it expires; `hmac_v4`: a V4 request signature (HMAC-SHA256 over method, path, sorted query, signed headers and body hash; key = access key, secret = secret key, region and service from here); `none`. `jwt_hs256` and `hmac_v4` need `secret`; `hmac_v4` also needs `region` and `service`.
 */
export interface Auth {
  /**
   * Auth scheme. Required here or in the template the channel extends.
   */
  scheme?: 'bearer' | 'header' | 'jwt_hs256' | 'none' | 'hmac_v4';
  /**
   * The secret, normally ${env:NAME}. Never logged.
   */
  key?: string;
  /**
   * Header name for scheme `header`.
   */
  header?: string;
  /**
   * Text before the key for scheme `header`, e.g. `Token `.
   */
  prefix?: string;
  /**
   * Signing secret for `jwt_hs256` and `hmac_v4` (required by both), normally ${env:NAME}. Never logged.
   */
  secret?: string;
  /**
   * Lifetime of a minted `jwt_hs256` token in seconds (default 1800); a token is reused until 60 s before it expires.
   */
  ttl_s?: number;
  /**
   * Signing region for `hmac_v4`, part of the credential scope and of the signing-key chain, e.g. cn-north-1. Required with `hmac_v4`, no default: take it from the vendor's API docs.
   */
  region?: string;
  /**
   * Signing service for `hmac_v4`, part of the credential scope and of the signing-key chain, e.g. cv (the visual API). Required with `hmac_v4`, no default: take it from the vendor's API docs.
   */
  service?: string;
}
/**
 * Static headers sent to the upstream.
 */
export interface Headers {
  [k: string]: string;
}
/**
 * Upstream timeouts in milliseconds.
 */
export interface Timeouts {
  /**
   * TCP/TLS connect (default 5000).
   */
  connect_ms?: number;
  /**
   * From request sent to response headers (default 60000).
   */
  first_byte_ms?: number;
  /**
   * Longest gap between body chunks (default 120000).
   */
  idle_ms?: number;
}
/**
 * Operations (see routes.yaml `operation`) this channel implements.
 */
export interface Operations {
  [k: string]: Operation;
}
export interface Operation2 {
  /**
   * Upstream path, appended to base_url. `{model}` is replaced by the upstream model.
   */
  path?: string;
  /**
   * Upstream path of a streamed request (policy `stream` with stream set), when the vendor streams on another path (e.g. Gemini's `/v1beta/models/{model}:streamGenerateContent?alt=sse`). Default: `path`.
   */
  stream_path?: string;
  /**
   * The channel's models this operation serves (default: all of them). A vendor that serves several kinds of model on one key (chat and embeddings) names which go where, so a chat model is never sent to the embeddings path; a model outside the list is `model_not_found` for this operation.
   *
   * @minItems 1
   */
  models?: [string, ...string[]];
  /**
   * JSONata: unified request → vendor request body, an object (see schemas/transform/vendor-request.json). Bindings: $model (upstream model), and by policy: stream $stream; task $task_id (the gateway's task id); json $params, $query.
   */
  request?: string;
  /**
   * JSONata: vendor answer → what the policy needs. Stream (chat): the chat.completion, bindings $model (the public model) (see schemas/transform/chat-completion.json). Task submit: {upstream_id | id, status?, progress?, result_url?, error?, reject?: {status, body}, vars?, extra?}, bindings $model (upstream model), $task_id, $path (the submit path), $request (the client's body), $operation (see schemas/transform/task-submit-result.json). json: the client's body, bindings $params, $query, $model (public), $upstream_model, $request; task relay: the client's body, binding $task_id (see schemas/transform/json-answer.json).
   */
  response?: string;
  /**
   * JSONata: one vendor stream event (parsed JSON) → unified chunk, an array of chunks, or nothing to drop it; binding $model (the public model) (see schemas/transform/chat-chunk.json).
   */
  chunk?: string;
  /**
   * JSONata: the upstream path computed from the unified request, when one static path is not enough; bindings as for `request` without $stream (see schemas/transform/vendor-path.json).
   */
  path_expr?: string;
  /**
   * Upstream request body encoding (default json).
   */
  encoding?: 'json' | 'multipart';
  /**
   * Vendor status → unified status (queued, in_progress, completed, failed). Unlisted statuses leave the task unchanged.
   */
  status_map?: {
    [k: string]: 'queued' | 'in_progress' | 'completed' | 'failed';
  };
  poll?: Poll;
  content?: Content;
  reconcile?: Reconcile;
  /**
   * The dialect the vendor speaks for this operation (a key of routes.yaml `dialects`, with a `vendor` side); absent: the unified format. Such an operation takes its transforms from the dialect.
   */
  dialect?: string;
  /**
   * Another operation of this channel that this one stands in for when the route's clients speak this operation's `dialect`: their bytes then pass untouched to this path (usage read by the dialect's `usage`), while every other client goes through the named operation, translated. Such an operation needs only the dialect's client side; it serves the models of the one it stands in for (or its own `models`, a subset).
   */
  instead_of?: string;
  cancel?: Cancel;
  delete?: Delete;
  usage?: UsagePaths;
  audio?: OperationAudio;
  results?: TaskResults;
  /**
   * A task of this operation not finished after this long fails as timed out and is refunded, instead of after `tasks.max_age_s`: for a vendor that may take longer than that and bills what it did (a batch runs for its whole window, then expires and is billed for the requests it ran).
   */
  max_age_s?: number;
}
/**
 * How a task submitted through this operation is refreshed.
 */
export interface Poll {
  /**
   * HTTP method (default GET).
   */
  method?: 'GET' | 'POST';
  /**
   * Upstream path; `{upstream_id}`, `{model}` and any `{name}` from the task's vars (set by the submit or poll `response` as `vars`) are replaced.
   */
  path: string;
  /**
   * JSONata: body for POST polls, run on {} (bindings $upstream_id, $upstream_ids: the batch's ids, $model: upstream model) (see schemas/transform/vendor-request.json).
   */
  request?: string;
  /**
   * JSONata: vendor answer → {status, progress?, result_url?, result_urls?, error?, vars?, extra?}, or an array of them each with upstream_id for batch polls (bindings as for `request`, plus $http_status) (see schemas/transform/poll-result.json).
   */
  response: string;
  /**
   * Poll up to this many tasks of the channel in one request (`$upstream_ids`).
   */
  batch?: number;
}
/**
 * Where a completed task's result is fetched from.
 */
export interface Content {
  /**
   * Upstream path with `{upstream_id}` and `{name}` task vars, fetched with the channel's auth; without it the stored result URL is fetched.
   */
  path?: string;
  /**
   * JSONata: when set, `path` answers JSON and this picks the http(s) URL to stream from it, e.g. a file-retrieve API (see schemas/transform/content-url.json).
   */
  resolve?: string;
}
export interface Reconcile2 {
  /**
   * HTTP method (default GET).
   */
  method?: 'GET' | 'POST';
  /**
   * Upstream path; `{task_id}` is the gateway's task id.
   */
  path?: string;
  /**
   * JSONata: the path, when it depends on the submit; run on {} (bindings $task_id, $path: the submit path, $model: upstream model) (see schemas/transform/vendor-path.json).
   */
  path_expr?: string;
  /**
   * JSONata: the vendor's answer → a poll result ({upstream_id, status, vars?, …}) when it knows the task, or nothing when it does not (bindings $task_id, $path, $model, $http_status) (see schemas/transform/reconcile-result.json).
   */
  response: string;
}
/**
 * How to cancel an unfinished task of this operation at the vendor, when its owner deletes it: one call with the channel's auth and no body. A 2xx answer means cancelled: the task fails and its reservation is refunded. Without it, deleting an unfinished task is refused with 400 until it has finished.
 */
export interface Cancel {
  /**
   * HTTP method.
   */
  method: 'DELETE' | 'POST';
  /**
   * Upstream path; `{upstream_id}`, `{model}` and the task's `{name}` vars are replaced.
   */
  path: string;
  /**
   * Whether a 2xx answer ends the task as cancelled, failed and refunded (default true). `false`: the vendor goes on to end the task itself (a batch moves to cancelling, then cancelled with what it ran): the task is polled as before and settled as the vendor ends it.
   */
  ends_task?: boolean;
}
/**
 * How to delete a finished task's result at the vendor when its owner deletes the task: one call with the channel's auth and no body (a 404 means already gone). Without it only the gateway's record is removed.
 */
export interface Delete {
  /**
   * HTTP method.
   */
  method: 'DELETE' | 'POST';
  /**
   * Upstream path; `{upstream_id}`, `{model}` and the task's `{name}` vars are replaced.
   */
  path: string;
}
/**
 * Where this operation's vendor answers carry usage, when they are in neither the unified format nor the operation's dialect (see routes.yaml `usage`): read from the vendor's own answer, before any transform.
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
/**
 * A vendor that sends its audio inside events (SSE, or one JSON answer), base64 or hex at a path of each event, instead of the route's own events or bytes: the gateway decodes each chunk as it comes into the bytes the client asked for, or into the route's events (routes.yaml `audio`).
 */
export interface OperationAudio {
  /**
   * Dotted paths of an event's audio chunk (the first present; `candidates.0.content.parts.0.inlineData.data`).
   *
   * @minItems 1
   */
  data: [string, ...string[]];
  /**
   * How a chunk is written (default base64).
   */
  encoding?: 'base64' | 'hex';
  /**
   * What the decoded bytes are, when the vendor sends one format whatever was asked (`pcm`, `mp3`); absent: the format the client asked, passed on by the request transform.
   */
  format?: string;
  /**
   * The layout of raw PCM (`format: pcm`): a client asking `wav` gets a WAV header before the samples.
   */
  pcm?: {
    rate: number;
    channels?: number;
    bits?: 8 | 16 | 24 | 32;
  };
}
/**
 * Files of JSON Lines a finished task leaves at the vendor (a batch's output and error files): when the vendor says the task has ended, each is read as it streams, and every line that reports success is charged from the usage of its answer at the task's price (the lines' charges summed, then rounded up once; never above the reservation). Each file then becomes a file of the task's owner (readable on the files routes); its id is kept in the task's `extra` under the var's name. A file that cannot be read now is read again at the next poll: the task is settled only once it has been.
 */
export interface TaskResults {
  /**
   * The operation of the same channel that holds files (its `content.path` reads a file by `{upstream_id}`, its `delete` removes one): the result files are read and served through it.
   */
  operation: string;
  /**
   * Task vars (set by the poll's `vars`) holding the vendor's id of each result file, each with the name its file gets (after the task's id, e.g. `output.jsonl`).
   */
  files: {
    [k: string]: string;
  };
  /**
   * The purpose the result files are listed with (default `batch_output`).
   */
  purpose?: string;
  /**
   * Dotted path, in one line, of the HTTP status its request got (a 2xx line is charged; any other is not).
   */
  status_at: string;
  /**
   * Dotted path, in one line, of its request's answer, whose usage is read at the route's usage paths for the line's endpoint.
   */
  answer_at: string;
  /**
   * How long the result files are kept (the vendor's own retention of them; default 30 days).
   */
  expires_s?: number;
}
/**
 * The channel's cheapest read-only call (a model or task list), sent by `switchyard check --probe` with the channel's real credentials through the same transport as traffic (base URL, headers, auth scheme, connect timeout), so a wrong key or an unreachable vendor shows before traffic does. It must cost nothing: never a generation. An answer is judged in this order: a connect failure or timeout is `unreachable`; an answer `auth_failed_when` holds for is `auth failed`; a status in `ok_status` (default: any 2xx) is `ok`; 401 and 403 are `auth failed`; 429 is `rate limited` (throttled or out of credit: the key is not confirmed); 5xx is `vendor error`; anything else is `unexpected` (a wrong `path`, or an `ok_status` to add). Only the status, the vendor's error code and the time are printed, never its body; both pass the redactor.
 */
export interface Probe {
  /**
   * `GET`, or `POST` for a vendor whose read-only queries are POSTs (a batch task query with no ids).
   */
  method: 'GET' | 'POST';
  /**
   * Path and query on the channel's base URL, e.g. `/v1/models`. May use ${env:NAME}.
   */
  path: string;
  /**
   * The JSON body of a `POST` probe, e.g. `{ids: []}`; signed like any body where the auth scheme signs bodies.
   */
  body?: {};
  /**
   * The statuses that prove the key was accepted (default: any 2xx). A probe that asks for a made-up task id lists the vendor's not-found status too (e.g. `[200, 404]`), for a vendor that checks the key before the id.
   *
   * @minItems 1
   */
  ok_status?: [number, ...number[]];
  /**
   * JSONata on the answer's JSON body (binding $status): true when the vendor refused the key in an answer whose status does not say so, e.g. a 400 whose `error.details` name an invalid key, or a 200 with a non-zero business code.
   */
  auth_failed_when?: string;
  /**
   * How long the probe waits for the answer once connected (default 10000); the connect timeout is the channel's `timeouts.connect_ms`.
   */
  timeout_ms?: number;
}
/**
 * One upstream endpoint with its credentials and the models it serves.
 */
export interface Channel {
  /**
   * Unique channel id (snake_case).
   */
  id: string;
  /**
   * Templates this channel inherits, by name: an entry of `templates`, or a vendor defined once in a file of its own, `vendors/<name>.yaml` (the config directory's `vendors/` first, then the install's). A list is applied left to right; the channel's own fields win over all. `headers`, `timeouts`, `operations` and `model_map` merge key by key; `auth` too while the scheme stays the same (so a channel may give only its `key` and `secret`), and a different `scheme` replaces the whole `auth`.
   */
  extends?: string | [string, ...string[]];
  /**
   * A disabled channel is never selected (default true).
   */
  enabled?: boolean;
  /**
   * Upstream origin, e.g. https://api.openai.com. May use ${env:NAME} or ${env:NAME:-default}. Required here or in the template.
   */
  base_url?: string;
  auth?: Auth;
  headers?: Headers;
  /**
   * Groups allowed to use this channel. Required here or in the template.
   *
   * @minItems 1
   */
  groups?: [string, ...string[]];
  /**
   * Public model names served. Required here or in the template (a vendor file's template serves every model the file prices).
   *
   * @minItems 1
   */
  models?: [string, ...string[]];
  /**
   * Public model name → upstream model name.
   */
  model_map?: {
    [k: string]: string;
  };
  /**
   * Higher priorities are tried first (default 0).
   */
  priority?: number;
  /**
   * Relative share among channels of equal priority (default 1).
   */
  weight?: number;
  timeouts?: Timeouts;
  operations?: Operations;
  /**
   * Most concurrent upstream connections to this channel (default unlimited); each open stream holds one.
   */
  max_connections?: number;
  /**
   * The vendor's name in traces (gen_ai.provider.name): OpenTelemetry's well-known value where there is one (openai, anthropic, gcp.gemini, aws.bedrock, …). Default: the name of the vendor file the channel extends.
   */
  telemetry_provider?: string;
  /**
   * The vendor lives on a network the operator trusts (a self-hosted model server, the bundled simulator): result URLs it reports may point to private, loopback or link-local addresses. Default false: such URLs are refused, so a vendor's answer cannot make the gateway fetch from its own network.
   */
  private_network?: boolean;
  probe?: Probe;
}
/**
 * The background task poller and task lifetimes.
 */
export interface TaskSettings {
  /**
   * How often the poller looks for due tasks (default 2000).
   */
  poll_interval_ms?: number;
  /**
   * First delay between polls of one task; doubles per poll with ±20% jitter (default 2000).
   */
  poll_base_ms?: number;
  /**
   * Longest delay between polls of one task (default 60000).
   */
  poll_max_ms?: number;
  /**
   * Tasks claimed per poller pass (default 100).
   */
  batch_size?: number;
  /**
   * How long one instance holds a claimed task before another may poll it (default 30000).
   */
  lease_ms?: number;
  /**
   * A task not finished after this long fails as timed out and is refunded (default 86400).
   */
  max_age_s?: number;
  /**
   * A query refreshes an unfinished task from the upstream when its record is older than this (default 5000).
   */
  refresh_after_ms?: number;
  /**
   * How long finished task records are kept (default 7 days).
   */
  retention_s?: number;
  /**
   * How often each instance looks for what dead gateway processes left: open reservations to refund and submits cut mid-way to reconcile (default 5000).
   */
  sweep_interval_ms?: number;
  /**
   * How long a cut submit is looked for at the vendor (`reconcile`) before it is refunded and failed (default 120).
   */
  reconcile_window_s?: number;
}
/**
 * How the gateway calls client callback URLs (e.g. notifyHook).
 */
export interface CallbackSettings {
  /**
   * Allow callbacks to private, loopback and link-local addresses (default false: refused, which blocks SSRF).
   */
  allow_private_networks?: boolean;
  /**
   * Time limit of one delivery (default 5000).
   */
  timeout_ms?: number;
  /**
   * Deliveries tried before giving up, with exponential backoff (default 5).
   */
  max_attempts?: number;
}
