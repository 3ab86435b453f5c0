// The compiled, immutable configuration every request reads from.
import type { CompiledOperationAudio, CompiledRouteAudio } from './compile-audio.js';
import type { CompiledClientSecret, CompiledRealtime } from './compile-realtime.js';
import type { Pool } from '../transport/http-client.js';
import type { ValidateFunction } from 'ajv';
import type { Transform } from '../transform/compile-transform.js';
import type { Auth, Model, Group, Timeouts, TaskSettings, CallbackSettings, BudgetAlertSettings } from '../types/generated/channels.js';
import type { Route, RateLimit, ServerLimits } from '../types/generated/routes.js';
import type { CompiledPriceInputs } from '../billing/price-inputs.js';
import type { CompiledStream } from '../transform/stream-transform.js';
import type { CompiledUsagePaths } from '../transform/usage-paths.js';
import type { CompiledPrice } from '../billing/price-rules.js';
import type { SchemaRegistry } from './schema-registry.js';
import type { CompiledProbe } from './compile-probe.js';

export interface RouteLimitsResolved {
  maxBodyBytes: number;
  maxJsonDepth: number;
  maxResponseBytes: number;
  maxSseEventBytes: number;
  rateLimit?: RateLimit;
}

export interface CompiledRoute {
  id: string;
  method: string;
  path: string;
  operation: string;
  /** The model list's name for this route (`endpoint_type`); absent: its id. */
  endpointType?: string;
  policy: Route['policy'];
  /** Policy stream: every request streams, whatever its body says. */
  stream: boolean;
  /** A client token (true), nobody (false), the operator's key, or a console user's session. */
  auth: boolean | 'admin' | 'session';
  /** What an `admin` or `billing` route does. */
  action?: string;
  errorType?: string;
  /** The body of every error on the route in its family's own shape (bindings $status, $code, $message). */
  errorAnswer?: Transform;
  limits: RouteLimitsResolved;
  /** The request body's schema by its $id (a file of schemas/api/), which `validate` checks. */
  bodySchema?: string;
  validate?: ValidateFunction;
  /** Fixed model, or an expression picking it from the body; otherwise `body.model`. */
  model?: string;
  modelExpr?: Transform;
  multipart: boolean;
  /** Body fields the price depends on, checked before anything is reserved. */
  priceInputs: CompiledPriceInputs;
  task?: CompiledTaskRoute;
  /** The client dialect (absent: the unified format). */
  dialect?: CompiledDialect;
  /** Answers kept per owner so later requests may continue them. */
  store?: CompiledConversationStore;
  /** A header that may carry the API key instead of Authorization: Bearer. */
  keyHeader?: string;
  /** A query parameter that may carry the API key. */
  keyQuery?: string;
  /** The answer of a `count_tokens` route ($tokens), or of a `models` route in a dialect's shape. */
  answer?: Transform;
  /** A `relay` route that answers audio: the client's format, bytes or events, the route's events. */
  audio?: CompiledRouteAudio;
  /** A `realtime` route's session rules. */
  realtime?: CompiledRealtime;
  /** A `client_secret` route's minting rules. */
  clientSecret?: CompiledClientSecret;
  /** A `files` upload route's rules (routes.yaml `files`). */
  files?: CompiledFilesRoute;
}

/** What a `files` upload accepts: batch input files, each line checked against the route it calls. */
export interface CompiledFilesRoute {
  purpose: string;
  /** A line's url → the id of the route its body follows. */
  lines: Map<string, string>;
  /** The task operation the file's requests run on: its channel stores the file. */
  operation: string;
  maxLines: number;
  maxBytes: number;
  /** undefined: the line route's own body limit, plus room for the envelope. */
  maxLineBytes?: number;
  expiresS: { default: number; min: number; max: number };
}

/** A client-facing API format and its translations to and from the unified one (OpenAI chat completions). */
export interface CompiledDialect {
  name: string;
  description?: string;
  /** The body of every error on the dialect's routes. */
  error?: Transform;
  client?: { request: Transform; response: Transform; stream: CompiledStream; conversation?: Transform };
  vendor?: { request: Transform; response: Transform; stream: CompiledStream };
  usage?: CompiledUsagePaths;
  /** Event names that end a stream cleanly. */
  streamEnd: Set<string>;
  /** The events of an untouched stream that carry the whole answer, and where in their data. */
  streamResult?: { events: Set<string>; at: string[] };
  /** The query parameter a client's stream needs to be SSE (else a JSON array). */
  sseQuery?: { name: string; value: string };
}

export interface CompiledConversationStore {
  namespace: string;
  enabledBy?: string;
  continues?: string;
  ttlMs: number;
  maxBytes: number;
}

export interface CompiledTaskRoute {
  action: 'submit' | 'query' | 'content' | 'list' | 'relay' | 'page' | 'delete' | 'cancel';
  family?: string;
  families?: string[];
  answer?: Transform;
  saturatedShape: 'A' | 'B';
  listAnswer?: Transform;
  callback?: { field: string; route?: string };
  refs: string[];
  /** Submit: the path parameter naming the caller's completed task this one derives from. */
  source?: string;
  /** Submit: the body fields naming the caller's batch input file and the endpoint its lines call (a batch). */
  inputFile?: { field: string; endpoint: string };
}

export type UnifiedStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

export interface CompiledPoll {
  method: 'GET' | 'POST';
  path: string;
  request?: Transform;
  response: Transform;
  batch?: number;
}

/** How to find a task at the vendor by the gateway's own id, when its submit was cut before the answer. */
export interface CompiledReconcile {
  method: 'GET' | 'POST';
  path?: string;
  pathExpr?: Transform;
  response: Transform;
}

/** One bodiless call about an accepted task (cancel it, delete its result); `path` takes the task's placeholders. */
export interface TaskCall { method: 'DELETE' | 'POST'; path: string }

/** Result files a finished task leaves at the vendor (channels.schema.json TaskResults). */
export interface CompiledResults {
  /** The channel's operation that holds files (content path, delete). */
  operation: string;
  /** Task var → the name of its file. */
  files: [string, string][];
  purpose: string;
  statusAt: string[];
  answerAt: string[];
  expiresS: number;
}

export interface CompiledOperation {
  path: string;
  /** The path of a streamed chat request, where the vendor streams elsewhere. */
  streamPath?: string;
  /** The channel's models this operation serves; undefined: all of them. */
  models?: Set<string>;
  request?: Transform;
  response?: Transform;
  chunk?: Transform;
  pathExpr?: Transform;
  encoding: 'json' | 'multipart';
  statusMap: Record<string, UnifiedStatus>;
  poll?: CompiledPoll;
  contentPath?: string;
  contentResolve?: Transform;
  reconcile?: CompiledReconcile;
  /** The dialect the vendor speaks (absent: the unified format). */
  dialect?: CompiledDialect;
  /** Where the vendor's own answers carry usage: the operation's `usage`, else its dialect's; absent: in the unified answer. */
  usage?: CompiledUsagePaths;
  /** The operation this one stands in for when the client speaks its dialect (bytes untouched). */
  insteadOf?: string;
  /** `endsTask` false: the vendor ends a cancelled task itself, later (it is polled and settled as it ends). */
  cancel?: TaskCall & { endsTask: boolean };
  delete?: TaskCall;
  /** A task's result files, read for its charge when it ends. */
  results?: CompiledResults;
  /** How long a task of this operation may run before it fails as timed out (else `tasks.max_age_s`). */
  maxAgeS?: number;
  /** A vendor that sends its audio inside events (decoded for the client). */
  audio?: CompiledOperationAudio;
}

/** A channel's circuit breaker (pipeline/circuit-breaker.ts), from channels.yaml's `breaker_*` keys. */
export interface BreakerSettings { windowMs: number; minRequests: number; failureRate: number; openMs: number }

export interface CompiledChannel {
  id: string;
  /** The GenAI provider traces name: its `telemetry_provider`, else the vendor file or template it extends first. */
  provider?: string;
  enabled: boolean;
  baseUrl: URL;
  auth: Auth;
  headers: Record<string, string>;
  groups: Set<string>;
  models: Set<string>;
  modelMap: Record<string, string>;
  priority: number;
  weight: number;
  timeouts: Required<Timeouts>;
  operations: Map<string, CompiledOperation>;
  /** Operations that stand in for another (by its name) for the clients of their dialect. */
  standIns: Map<string, CompiledOperation[]>;
  pool: Pool;
  /** The vendor lives on a network the operator trusts: its result URLs may point to private addresses. */
  privateNetwork: boolean;
  /** The cheapest read-only call, sent by `switchyard check --probe`. */
  probe?: CompiledProbe;
}

export interface Runtime {
  hash: string;
  /** The schemas the routes' validators were compiled from (shipped and the operator's own). */
  schemas: SchemaRegistry;
  /** Client connection bounds (read at start: a reload does not change a running listener). */
  server: Required<ServerLimits>;
  routes: CompiledRoute[];
  /** What the client secrets of `client_secret` routes start with: a key so prefixed is looked up as one. */
  secretPrefixes: string[];
  channels: CompiledChannel[];
  /** Every resolved channel secret (keys, secrets): no answer and no log line may carry one. */
  secrets: string[];
  models: Map<string, Model>;
  /** Each model's price, compiled once (billing/price-rules.ts). */
  prices: Map<string, CompiledPrice>;
  /** Where each operation's unified answers carry usage (routes.yaml `usage`); an operation not named reads `chat_completions`'s. */
  usage: Map<string, CompiledUsagePaths>;
  groups: Map<string, Group>;
  maxAttempts: number;
  tokenCacheMs: number;
  /** The IANA zone whose calendar budget periods follow (billing.time_zone). */
  timeZone: string;
  budgetAlerts?: BudgetAlertSettings;
  /** Prompt tokens are estimated as body bytes divided by this. */
  promptBytesPerToken: number;
  /** Quota units per US dollar, for the dollar figures of billing answers and usage reports. */
  unitsPerUsd: number;
  /** SHA-256 of the operator's key; absent: no admin routes were compiled. */
  adminKeyHash?: Buffer;
  breaker: BreakerSettings;
  tasks: Required<TaskSettings>;
  /** The longest any task may run: `tasks.max_age_s`, or an operation's own `max_age_s` when longer. */
  longestTaskAgeS: number;
  /** The longest a file's record may live (uploads' `files.expires_s.max`, result files' `expires_s`). */
  longestFileLifeS: number;
  callbacks: Required<CallbackSettings>;
  /** Per-model request schemas (a family's own rules). */
  modelSchemas: Map<string, ValidateFunction>;
  channel(id: string): CompiledChannel | undefined;
  /** Enabled channels for group + model, highest priority first. */
  candidates(group: string, model: string, operation: string): readonly CompiledChannel[];
  /**
   * Whether any channel, in any group and enabled or not, serves the model on the operation: what picks among routes
   * sharing a path before the caller is known, so the pick depends on the configuration alone.
   */
  servesAnywhere(model: string, operation: string): boolean;
  /** Models a group can call on some route, sorted, each with the endpoint types that serve it (endpoint-types.ts). */
  groupEndpoints(group: string): ReadonlyMap<string, readonly string[]>;
}

export const defaultLimits: RouteLimitsResolved = {
  maxBodyBytes: 1 << 20,
  maxJsonDepth: 64,
  maxResponseBytes: 64 << 20,
  maxSseEventBytes: 8 << 20,
};

export const defaultTaskSettings: Required<TaskSettings> = {
  poll_interval_ms: 2000, poll_base_ms: 2000, poll_max_ms: 60000, batch_size: 100, lease_ms: 30000,
  max_age_s: 86400, refresh_after_ms: 5000, retention_s: 7 * 86400, sweep_interval_ms: 5000, reconcile_window_s: 120,
};

export const defaultTimeouts: Required<Timeouts> = { connect_ms: 5000, first_byte_ms: 60000, idle_ms: 120000 };

export const defaultServerLimits: Required<ServerLimits> = {
  header_timeout_ms: 30_000, body_idle_timeout_ms: 30_000, request_timeout_ms: 300_000, keep_alive_timeout_ms: 75_000,
  max_connections: 10_000, max_body_memory_bytes: 256 << 20, min_body_rate: 500, min_body_rate_grace_ms: 10_000,
  linger_ms: 10_000, linger_idle_ms: 2000,
};
