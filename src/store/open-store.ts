// Opens the state store named by SWITCHYARD_STORE: an embedded SQLite file by default, or a shared Redis server or cluster.
import { ExpirySweep } from './sqlite-expiry.js';
import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import Keyv from 'keyv';
import { SqliteQuotaLedger } from './sqlite-quota.js';
import { defaultRetention, type MarkerTtls, type QuotaLedger, type Retention } from './quota-ledger.js';
import { HeldQuota } from './held-quota.js';
import { SqliteHolds } from './sqlite-holds.js';
import { SqliteTaskIndex } from './sqlite-task-index.js';
import { openSqliteDb, openStateDb, stateFileFor } from './sqlite-state.js';
import { kvStatements, SqliteKv } from './sqlite-kv.js';
import { deserializeKv, serializeKv } from './kv-serialize.js';
import { SqliteTaskCatalog } from './sqlite-task-catalog.js';
import type { JobQueue } from './job-queue.js';
import { SqliteJobs } from './sqlite-jobs.js';
import { SqliteInstances } from './sqlite-instances.js';
import { SqliteRateWindows } from './sqlite-rate.js';
import { SqliteLeases } from './sqlite-leases.js';

export type { Store } from './store.js';
import type { Store } from './store.js';

export const defaultStoreUri = 'sqlite://data/switchyard.sqlite';

export interface StoreOptions {
  /** Where the store reports trouble it recovers from by itself (a failed flush, reclaimed holds). */
  onError?(msg: string, err?: unknown): void;
  /** Write-behind interval for request quota (held-quota.ts); 0 writes every movement through. */
  quotaFlushMs?: number;
  /**
   * Redis: how long a closed request's idempotency markers answer a repeated close or reserve, by its reservation's
   * scope (`request`: settled within the request; `durable`: a task's), and a topup's (ms). They must outlive the
   * longest a request, or a task, may run before its settle arrives: the caller derives them from its config. An
   * operator's SWITCHYARD_MARKER_TTL_REQUEST_MS, _DURABLE_MS or _TOPUP_MS, when set, wins (every process sharing the
   * store, the CLI's topups included, then agrees); defaults 15 min, 2 days, 7 days.
   */
  markerTtlMs?: Partial<MarkerTtls>;
  /** Days an hourly or daily usage cell is kept after its period: how far back reports reach (default 400). */
  usageRetentionDays?: number;
  /** SQLite: days a closed request's ledger rows are kept (default 30); QuotaLedger.prune removes older ones. */
  ledgerRetentionDays?: number;
}

const ttlVars: Record<keyof MarkerTtls, string> = {
  request: 'SWITCHYARD_MARKER_TTL_REQUEST_MS', durable: 'SWITCHYARD_MARKER_TTL_DURABLE_MS', topup: 'SWITCHYARD_MARKER_TTL_TOPUP_MS',
};

/** The retention to open with: a marker window from its environment variable, else the options, else the default; a bad value fails the open. */
function retentionOf(o: StoreOptions, env: NodeJS.ProcessEnv = process.env): Retention {
  const positive = (v: number | undefined, name: string, given: unknown = v) => {
    if (v !== undefined && !(Number.isSafeInteger(v) && v > 0)) throw new Error(`${name} must be a whole number above 0 (got ${given})`);
    return v;
  };
  const fromEnv = (name: string) => (env[name] ? positive(Number(env[name]), name, JSON.stringify(env[name])) : undefined);
  const ttl = (k: keyof MarkerTtls) => fromEnv(ttlVars[k]) ?? positive(o.markerTtlMs?.[k], `markerTtlMs.${k}`) ?? defaultRetention.markerTtlMs[k];
  return {
    markerTtlMs: { request: ttl('request'), durable: ttl('durable'), topup: ttl('topup') },
    usageDays: positive(o.usageRetentionDays, 'usageRetentionDays') ?? defaultRetention.usageDays,
    ledgerDays: positive(o.ledgerRetentionDays, 'ledgerRetentionDays') ?? defaultRetention.ledgerDays,
  };
}

/**
 * An owner silent this long is presumed dead and what it left (quota holds, open reservations, submits in flight)
 * is taken back (SWITCHYARD_OWNER_TIMEOUT_MS, default 15 s). Longer than any stall a live process may have.
 */
const staleOwnerMs = () => Number(process.env.SWITCHYARD_OWNER_TIMEOUT_MS ?? 15_000);

export const newInstanceId = () => `i_${process.pid}_${randomBytes(5).toString('hex')}`;

export async function openStore(uri = process.env.SWITCHYARD_STORE || defaultStoreUri, opts: StoreOptions = {}): Promise<Store> {
  const keep = retentionOf(opts); // before anything opens: a bad value leaves nothing to close
  if (uri.startsWith('sqlite://')) return openSqlite(uri, opts, keep);
  if (/^rediss?(-cluster)?:\/\//.test(uri)) {
    // Loaded only here: the Redis client takes longer to load than the rest of the store, and SQLite never needs it.
    const { openRedis } = await import('./redis-store.js');
    return openRedis(uri, newInstanceId(), staleOwnerMs(), keep);
  }
  throw new Error(`SWITCHYARD_STORE: unsupported store "${uri.split(':')[0]}" (use sqlite://path, redis://host:port[/db] or redis-cluster://host:port,host:port,…)`);
}

async function openSqlite(uri: string, opts: StoreOptions, keep: Retention): Promise<Store> {
  const file = uri.slice('sqlite://'.length);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  // One connection for every keyv namespace; a record read or write is one prepared statement on it.
  const kvDb = openSqliteDb(file, 5000);
  const kvSql = kvStatements(kvDb);
  const state = openStateDb(stateFileFor(file));
  const instance = newInstanceId();
  const ledger = new SqliteQuotaLedger(state, instance, keep);
  const flushMs = opts.quotaFlushMs ?? Number(process.env.SWITCHYARD_QUOTA_FLUSH_MS ?? 50);
  const onError = opts.onError ?? ((msg: string, err?: unknown) => console.error(msg, err ?? ''));
  const staleMs = staleOwnerMs();
  const instances = new SqliteInstances(state, instance, staleMs);
  // With holds, the hold owner's flushes are this process's heartbeat; write-through needs a beat of its own.
  const held = flushMs > 0 ? new HeldQuota(ledger, new SqliteHolds(state, ledger.rollup), { owner: instance, flushMs, staleMs, idleMs: 10_000, onError }) : undefined;
  if (held) held.begin();
  else instances.startBeating();
  const quota: QuotaLedger = held ?? ledger;
  const tasks = new SqliteTaskIndex(state, instance);
  const queues = new Map<string, JobQueue>();
  const spaces = new Map<string, Keyv>();
  const sweep = new ExpirySweep(kvDb);
  return {
    describe: `sqlite ${file} (+ ${stateFileFor(file)})`,
    quota,
    tasks,
    catalog: new SqliteTaskCatalog(state),
    files: new SqliteTaskCatalog(state, 'file_catalog'),
    rates: new SqliteRateWindows(state),
    leases: new SqliteLeases(state),
    instance,
    alive: async (owners) => instances.alive(owners),
    jobs(queue) {
      let q = queues.get(queue);
      if (!q) {
        q = new SqliteJobs(state, queue);
        queues.set(queue, q);
      }
      return q;
    },
    kv(namespace) {
      let kv = spaces.get(namespace);
      if (!kv) {
        kv = new Keyv({ store: new SqliteKv(kvSql), namespace, serialize: serializeKv, deserialize: deserializeKv });
        spaces.set(namespace, kv);
      }
      return kv;
    },
    sweepExpired: async (now) => sweep.run(now),
    async close() {
      await quota.close?.();
      instances.stop();
      kvDb.close();
      state.close();
    },
  };
}
