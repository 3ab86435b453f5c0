// Connections to a shared Redis server, and Lua scripts run by their SHA-1 so each call sends only the hash.
import { createHash } from 'node:crypto';
import { createClient } from '@keyv/redis';

export type RedisClient = ReturnType<typeof createClient>;

/** Connects to `uri` (redis://[user:pass@]host:port[/db], or rediss:// for TLS); rejects when the server is unreachable. */
export async function connectRedis(uri: string): Promise<RedisClient> {
  let everReady = false;
  const client = createClient({
    url: uri,
    // A command issued while the connection is down fails at once instead of waiting in a queue: a request
    // should get an error, not hang, and a quota movement must never run minutes after its caller gave up.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 5000,
      // At startup an unreachable server is a configuration error (fail fast); later, keep reconnecting.
      reconnectStrategy: (retries: number) => (!everReady && retries >= 3
        ? new Error(`cannot connect to ${redactUri(uri)}`)
        : Math.min(50 * 2 ** retries, 2000)),
    },
  });
  client.on('ready', () => { everReady = true; });
  // node-redis emits 'error' on every failed (re)connect; without a listener that would crash the process.
  // Commands still reject on their own, so callers see the outage where it matters.
  client.on('error', () => {});
  await client.connect();
  return client as RedisClient;
}

/** The URI without its password, for logs. */
export function redactUri(uri: string): string {
  try {
    const u = new URL(uri);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return uri.split('@').pop() ?? uri;
  }
}

/** A Lua script: EVALSHA first, and EVAL (which also caches it) when the server has not seen it, e.g. after a restart. */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, keys: string[], args: (string | number)[]): Promise<unknown> {
    const opts = { keys, arguments: args.map(String) };
    try {
      return await client.evalSha(this.sha, opts);
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      return client.eval(this.source, opts);
    }
  }
}
