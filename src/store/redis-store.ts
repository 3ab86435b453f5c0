// The store on a Redis server shared by several gateway instances: records, quota, task index, invalidations.
import Keyv from 'keyv';
import KeyvRedis from '@keyv/redis';
import type { Store } from './open-store.js';
import { connectRedis, redactUri, type RedisClient } from './redis-client.js';
import { RedisQuotaLedger } from './redis-quota.js';
import { RedisTaskIndex } from './redis-task-index.js';
import { RedisTaskCatalog } from './redis-task-catalog.js';
import { RedisInstances } from './redis-instances.js';
import { RedisJobs } from './redis-jobs.js';
import { RedisRateWindows } from './redis-rate.js';
import type { JobQueue } from './job-queue.js';

/** Every instance publishes revoked token hashes here and drops them from its cache when one arrives. */
export const invalidateChannel = 'sy:invalidate';

export async function openRedis(uri: string, instance: string, staleMs: number): Promise<Store> {
  const client = await connectRedis(uri);
  // Pub/sub needs a connection of its own: a subscribed connection accepts no other commands.
  let sub: RedisClient;
  try {
    sub = client.duplicate();
    sub.on('error', () => {});
    await sub.connect();
  } catch (err) {
    client.destroy();
    throw err;
  }
  const listeners = new Set<(hash?: string) => void>();
  const notify = (hash?: string) => { for (const cb of listeners) cb(hash); };
  await sub.subscribe(invalidateChannel, (hash) => notify(hash));
  // Messages published while this connection was down are lost (pub/sub delivers at most once); after a
  // reconnect, drop every cached token rather than wait out token_cache_ms for the ones we may have missed.
  let connected = true;
  sub.on('end', () => { connected = false; });
  sub.on('reconnecting', () => { connected = false; });
  sub.on('ready', () => { if (!connected) notify(); connected = true; });

  const instances = new RedisInstances(client, instance, staleMs);
  await instances.start();
  const spaces = new Map<string, Keyv>();
  const queues = new Map<string, JobQueue>();
  const described = redactUri(uri);
  return {
    describe: `redis ${described}`,
    quota: new RedisQuotaLedger(client, instance),
    tasks: new RedisTaskIndex(client, instance),
    catalog: new RedisTaskCatalog(client),
    rates: new RedisRateWindows(client),
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
        kv = new Keyv({ store: adapter, namespace: ns, useKeyPrefix: false, throwOnErrors: true });
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
      // close() lets queued commands finish; destroy() is the fallback when the server is already gone.
      await Promise.allSettled([sub, client].map(async (c) => { if (c.isOpen) await c.close(); else c.destroy(); }));
      // keyv's adapter reopens a closed client on its next call, and that socket would keep the process alive
      // after close(); a late call must fail instead.
      client.connect = (() => Promise.reject(new Error('store closed'))) as typeof client.connect;
    },
  };
}
