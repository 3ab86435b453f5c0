// What a Redis Cluster client needs beyond node-redis: node-redis refreshes its slot map only when a node answers
// MOVED or ASK, so after a master dies (and its replica is promoted) commands for its slots would keep going to the
// dead address. Trouble on any node's connection triggers a refresh, retried while the trouble lasts, and a slow
// periodic one catches what no event showed.
import type { createCluster } from '@keyv/redis';

export type RedisCluster = ReturnType<typeof createCluster>;

/** The internal refresher node-redis calls on MOVED; not in its public types. */
type Slots = { rediscover(startWith: { options?: unknown }): Promise<void> };

const refreshMs = () => Number(process.env.SWITCHYARD_CLUSTER_REFRESH_MS ?? 15_000);

export interface ClusterWatch {
  /** Runs `cb` after each refresh that followed trouble, once every master answers again (connections may have moved). */
  onHealed(cb: () => void): void;
  stop(): void;
}

export function watchCluster(cluster: RedisCluster): ClusterWatch {
  const healed = new Set<() => void>();
  const onHealed = () => { for (const cb of healed) cb(); };
  const slots = (cluster as unknown as { _slots: Slots })._slots;
  let troubled = false;
  let running: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  const refresh = () => {
    if (stopped || running) return;
    const start = cluster.masters.find((m) => m.client?.isReady)?.client ?? { options: (cluster as unknown as { _options: { rootNodes: unknown[] } })._options.rootNodes[0] };
    running = slots.rediscover(start as { options?: unknown })
      .then(() => {
        if (troubled && everyNodeReady(cluster)) { troubled = false; onHealed(); }
      }, () => undefined)
      .finally(() => {
        running = undefined;
        // Until every master answers, look again soon: a failover completes a few node timeouts after the death.
        if (troubled && !stopped) { clearTimeout(retry); retry = setTimeout(refresh, 250); retry.unref(); }
      });
  };
  const trouble = () => { troubled = true; refresh(); };
  cluster.on('node-error', trouble);
  cluster.on('node-reconnecting', trouble);
  cluster.on('node-disconnect', () => { if (!stopped) trouble(); });
  const timer = setInterval(refresh, refreshMs());
  timer.unref();
  return {
    onHealed: (cb) => { healed.add(cb); },
    stop: () => { stopped = true; healed.clear(); clearInterval(timer); clearTimeout(retry); },
  };
}

/** Every master's connection and the subscriber's (node-redis moves the subscription off a node that left). */
function everyNodeReady(cluster: RedisCluster): boolean {
  const pubSub = (cluster as unknown as { _slots: { pubSubNode?: { client: { isReady: boolean } } } })._slots.pubSubNode;
  return cluster.masters.every((m) => !m.client || m.client.isReady) && (pubSub?.client.isReady ?? true);
}

/** One connection per master, for what must visit every node (SCAN, FLUSHALL in tests). */
export async function masterClients(cluster: RedisCluster) {
  return Promise.all(cluster.masters.map((m) => cluster.nodeClient(m)));
}
