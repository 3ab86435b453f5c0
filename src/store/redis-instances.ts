// Which gateway instances sharing a Redis server are alive: each keeps a key with a short expiry fresh. A process
// that stops (crash, kill -9, a network split longer than the expiry) lets it lapse, and sweeps take back its leftovers.
import { hostname } from 'node:os';
import type { RedisClient } from './redis-client.js';

const key = (id: string) => `sy:inst:${id}`;

export class RedisInstances {
  private timer?: NodeJS.Timeout;

  constructor(private readonly client: RedisClient, readonly id: string, private readonly ttlMs: number) {}

  /** Beats at a sixth of the expiry, so a few missed beats (a busy server, a reconnect) do not look like death. */
  async start(): Promise<void> {
    const beat = () => this.client.set(key(this.id), `${hostname()}:${process.pid}`, { expiration: { type: 'PX', value: this.ttlMs } });
    await beat();
    this.timer = setInterval(() => { beat().catch(() => undefined); }, Math.max(100, Math.floor(this.ttlMs / 6)));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.client.del(key(this.id)).catch(() => undefined);
  }

  async alive(owners: string[]): Promise<Set<string>> {
    if (!owners.length) return new Set();
    // One GET each (sent together): on a Redis Cluster the keys live in different slots, which MGET refuses.
    const beats = await Promise.all(owners.map((o) => this.client.get(key(o))));
    return new Set(owners.filter((_, i) => beats[i] !== null));
  }
}
