// The store on a Redis server shared by several gateway instances: records, quota, task index, invalidations.
import Keyv from 'keyv';
import KeyvRedis from '@keyv/redis';
import { deserializeKv, serializeKv } from './kv-serialize.js';
import type { Store } from './store.js';
import { connectRedis, redactUri, type RedisClient, type RedisConnection } from './redis-client.js';
import { RedisQuotaLedger } from './redis-quota.js';
import type { Retention } from './quota-ledger.js';
import { RedisTaskIndex } from './redis-task-index.js';
import { RedisTaskCatalog } from './redis-task-catalog.js';
import { RedisInstances } from './redis-instances.js';
import { RedisJobs } from './redis-jobs.js';
import { RedisRateWindows } from './redis-rate.js';
import { RedisLeases } from './redis-leases.js';
import { migrateLayout } from './redis-migrate.js';
import type { JobQueue } from './job-queue.js';

/** Every instance publishes revoked token hashes here and drops them from its cache when one arrives. */
export const invalidateChannel = 'sy:invalidate';

/** `keep`: how long the ledger's markers and usage cells live (see redis-quota.ts). */
export async function openRedis(uri: string, instance: string, staleMs: number, keep: Retention): Promise<Store> {
  const conn = await connectRedis(uri);
  const { client } = conn;
  if (!conn.cluster) {
    try {
      await migrateLayout(client);
    } catch (err) {
      client.destroy();
      throw err;
    }
  }
  const listeners = new Set<(hash?: string) => void>();
  const notify = (hash?: string) => { for (const cb of listeners) cb(hash); };
  let sub: RedisClient | undefined;
  try {
    sub = await subscribe(conn, notify);
  } catch (err) {
    conn.watch?.stop();
    client.destroy();
    throw err;
  }

  const instances = new RedisInstances(client, instance, staleMs);
  await instances.start();
  const spaces = new Map<string, Keyv>();
  const queues = new Map<string, JobQueue>();
  const described = redactUri(uri);
  return {
    describe: `${conn.cluster ? 'redis-cluster' : 'redis'} ${described}`,
    quota: new RedisQuotaLedger(client, instance, (owners) => instances.alive(owners), keep, Boolean(conn.cluster)),
    tasks: new RedisTaskIndex(client, instance),
    catalog: new RedisTaskCatalog(client),
    files: new RedisTaskCatalog(client, 'sy:file:{cat}:'),
    rates: new RedisRateWindows(client),
    leases: new RedisLeases(client),
    instance,
    alive: (owners) => instances.alive(owners),
    jobs(queue) {
      let q = queues.get(queue);
      if (!q) {
        q = new RedisJobs(client, queue);
        queues.set(queue, q);
      }
      return q;
    },
    kv(namespace) {
      let kv = spaces.get(namespace);
      if (!kv) {
        // One adapter per namespace (keyv sets the namespace on its adapter), all on the one shared connection.
        // Keys are `sy:kv:<namespace>::<key>`; keyv's own prefix is off so the namespace is not written twice.
        const ns = `sy:kv:${namespace}`;
        const adapter = new KeyvRedis(client, { namespace: ns, throwOnErrors: true });
        kv = new Keyv({ store: adapter, namespace: ns, useKeyPrefix: false, throwOnErrors: true, serialize: serializeKv, deserialize: deserializeKv });
        spaces.set(namespace, kv);
      }
      return kv;
    },
    onInvalidate(cb) {
      listeners.add(cb);
    },
    async publishInvalidate(hash) {
      await client.publish(invalidateChannel, hash);
    },
    async close() {
      listeners.clear();
      await instances.stop();
      conn.watch?.stop();
      // keyv's adapter reopens a closed client on its next call, and that socket would keep the process alive
      // after close(); a late call must fail instead, a call made while the close is under way included.
      client.connect = (() => Promise.reject(new Error('store closed'))) as typeof client.connect;
      // close() lets queued commands finish; destroy() is the fallback when the server is already gone.
      await Promise.allSettled([sub, client].map(async (c) => {
        if (!c) return;
        if (c.isOpen) await c.close(); else c.destroy();
      }));
    },
  };
}

/**
 * Subscribes to the invalidation channel. Messages published while the subscriber was away are lost (pub/sub delivers
 * at most once), so after a reconnect every cached token is dropped rather than waiting out token_cache_ms.
 * On one node a subscribed connection accepts no other command: it gets a connection of its own (returned, to close).
 * On a cluster, plain PUBLISH reaches every node over the cluster bus and node-redis keeps one subscriber connection,
 * moved to another node when its node leaves the cluster; sharded pub/sub (SPUBLISH) would pin every instance's
 * subscriber to the one master owning the channel's slot, for a channel that carries a few messages a minute.
 */
async function subscribe(conn: RedisConnection, notify: (hash?: string) => void): Promise<RedisClient | undefined> {
  if (conn.cluster) {
    await conn.cluster.subscribe(invalidateChannel, (hash) => notify(hash));
    conn.watch?.onHealed(() => notify());
    return undefined;
  }
  const sub = conn.client.duplicate();
  sub.on('error', () => {});
  await sub.connect();
  await sub.subscribe(invalidateChannel, (hash) => notify(hash));
  let connected = true;
  sub.on('end', () => { connected = false; });
  sub.on('reconnecting', () => { connected = false; });
  sub.on('ready', () => { if (!connected) notify(); connected = true; });
  return sub;
}
