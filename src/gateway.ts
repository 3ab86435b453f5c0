// The long-lived services a request needs, with the current compiled config swappable as one reference.
import type { Logger } from 'pino';
import type { Runtime } from './config/runtime.js';
import { RouteTable } from './http/route-table.js';
import { RateLimiter } from './pipeline/rate-limit.js';
import type { Store } from './store/open-store.js';
import { TokenStore } from './store/token-store.js';
import { TaskRepo } from './tasks/task-repo.js';
import { CircuitBreakers } from './pipeline/circuit-breaker.js';
import { CallbackDelivery } from './tasks/callbacks.js';
import type { Redactor } from './redaction/redactor.js';
import type { Logging } from './log.js';

export class Gateway {
  runtime!: Runtime;
  routes!: RouteTable;
  readonly log: Logger;
  readonly tokens: TokenStore;
  readonly limiter: RateLimiter;
  readonly tasks: TaskRepo;
  readonly breakers: CircuitBreakers;
  readonly callbacks: CallbackDelivery;
  /** Requests being served; a graceful shutdown waits for it to reach zero. */
  inflight = 0;

  constructor(runtime: Runtime, readonly store: Store, readonly logging: Logging, readonly redactor: Redactor) {
    this.log = logging.log;
    this.tokens = new TokenStore(store, runtime.tokenCacheMs);
    this.limiter = new RateLimiter(store.hits?.bind(store));
    this.tasks = new TaskRepo(store, () => this.runtime.tasks.retention_s);
    this.breakers = new CircuitBreakers(store.kv('breakers'), () => this.runtime.breaker);
    this.callbacks = new CallbackDelivery(this);
    this.swap(runtime);
  }

  /** Replaces the config in one assignment: requests already running keep the runtime they started with. */
  swap(runtime: Runtime): void {
    this.runtime = runtime;
    this.routes = new RouteTable(runtime.routes);
    this.redactor.setSecrets(runtime.secrets);
  }
}
