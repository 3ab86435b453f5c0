// What the request path sees of the running gateway: its config, its store and the long-lived services on them. The
// process's gateway (src/gateway.ts) implements it; every layer below the process imports this, never that class.
import type { Logger } from 'pino';
import type { Runtime } from '../config/runtime.js';
import type { Store } from '../store/open-store.js';
import type { TokenStore } from '../store/token-store.js';
import type { Accounts } from '../accounts/purse.js';
import type { AlertWatch } from '../accounts/alert-watch.js';
import type { Conversations } from '../store/conversations.js';
import type { TaskRepo } from '../records/task-repo.js';
import type { FileRepo } from '../records/file-repo.js';
import type { Redactor } from '../redaction/redactor.js';
import type { BodyBudget } from '../http/body-budget.js';
import type { BodyLimits } from '../http/read-body.js';
import type { InFlight } from '../http/in-flight.js';
import type { Tracing } from '../tracing/tracing.js';
import type { RequestLog } from '../request-log/request-log.js';
import type { RequestContext } from './context.js';
import type { RouteTable } from './route-table.js';
import type { ClientSecrets } from './client-secrets.js';
import type { RateLimiter } from './rate-limiter.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import type { ChannelStats } from './channel-stats.js';

/** What a reload reports: the config now running, and why a refused one was refused. */
export interface ReloadResult { ok: boolean; hash: string; errors?: string }

export interface Gateway {
  /** The compiled config; a reload swaps it whole, and a request keeps the one it started with. */
  readonly runtime: Runtime;
  readonly routes: RouteTable;
  readonly log: Logger;
  readonly store: Store;
  readonly tokens: TokenStore;
  /** Users, teams and the levels a token's request reserves on. */
  readonly accounts: Accounts;
  /** Budget alerts, fed by settles (absent where nothing started them: the CLI, some tests). */
  readonly alerts?: AlertWatch;
  /** Short-lived secrets of tokens, minted for browsers (client_secret routes). */
  readonly secrets: ClientSecrets;
  readonly limiter: RateLimiter;
  readonly tasks: TaskRepo;
  /** The callers' files: records of bytes kept at vendors. */
  readonly files: FileRepo;
  readonly breakers: CircuitBreakers;
  /** Task callbacks (src/tasks/callbacks.ts): `notify` queues a task's delivery. */
  readonly callbacks: { notify(taskId: string): void };
  readonly conversations: Conversations;
  readonly channelStats: ChannelStats;
  readonly redactor: Redactor;
  /** OpenTelemetry, when the environment sets an OTLP endpoint; undefined otherwise. */
  readonly tracing: Tracing | undefined;
  /** Where finished requests, tasks and topups are recorded (src/request-log/); undefined when it is off. */
  readonly requestLog?: RequestLog;
  /** Requests being served (downloads and streams included); a stop waits for them, then cuts what is left. */
  readonly active: InFlight<RequestContext>;
  readonly inflight: number;
  /** Memory held by request bodies, all requests together. */
  readonly bodies: BodyBudget;
  /** Loads the config again and swaps it in. */
  reload(): ReloadResult;
  /** How a request's body may be read: its route's size, the server's pace bounds and shared memory, its abort. */
  bodyLimits(ctx: RequestContext, maxBytes: number): BodyLimits;
}
