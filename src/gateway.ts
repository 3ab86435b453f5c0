// The long-lived services a request needs, with the current compiled config swappable as one reference: what the
// request path sees of them is pipeline/gateway.ts.
import type { Gateway, ReloadResult } from './pipeline/gateway.js';
import { ClientSecrets } from './pipeline/client-secrets.js';
import type { Logger } from 'pino';
import type { Runtime } from './config/runtime.js';
import { RouteTable } from './pipeline/route-table.js';
import { RateLimiter } from './pipeline/rate-limiter.js';
import type { Store } from './store/open-store.js';
import { TokenStore } from './store/token-store.js';
import { TaskRepo } from './records/task-repo.js';
import { FileRepo } from './records/file-repo.js';
import { CircuitBreakers } from './pipeline/circuit-breaker.js';
import { CallbackDelivery } from './tasks/callbacks.js';
import type { Redactor } from './redaction/redactor.js';
import type { Logging } from './log.js';
import { BodyBudget } from './http/body-budget.js';
import type { BodyLimits } from './http/read-body.js';
import type { RequestContext } from './pipeline/context.js';
import { Conversations } from './store/conversations.js';
import { InFlight } from './http/in-flight.js';
import { ChannelStats } from './pipeline/channel-stats.js';
import type { Tracing } from './tracing/tracing.js';
import type { RequestLog } from './request-log/request-log.js';
import { openAccounts, type Accounts } from './accounts/purse.js';
import { AlertWatch } from './accounts/alert-watch.js';
import { BudgetAlerts, type AlertSettings } from './accounts/budget-alerts.js';
import type { BudgetAlertSettings } from './types/generated/channels.js';

/** channels.yaml `billing.budget_alerts` as the alerts take it: read at start (a reload keeps the running ones). */
function alertSettingsOf(c: BudgetAlertSettings | undefined): AlertSettings {
  return { thresholds: c?.thresholds, webhook: c?.webhook_url ? { url: c.webhook_url, secret: c.webhook_secret ?? '' } : undefined };
}

/** The gateway of this process: every service built on the store, the config swapped in by a reload. */
export class RunningGateway implements Gateway {
  runtime!: Runtime;
  routes!: RouteTable;
  readonly log: Logger;
  readonly tokens: TokenStore;
  readonly accounts: Accounts;
  readonly alerts: AlertWatch;
  /** Short-lived secrets of tokens, minted for browsers (client_secret routes). */
  readonly secrets: ClientSecrets;
  readonly limiter: RateLimiter;
  readonly tasks: TaskRepo;
  /** The callers' files (src/files/): records of bytes kept at vendors (src/records/). */
  readonly files: FileRepo;
  readonly breakers: CircuitBreakers;
  readonly callbacks: CallbackDelivery;
  readonly conversations: Conversations;
  readonly channelStats = new ChannelStats();
  /** OpenTelemetry, when the environment sets an OTLP endpoint (start.ts); undefined otherwise. */
  tracing: Tracing | undefined;
  /** Loads the config again and swaps it in (set by start.ts, which knows where the config lives). */
  reload: () => ReloadResult = () => ({ ok: false, hash: this.runtime.hash, errors: 'reload is not available here' });
  /** Requests being served (downloads and streams included); a stop waits for them, then cuts what is left. */
  readonly active = new InFlight<RequestContext>();
  /** Memory held by request bodies, all requests together. */
  readonly bodies = new BodyBudget(() => this.runtime.server.max_body_memory_bytes);

  /** `requestLog`: where finished requests, tasks and topups are recorded (src/request-log/); undefined when it is off. */
  constructor(runtime: Runtime, readonly store: Store, readonly logging: Logging, readonly redactor: Redactor, readonly requestLog?: RequestLog) {
    this.log = logging.log;
    this.tokens = new TokenStore(store, runtime.tokenCacheMs);
    this.accounts = openAccounts(store, runtime.tokenCacheMs, () => this.runtime.timeZone);
    this.alerts = new AlertWatch(store, new BudgetAlerts({ store, log: this.log, settings: alertSettingsOf(runtime.budgetAlerts) }));
    this.limiter = new RateLimiter(store.rates);
    this.tasks = new TaskRepo(store, () => this.runtime.tasks.retention_s);
    this.files = new FileRepo(store);
    this.breakers = new CircuitBreakers(store.kv('breakers'), () => this.runtime.breaker);
    this.callbacks = new CallbackDelivery(this);
    this.conversations = new Conversations(store);
    this.secrets = new ClientSecrets(store, this.tokens);
    this.swap(runtime);
  }

  get inflight(): number {
    return this.active.size;
  }

  /** How a request's body may be read: its route's size, the server's pace bounds and shared memory, its abort. */
  bodyLimits(ctx: RequestContext, maxBytes: number): BodyLimits {
    const s = this.runtime.server;
    return {
      maxBytes, idleMs: s.body_idle_timeout_ms, minRate: s.min_body_rate, graceMs: s.min_body_rate_grace_ms,
      budget: this.bodies, signal: ctx.abort.signal, cleanup: ctx.cleanup,
    };
  }

  /** Replaces the config in one assignment: requests already running keep the runtime they started with. */
  swap(runtime: Runtime): void {
    this.runtime = runtime;
    this.routes = new RouteTable(runtime.routes);
    this.redactor.setSecrets(runtime.secrets);
  }
}
