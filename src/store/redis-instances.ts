// Which gateway instances sharing a Redis server are alive: each keeps a key with a short expiry fresh. A process
// that stops (crash, kill -9, a network split longer than the expiry) lets it lapse, and sweeps take back its leftovers.
// A beat also names the machine and pid namespace it came from, so an instance there that sees the pid gone (a
// crash, then a restart by the supervisor) knows at once, without waiting out the expiry.
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { RedisClient } from './redis-client.js';
import { pidAlive } from './pid-alive.js';

const key = (id: string) => `sy:inst:${id}`;

/**
 * Where pids mean the same thing: host name, boot and pid namespace (two containers may share a host name, never a
 * namespace). Undefined where /proc does not say: then only the expiry decides.
 */
function pidScope(): string | undefined {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return `${hostname()}|${boot}|${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return undefined;
  }
}

export class RedisInstances {
  private timer?: NodeJS.Timeout;
  private readonly scope = pidScope();

  constructor(private readonly client: RedisClient, readonly id: string, private readonly ttlMs: number) {}

  /** Beats at a sixth of the expiry, so a few missed beats (a busy server, a reconnect) do not look like death. */
  async start(): Promise<void> {
    const value = JSON.stringify({ host: hostname(), pid: process.pid, scope: this.scope });
    const beat = () => this.client.set(key(this.id), value, { expiration: { type: 'PX', value: this.ttlMs } });
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
    return new Set(owners.filter((o, i) => beats[i] !== null && (o === this.id || !this.goneHere(beats[i]!))));
  }

  /** A beat from this machine and pid namespace whose process no longer exists (a pid reused since reads as alive). */
  private goneHere(beat: string): boolean {
    if (!this.scope) return false;
    try {
      const b = JSON.parse(beat) as { pid?: unknown; scope?: unknown };
      return b.scope === this.scope && typeof b.pid === 'number' && !pidAlive(b.pid);
    } catch {
      return false; // an older beat (`host:pid`): its expiry decides
    }
  }
}
