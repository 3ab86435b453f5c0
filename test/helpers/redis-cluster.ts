// Starts a throwaway Redis Cluster on loopback for a test file: `masters` nodes holding the slots, each with
// `replicas` replicas, from Debian's redis-server and `redis-cli --cluster create`; stops it afterwards.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import { startServer, type ServerProcess } from './server-process.js';
import type { TestCerts } from './tls-certs.js';
import { openStore, type StoreOptions } from '../../src/store/open-store.js';
import type { StoreMaker } from './store-contract.js';

export type ClusterNode = ServerProcess;
export interface RedisClusterServer {
  uri: string;
  nodes: ClusterNode[];
  /** Runs one command on one node (by port) and answers its reply. */
  command(port: number, args: string[]): Promise<unknown>;
  /** Runs `commands` in order on one connection to one node (as WAIT needs: it waits for that connection's writes). */
  session(port: number, commands: string[][]): Promise<unknown[]>;
  /** The ports of the nodes that are masters now, by `CLUSTER NODES` of a live node. */
  masterPorts(): Promise<number[]>;
  /** Empties every master. */
  flush(): Promise<void>;
  /** Resolves once every live node reports `cluster_state:ok` and agrees on the masters. */
  healthy(ms?: number): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One command on one node, over TLS with the test's client certificate when the cluster speaks only TLS. */
const sender = (certs?: TestCerts) => {
  const tls = certs ? { tls: true as const, ca: readFileSync(certs.ca), cert: readFileSync(certs.clientCert), key: readFileSync(certs.clientKey) } : {};
  return async (port: number, commands: string[][]): Promise<unknown[]> => {
    const c = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false, connectTimeout: 1000, ...tls } });
    c.on('error', () => {});
    await c.connect();
    try {
      const out: unknown[] = [];
      for (const args of commands) out.push(await c.sendCommand(args));
      return out;
    } finally { c.destroy(); }
  };
};

/** TLS only, on client and cluster-bus ports and replication; clients must show a certificate of the CA (Redis's default). */
const tlsArgs = (port: number, c: TestCerts) => ['--port', '0', '--tls-port', String(port), '--tls-cluster', 'yes', '--tls-replication', 'yes',
  '--tls-cert-file', c.serverCert, '--tls-key-file', c.serverKey, '--tls-ca-cert-file', c.ca, '--tls-auth-clients', 'yes'];

/** One cluster node, answering PING. */
function startNode(dir: string, send: (port: number, args: string[]) => Promise<unknown>, tls?: TestCerts): Promise<ClusterNode> {
  return startServer((port, [bus]) => {
    // No persistence; a short node timeout so a dead master's replica takes over within about two seconds.
    const listen = tls ? tlsArgs(port, tls) : ['--port', String(port)];
    return spawn('redis-server', [...listen, '--cluster-port', String(bus), '--bind', '127.0.0.1',
      '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '1000',
      // A replica may always take over, however long ago it last heard from its master (the test kills masters young).
      '--cluster-replica-validity-factor', '0',
      '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }, async (port, pid) => new RegExp(`process_id:${pid}\\b`).test(String(await send(port, ['INFO', 'server']))), 1);
}

/** `tls`: every node speaks only TLS (`rediss-cluster://`), with these certificates. */
export async function startRedisCluster(opts: { masters?: number; replicas?: number; tls?: TestCerts } = {}): Promise<RedisClusterServer> {
  const masters = opts.masters ?? 3;
  const replicas = opts.replicas ?? 0;
  const session = sender(opts.tls);
  const send = async (port: number, args: string[]) => (await session(port, [args]))[0];
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-cluster-'));
  const nodes: ClusterNode[] = [];
  const stop = async () => {
    await Promise.all(nodes.map(async (n) => {
      if (n.exited) return;
      const gone = new Promise((r) => n.child.once('exit', r));
      n.child.kill('SIGKILL');
      await gone;
    }));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) nodes.push(await startNode(dir, send, opts.tls));
    const cliTls = opts.tls ? ['--tls', '--cacert', opts.tls.ca, '--cert', opts.tls.clientCert, '--key', opts.tls.clientKey] : [];
    const created = spawnSync('redis-cli', [...cliTls, '--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas', String(replicas), '--cluster-yes'], { encoding: 'utf8', timeout: 30_000 });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  } catch (err) {
    await stop();
    throw err;
  }
  const live = () => nodes.filter((n) => !n.exited);
  const masterPorts = async () => {
    const text = String(await send(live()[0].port, ['CLUSTER', 'NODES']));
    return text.split('\n').map((l) => l.split(' ')).filter((f) => {
      const flags = (f[2] ?? '').split(',');
      return flags.includes('master') && !flags.some((x) => x.startsWith('fail')) && f.length > 8;
    }).map((f) => Number(f[1].split('@')[0].split(':').pop()));
  };
  const server: RedisClusterServer = {
    uri: `${opts.tls ? 'rediss' : 'redis'}-cluster://${nodes.slice(0, 3).map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    nodes,
    command: send,
    session,
    masterPorts,
    async flush() {
      await Promise.all((await masterPorts()).map((p) => send(p, ['FLUSHALL'])));
    },
    async healthy(ms = 15_000) {
      const until = Date.now() + ms;
      for (;;) {
        const states = await Promise.all(live().map((n) => send(n.port, ['CLUSTER', 'INFO']).then(String, () => '')));
        // Replicas count once they are in sync: a replica still loading its master's data cannot take over.
        const repl = await Promise.all(live().map((n) => send(n.port, ['INFO', 'replication']).then(String, () => '')));
        // Every live node beyond the masters must already be a replica: right after `--cluster create` a replica may
        // still be a slotless master, and one killed master's data would then be lost whole, not just its last writes.
        const synced = repl.filter((r) => r.includes('role:slave') && r.includes('master_link_status:up')).length;
        const ok = states.every((s) => s.includes('cluster_state:ok')) && synced === live().length - masters;
        if (ok && (await masterPorts().catch(() => [])).length === masters) return;
        if (Date.now() > until) throw new Error(`cluster not healthy within ${ms} ms`);
        await sleep(100);
      }
    },
    stop,
  };
  await server.healthy();
  return server;
}

/** The store contracts' maker on a cluster started later (`cluster()` reads it): each test starts from an emptied
 * cluster, every master flushed (a cluster has no database numbers). */
export function clusterStoreMaker(cluster: () => RedisClusterServer | undefined): StoreMaker {
  return {
    async fresh(o?: StoreOptions) {
      await cluster()!.flush();
      return openStore(cluster()!.uri, o);
    },
    again: (o?: StoreOptions) => openStore(cluster()!.uri, o),
  };
}
