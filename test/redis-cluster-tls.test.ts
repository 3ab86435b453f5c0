// The Redis Cluster store over TLS (`rediss-cluster://`): every node speaks only TLS, on its client port, its cluster
// bus and replication, and asks clients for a certificate (Redis's default). The store trusts a private CA and shows
// its certificate through SWITCHYARD_STORE_TLS_CA / _CERT / _KEY; without them, or with plain TCP, it fails fast.
// The single-server path (`rediss://`) is checked on one TLS-only server too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { openStore } from '../src/store/open-store.js';
import { TokenStore } from '../src/store/token-store.js';
import { quotaContract } from './helpers/store-contract.js';
import { redisSkip } from './helpers/redis.js';
import { clusterStoreMaker, startRedisCluster, type RedisClusterServer } from './helpers/redis-cluster.js';
import { makeTestCerts, type TestCerts } from './helpers/tls-certs.js';
import { spawnGateway } from './helpers/child-gateway.js';
import { startSimulator } from '../simulator/server.js';
import { startServer } from './helpers/server-process.js';
import { tlsPreflight } from '../src/store/tls-preflight.js';

// Outside CI a machine without openssl skips these, as one without redis-server does; CI installs both.
const noOpenssl = spawnSync('openssl', ['version']).status !== 0 && !process.env.CI;
const skip = redisSkip('the Redis Cluster TLS tests') || (noOpenssl ? 'openssl is not installed; skipped outside CI' : false);
const vars = ['SWITCHYARD_STORE_TLS_CA', 'SWITCHYARD_STORE_TLS_CERT', 'SWITCHYARD_STORE_TLS_KEY'] as const;

let certs: TestCerts | undefined;
let cluster: RedisClusterServer | undefined;
let env: Record<(typeof vars)[number], string>;
before(async () => {
  if (skip) return;
  certs = makeTestCerts();
  env = { SWITCHYARD_STORE_TLS_CA: certs.ca, SWITCHYARD_STORE_TLS_CERT: certs.clientCert, SWITCHYARD_STORE_TLS_KEY: certs.clientKey };
  Object.assign(process.env, env);
  cluster = await startRedisCluster({ masters: 3, tls: certs });
});
after(async () => {
  for (const v of vars) delete process.env[v];
  await cluster?.stop();
  if (certs) rmSync(certs.dir, { recursive: true, force: true });
});

/** Runs `fn` with the TLS variables changed, then puts them back. */
async function withTlsEnv<T>(change: Partial<Record<(typeof vars)[number], string | undefined>>, fn: () => Promise<T>): Promise<T> {
  for (const [k, v] of Object.entries(change)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  try { return await fn(); } finally { Object.assign(process.env, env); }
}

const maker = clusterStoreMaker(() => cluster);

// Every quota script (reserve, settle, refund, topup, holds, the sweep) over TLS connections to every master.
quotaContract('redis-cluster over TLS', maker, { skip });

test('rediss-cluster: without the CA, without a client certificate, or over plain TCP the store fails fast at open', { skip, timeout: 60_000 }, async () => {
  const refused = async (what: string, uri: string, change: Parameters<typeof withTlsEnv>[0], pattern: RegExp) => {
    const t0 = Date.now();
    await withTlsEnv(change, () => assert.rejects(openStore(uri), (err: Error) => {
      assert.match(String(err), pattern, what);
      return true;
    }));
    assert.ok(Date.now() - t0 < 15_000, `${what}: refused within 15 s (${Date.now() - t0} ms)`);
  };
  const uri = cluster!.uri;
  // Each refusal says why in the TLS error's own words, and none raises an uncaught error on the way (node-redis
  // listens for one socket error; a refused client certificate raises two).
  await refused('no private CA', uri, { SWITCHYARD_STORE_TLS_CA: undefined }, /^Error: cannot connect to rediss-cluster:\/\/127\.0\.0\.1:\d+,.*: self-signed certificate in certificate chain$/);
  await refused('no client certificate', uri, { SWITCHYARD_STORE_TLS_CERT: undefined, SWITCHYARD_STORE_TLS_KEY: undefined },
    /: TLS: tlsv13 alert certificate required \(ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED\)$/);
  await refused('no client certificate, one node (rediss://)', `rediss://127.0.0.1:${cluster!.nodes[0].port}`, { SWITCHYARD_STORE_TLS_CERT: undefined, SWITCHYARD_STORE_TLS_KEY: undefined },
    /^Error: cannot connect to rediss:\/\/127\.0\.0\.1:\d+\/?: TLS: tlsv13 alert certificate required/);
  await refused('plain TCP to a TLS port', uri.replace('rediss-cluster://', 'redis-cluster://'), {}, /cannot connect to redis-cluster:.*All the root nodes are unavailable/);
  await refused('a CA file that is not there', uri, { SWITCHYARD_STORE_TLS_CA: '/nonexistent/ca.pem' }, /SWITCHYARD_STORE_TLS_CA: cannot read \/nonexistent\/ca\.pem \(ENOENT\)/);
  await refused('a certificate without its key', uri, { SWITCHYARD_STORE_TLS_KEY: undefined }, /SWITCHYARD_STORE_TLS_CERT and SWITCHYARD_STORE_TLS_KEY go together/);
});

test('rediss-cluster: a gateway on the TLS cluster serves a chat request and charges its token there', { skip, timeout: 60_000 }, async () => {
  await cluster!.flush();
  const sim = await startSimulator({ port: 0, keys: ['sim-key'] });
  const store = await openStore(cluster!.uri, { quotaFlushMs: 0 });
  const gw = await spawnGateway({ ...env, SWITCHYARD_STORE: cluster!.uri, SWITCHYARD_SIM_URL: sim.url });
  try {
    const initial = 1_000_000;
    const { key, record } = await new TokenStore(store, 0).create({ group: 'default', quota: initial });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello over TLS' }] }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const answer = await res.json() as { usage: { total_tokens: number } };
    assert.ok(answer.usage.total_tokens > 0);
    await gw.stop(); // a stop writes the instance's ledger rows and returns its hold
    // A topup is written as a negative amount, a reservation positive and its close the part given back.
    const entries = await store.quota.entries(record.id);
    const moves = entries.filter((e) => e.kind !== 'topup');
    assert.equal(new Set(moves.map((e) => e.request)).size, 1, 'one request moved money, on the cluster');
    const charged = moves.reduce((s, e) => s + e.amount, 0);
    assert.ok(charged > 0, `charged ${charged}`);
    assert.equal(await store.quota.balance(record.id), initial - charged, 'balance = topup − charge');
  } finally {
    await gw.kill().catch(() => undefined);
    await store.close();
    await sim.close();
  }
});

test('rediss://: one TLS-only Redis server (private CA, client certificate required) holds the ledger', { skip, timeout: 30_000 }, async () => {
  const files = { ca: readFileSync(certs!.ca), cert: readFileSync(certs!.clientCert), key: readFileSync(certs!.clientKey) };
  const server = await startServer((port) => spawn('redis-server', ['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1', '--tls-cert-file', certs!.serverCert,
    '--tls-key-file', certs!.serverKey, '--tls-ca-cert-file', certs!.ca, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }),
  (port) => tlsPreflight('127.0.0.1', port, files, 500).then(() => true));
  const { port } = server;
  try {
    const store = await openStore(`rediss://127.0.0.1:${port}`, { quotaFlushMs: 0 });
    try {
      await store.quota.createAccount('acct_tls', 1000);
      assert.equal(await store.quota.reserve('acct_tls', 'req_1', 300), true);
      await store.quota.settle('acct_tls', 'req_1', 300, 120);
      assert.equal(await store.quota.balance('acct_tls'), 880, 'topup 1000 − charge 120');
    } finally {
      await store.close();
    }
  } finally {
    server.child.kill('SIGKILL');
  }
});
