// Connections to a shared Redis server or a Redis Cluster, and Lua scripts run by their SHA-1 so each call sends only the hash.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createClient, createCluster } from '@keyv/redis';
import { watchCluster, type ClusterWatch, type RedisCluster } from './redis-cluster.js';
import { tlsPreflight } from './tls-preflight.js';

export type RedisClient = ReturnType<typeof createClient>;
export type { RedisCluster };

/**
 * A connection to the store. `client` runs commands (on a cluster it routes each by its first key's slot: same
 * command API, so the store's modules take either); `cluster` is set on a cluster, for what only it has (its masters).
 */
export interface RedisConnection { client: RedisClient; cluster?: RedisCluster; watch?: ClusterWatch }

/** A command issued while the connection is down fails at once instead of waiting in a queue: a request should
 * get an error, not hang, and a quota movement must never run minutes after its caller gave up. */
const reconnecting = (uri: string, everReady: () => boolean) => (retries: number) => (!everReady() && retries >= 3
  ? new Error(`cannot connect to ${redactUri(uri)}`)
  : Math.min(50 * 2 ** retries, 2000));

/**
 * TLS settings of a `rediss://` or `rediss-cluster://` store beyond the system's CAs, read from the files named by
 * SWITCHYARD_STORE_TLS_CA (a private CA, PEM), SWITCHYARD_STORE_TLS_CERT and _KEY (a client certificate, for servers
 * with `tls-auth-clients yes`, Redis's default). Read at connect, so a bad path fails the start, naming the variable.
 */
export function storeTlsFiles(env: NodeJS.ProcessEnv = process.env): { ca?: Buffer; cert?: Buffer; key?: Buffer } {
  const read = (name: string) => {
    const path = env[name];
    if (!path) return undefined;
    try { return readFileSync(path); } catch (err) { throw new Error(`${name}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`); }
  };
  const files = { ca: read('SWITCHYARD_STORE_TLS_CA'), cert: read('SWITCHYARD_STORE_TLS_CERT'), key: read('SWITCHYARD_STORE_TLS_KEY') };
  if (Boolean(files.cert) !== Boolean(files.key)) throw new Error('SWITCHYARD_STORE_TLS_CERT and SWITCHYARD_STORE_TLS_KEY go together');
  return Object.fromEntries(Object.entries(files).filter(([, v]) => v)) as { ca?: Buffer; cert?: Buffer; key?: Buffer };
}

/** Connects to `uri` (redis://[user:pass@]host:port[/db], rediss:// for TLS, or redis-cluster:// / rediss-cluster://
 * with a comma-separated list of nodes); rejects when the server is unreachable. */
export async function connectRedis(uri: string): Promise<RedisConnection> {
  if (isClusterUri(uri)) return connectCluster(uri);
  let everReady = false;
  const secure = uri.startsWith('rediss://');
  const tls = secure ? storeTlsFiles() : {};
  if (secure) await firstAnswering(uri, [hostPort(uri)], tls);
  const client = createClient({
    url: uri,
    disableOfflineQueue: true,
    // At startup an unreachable server is a configuration error (fail fast); later, keep reconnecting.
    socket: { ...tls, connectTimeout: 5000, reconnectStrategy: reconnecting(uri, () => everReady) },
  });
  client.on('ready', () => { everReady = true; });
  // node-redis emits 'error' on every failed (re)connect; without a listener that would crash the process.
  // Commands still reject on their own, so callers see the outage where it matters.
  client.on('error', () => {});
  await client.connect();
  return { client: client as RedisClient };
}

export const isClusterUri = (uri: string) => /^rediss?-cluster:\/\//.test(uri);

/** `redis-cluster://[user:pass@]host:port,host:port,…` (rediss-cluster:// for TLS): the nodes it starts from. */
export function parseClusterUri(uri: string): { tls: boolean; username?: string; password?: string; nodes: { host: string; port: number }[] } {
  const m = /^(rediss?)-cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/.exec(uri);
  if (!m) throw new Error(`SWITCHYARD_STORE: expected redis-cluster://[user:password@]host:port,host:port,… (got ${redactUri(uri)})`);
  const [, scheme, auth, hostList] = m;
  let username: string | undefined;
  let password: string | undefined;
  if (auth !== undefined) {
    const i = auth.indexOf(':');
    username = decodeURIComponent(i < 0 ? auth : auth.slice(0, i)) || undefined;
    password = i < 0 ? undefined : decodeURIComponent(auth.slice(i + 1));
  }
  const nodes = hostList.split(',').map((h) => {
    const n = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(h.trim());
    if (!n) throw new Error(`SWITCHYARD_STORE: cluster node "${h}" is not host:port`);
    return { host: n[1].replace(/^\[|\]$/g, ''), port: Number(n[2]) };
  });
  return { tls: scheme === 'rediss', username, password, nodes };
}

async function connectCluster(uri: string): Promise<RedisConnection> {
  const { tls, username, password, nodes } = parseClusterUri(uri);
  const files = tls ? storeTlsFiles() : {};
  if (tls) await firstAnswering(uri, nodes, files);
  let everReady = false;
  const cluster = createCluster({
    rootNodes: nodes.map((n) => ({ socket: { host: n.host, port: n.port } })),
    // Every node's connection (found from the cluster's own slot map) gets the credentials, TLS and fail-fast queue.
    defaults: {
      username, password, disableOfflineQueue: true,
      socket: { tls, ...files, connectTimeout: 5000, reconnectStrategy: reconnecting(uri, () => everReady) },
    },
    // A failover can take a few seconds of MOVED / CLUSTERDOWN answers.
    maxCommandRedirections: 32,
  });
  // The client's own failure says only that no root node answered; the last node's error says why (TLS, auth, …).
  let lastNodeError: Error | undefined;
  const note = (err: Error) => { if (!everReady) lastNodeError = err; };
  cluster.on('error', note);
  cluster.on('node-error', note);
  try {
    await cluster.connect();
  } catch (err) {
    const why = lastNodeError && lastNodeError.message !== (err as Error).message ? ` (${lastNodeError.message})` : '';
    throw new Error(`cannot connect to ${redactUri(uri)}: ${(err as Error).message}${why}`, { cause: err });
  }
  everReady = true;
  const c = cluster as unknown as RedisCluster;
  return { client: cluster as unknown as RedisClient, cluster: c, watch: watchCluster(c) };
}

/** Resolves when one of `nodes` answers over TLS; else rejects with the last node's TLS error, naming the store. */
async function firstAnswering(uri: string, nodes: { host: string; port: number }[], files: ReturnType<typeof storeTlsFiles>): Promise<void> {
  let last: Error | undefined;
  for (const n of nodes) {
    try { return await tlsPreflight(n.host, n.port, files); } catch (err) { last = err as Error; }
  }
  throw new Error(`cannot connect to ${redactUri(uri)}: ${last?.message}`, { cause: last });
}

const hostPort = (uri: string) => {
  const u = new URL(uri);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) };
};

/** The URI without its password, for logs. */
export function redactUri(uri: string): string {
  if (isClusterUri(uri)) return uri.replace(/\/\/([^@/:]*):[^@/]*@/, '//$1:***@');
  try {
    const u = new URL(uri);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return uri.split('@').pop() ?? uri;
  }
}

/** A Lua script: EVALSHA first, and EVAL (which also caches it) when the server has not seen it, e.g. after a restart.
 * On a cluster the call goes to the node of `keys[0]`, and every key a script touches must share its slot. */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Retries (for up to `retryMs`) only answers that prove the script did not run: a slot caught mid-move
   * (TRYAGAIN), a cluster without a master for the slot (CLUSTERDOWN, a failover under way) and a node connection
   * that is down (node-redis refuses the command before sending it). The retry is routed by the slot map again. */
  async run(client: RedisClient, keys: string[], args: (string | number)[], retryMs = 3000): Promise<unknown> {
    const until = Date.now() + retryMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(client, keys, args);
      } catch (err) {
        if (!notRun(err) || Date.now() >= until) throw err;
        await new Promise((r) => setTimeout(r, Math.min(25 * attempt, 250)));
      }
    }
  }

  private async once(client: RedisClient, keys: string[], args: (string | number)[]): Promise<unknown> {
    const opts = { keys, arguments: args.map(String) };
    try {
      return await client.evalSha(this.sha, opts);
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      return client.eval(this.source, opts);
    }
  }
}

const notRun = (err: unknown) => /^(TRYAGAIN|CLUSTERDOWN|The client is offline)/.test(String((err as Error)?.message));
