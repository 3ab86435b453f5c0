// The deployment files cannot be run here (no Docker), so what they depend on is checked: every path the Dockerfile
// copies exists; every variable the gateway reads is in .env.example; compose.yaml is a stack several gateways run in
// (no host port on the gateway, nginx in front, Redis and PostgreSQL, health checks, only variables the gateway reads,
// no secret with a default); nginx accepts deploy/nginx.conf and, run on loopback in front of a stand-in gateway, passes
// streams as they come, WebSockets and large bodies; the Redis Cluster recipe's files are the ones its page shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../src/config/load-config.js';
import { docBlock } from './helpers/doc-blocks.js';
import { mainConfig, nginxSkip, nginxTest, startNginx } from './helpers/nginx.js';

const read = (f: string) => readFileSync(join(projectRoot, f), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(join(projectRoot, dir)).flatMap((n) => {
    const rel = join(dir, n);
    return statSync(join(projectRoot, rel)).isDirectory() ? sources(rel) : rel.endsWith('.ts') ? [rel] : [];
  });
}

/** The variables the config files name (`${env:NAME}`); for these a blank value counts as unset (src/config/env-refs.ts). */
function configRefs(): Set<string> {
  const names = new Set<string>();
  const vendorFiles = readdirSync(join(projectRoot, 'vendors')).map((f) => `vendors/${f}`);
  for (const f of ['routes.yaml', 'channels.yaml', 'deploy/config/channels.yaml', ...vendorFiles]) {
    const config = read(f).split('\n').filter((l) => !l.trimStart().startsWith('#')).join('\n');
    for (const m of config.matchAll(/\$\{env:([A-Z][A-Z0-9_]+)/g)) names.add(m[1]);
  }
  return names;
}

/** Every variable the gateway reads, from its source: `env.NAME`, the names read as `env[name]`, and the config's. */
function gatewayReads(): Set<string> {
  const names = configRefs();
  for (const f of sources('src')) {
    const text = read(f);
    for (const m of text.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]);
    // A settings module that reads `env[name]` names its variables as strings (log-settings.ts, open-store.ts, …).
    if (text.includes('env[')) for (const m of text.matchAll(/['"`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"`]/g)) names.add(m[1]);
  }
  return names;
}

// ---- compose.yaml as Compose reads it -------------------------------------------------------------------------------

interface Service {
  image?: string; build?: string; env_file?: string | string[]; environment?: Record<string, string> | string[];
  ports?: string[]; volumes?: string[]; healthcheck?: { test: string[] | string; disable?: boolean };
  depends_on?: string[] | Record<string, { condition: string }>; container_name?: string; stop_grace_period?: string;
}
const compose = (file = 'compose.yaml') => parse(read(file)) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
/** The root stack, and the Redis Cluster recipe's (deploy/redis-cluster/): both run from the repository's root. */
const composeFiles = ['compose.yaml', 'deploy/redis-cluster/compose.yaml'];

const envOf = (s: Service): Record<string, string> => (Array.isArray(s.environment)
  ? Object.fromEntries(s.environment.map((e) => [e.split('=')[0], e.split('=').slice(1).join('=')]))
  : Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v)])));

const interpolation = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g;

/** Compose's interpolation (`${NAME}`, `${NAME:-default}`, `${NAME:?error}`) of a value, with `env` as .env gives it. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(interpolation, (_m, name: string, op: string | undefined, arg: string) => {
    const v = env[name];
    if (v !== undefined && !(op?.startsWith(':') && v === '')) return v;
    if (op?.endsWith('?')) throw new Error(`${name} is required: ${arg}`);
    return op?.endsWith('-') ? arg : '';
  });
}

/** The names the compose files interpolate, with whether each is required (`:?`, which also refuses a blank value). */
function interpolated(): Map<string, { required: boolean }> {
  const names = new Map<string, { required: boolean }>();
  for (const m of composeFiles.map(read).join('\n').matchAll(interpolation)) {
    names.set(m[1], { required: names.get(m[1])?.required || m[2] === ':?' });
  }
  return names;
}

/** A sample .env: a value for every variable compose.yaml interpolates. */
const sampleEnv = () => Object.fromEntries([...interpolated().keys()].map((n) => [n, `sample-${n.toLowerCase()}-0123456789abcdef0123456789`]));

const dependsOn = (s: Service): Record<string, string> => (Array.isArray(s.depends_on)
  ? Object.fromEntries(s.depends_on.map((d) => [d, 'service_started']))
  : Object.fromEntries(Object.entries(s.depends_on ?? {}).map(([k, v]) => [k, v.condition])));

const seconds = (d: string) => {
  const m = /^(\d+)(ms|s|m)$/.exec(d);
  assert.ok(m, `a duration Compose reads: ${d}`);
  return Number(m[1]) * { ms: 0.001, s: 1, m: 60 }[m[2] as 'ms' | 's' | 'm'];
};

// ---- deploy/nginx.conf ----------------------------------------------------------------------------------------------

const nginxConf = () => read('deploy/nginx.conf').split('\n').map((l) => l.replace(/#.*/, '')).join('\n');
const directive = (conf: string, name: string) => [...conf.matchAll(new RegExp(`^\\s*${name}\\s+([^;]+);`, 'gm'))].map((m) => m[1].trim());

/** Where nginx sends requests: the host and port of `set $gateway host:port`, which `proxy_pass http://$gateway` names. */
function nginxTarget(conf: string): { host: string; port: string; line: string } {
  const set = /^\s*set\s+\$gateway\s+([a-z0-9.-]+):(\d+);/m.exec(conf);
  assert.ok(set, 'deploy/nginx.conf names the gateways with `set $gateway host:port;`');
  assert.deepEqual(directive(conf, 'proxy_pass'), ['http://$gateway']);
  return { host: set[1], port: set[2], line: set[0].trim() };
}

// ---- the tests ------------------------------------------------------------------------------------------------------

test('every path the Dockerfile copies from the build context exists', () => {
  const copies = read('Dockerfile').split('\n').filter((l) => /^COPY (?!--from)/.test(l));
  assert.ok(copies.length > 3);
  for (const line of copies) {
    for (const path of line.split(/\s+/).slice(1, -1)) assert.ok(existsSync(join(projectRoot, path)), `${line}: ${path} is missing`);
  }
});

test('every environment variable the gateway reads is described in .env.example', () => {
  const described = read('.env.example');
  const names = gatewayReads();
  for (const n of ['SWITCHYARD_ADMIN_KEY', 'OPENAI_API_KEY', 'SWITCHYARD_LOG_STORE', 'SWITCHYARD_LOG_RETENTION_DAYS']) assert.ok(names.has(n), n);
  for (const n of names) assert.match(described, new RegExp(`\\b${n}\\b`), `${n} is not in .env.example`);
});

test('compose.yaml: the gateway publishes no host port, so `--scale gateway=N` runs N of them, and nginx publishes the one port', () => {
  const { services } = compose();
  const gateway = services.gateway;
  // A host port, or a fixed container name, can belong to one container only: a second replica would not start.
  assert.equal(gateway.ports, undefined, 'the gateway publishes no port; the load balancer does');
  assert.equal(gateway.container_name, undefined);
  assert.ok(gateway.build, 'the gateway is the image of this repository\'s Dockerfile');

  const lb = services.lb;
  assert.match(lb.image ?? '', /^nginx:/);
  assert.equal(lb.ports?.length, 1);
  const [, published, inside] = /^127\.0\.0\.1:(\d+):(\d+)$/.exec(lb.ports![0]) ?? [];
  assert.ok(published && inside, `the load balancer publishes one port on loopback: ${lb.ports![0]}`);
  const mount = lb.volumes?.find((v) => v.split(':')[1] === '/etc/nginx/conf.d/default.conf');
  assert.equal(mount, './deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro');

  const conf = nginxConf();
  assert.deepEqual(directive(conf, 'listen'), [inside], 'nginx listens on the port compose publishes');
  const target = nginxTarget(conf);
  assert.equal(target.host, 'gateway', 'nginx sends to the gateway service (every replica: Docker\'s DNS names them all)');
  const env = envOf(gateway);
  assert.equal(env.PORT, target.port, 'the gateway listens where nginx sends');
  assert.equal(env.HOST, '0.0.0.0', 'the gateway listens on the container network, not its own loopback');
});

test('compose.yaml sets on the gateway only variables the gateway reads, and those several instances need', () => {
  const { services } = compose();
  const gateway = services.gateway;
  const raw = envOf(gateway);
  const reads = gatewayReads();
  for (const name of Object.keys(raw)) assert.ok(reads.has(name), `compose.yaml sets ${name} on the gateway, which it does not read`);
  assert.equal(gateway.env_file, '.env', 'the vendor keys and the rest of .env reach every replica');

  const env = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, interpolate(v, sampleEnv())]));
  // The shared hot state: Redis, a service of this file.
  const store = new URL(env.SWITCHYARD_STORE);
  assert.equal(store.protocol, 'redis:');
  assert.match(services[store.hostname]?.image ?? '', /^redis:/, `${store.hostname} is the stack's Redis`);
  // The request log: one PostgreSQL for every instance, reached as the user, password and database the service makes.
  const log = new URL(env.SWITCHYARD_LOG_STORE);
  assert.equal(log.protocol, 'postgres:');
  const pg = services[log.hostname];
  assert.match(pg?.image ?? '', /^postgres:/, `${log.hostname} is the stack's PostgreSQL`);
  const pgEnv = Object.fromEntries(Object.entries(envOf(pg)).map(([k, v]) => [k, interpolate(v, sampleEnv())]));
  assert.equal(log.port, '5432');
  assert.equal(decodeURIComponent(log.username), pgEnv.POSTGRES_USER);
  assert.equal(decodeURIComponent(log.password), pgEnv.POSTGRES_PASSWORD);
  assert.equal(log.pathname, `/${pgEnv.POSTGRES_DB}`);
  // The admin key: the same on every replica, so a search or the console works whichever one nginx picks.
  assert.equal(env.SWITCHYARD_ADMIN_KEY, sampleEnv().SWITCHYARD_ADMIN_KEY);
});

test('the compose files commit no secret: each comes from .env, required (no default), and the stack refuses to start without it', () => {
  const required = interpolated();
  for (const file of composeFiles) {
    for (const [name, s] of Object.entries(compose(file).services)) {
      for (const [key, value] of Object.entries(envOf(s))) {
        if (/PASSWORD|SECRET|_KEY$/.test(key)) assert.match(value, new RegExp(`^\\$\\{${key}:\\?[^}]+\\}$`), `${file}: ${name}.${key} is a required variable`);
        // A password inside a URL too.
        const inUrl = /^[a-z]+:\/\/[^:/@]+:([^@]+)@/.exec(value);
        if (inUrl) assert.match(inUrl[1], /^\$\{[A-Z_]+:\?[^}]+\}$/, `${file}: ${name}.${key}: the password in its URL is a required variable`);
      }
    }
  }
  for (const name of ['SWITCHYARD_ADMIN_KEY', 'POSTGRES_PASSWORD']) assert.ok(required.get(name)?.required, `${name} is required`);
  const { services } = compose();
  const withoutPassword = Object.fromEntries(Object.entries(sampleEnv()).filter(([k]) => k !== 'POSTGRES_PASSWORD'));
  assert.throws(() => interpolate(envOf(services.postgres).POSTGRES_PASSWORD, withoutPassword), /POSTGRES_PASSWORD is required/);
  assert.throws(() => interpolate(envOf(services.postgres).POSTGRES_PASSWORD, { ...withoutPassword, POSTGRES_PASSWORD: '' }), /required/);
});

test('compose.yaml: every service has a health check, and starts after those it depends on are healthy', () => {
  const { services } = compose();
  for (const [name, s] of Object.entries(services)) {
    assert.ok(s.healthcheck && !s.healthcheck.disable && s.healthcheck.test.length, `${name} has a health check`);
    for (const [dep, condition] of Object.entries(dependsOn(s))) {
      assert.ok(services[dep], `${name} depends on ${dep}, a service of this file`);
      assert.equal(condition, 'service_healthy', `${name} waits for ${dep} to be healthy`);
    }
  }
  // The gateway waits for every service its URLs name; nginx for the gateways.
  const gateway = services.gateway;
  const env = Object.values(envOf(gateway)).map((v) => interpolate(v, sampleEnv()));
  const named = env.filter((v) => /^[a-z]+:\/\//.test(v)).map((v) => new URL(v).hostname).filter((h) => services[h]);
  assert.deepEqual(named.sort(), ['postgres', 'redis']);
  assert.deepEqual(Object.keys(dependsOn(gateway)).sort(), named);
  assert.deepEqual(Object.keys(dependsOn(services.lb)), ['gateway']);
  // Ready, not merely alive: config loaded and the store answering (src/policies/health.ts), on the port it listens on.
  assert.match([gateway.healthcheck!.test].flat().join(' '), new RegExp(`127\\.0\\.0\\.1:${envOf(gateway).PORT}/readyz`));
  // `docker stop` gives the drain its time before it kills.
  const drain = /SWITCHYARD_DRAIN_MS\s*(?:\?\?|\|\|)\s*([\d_]+)/.exec(sources('src').map(read).join('\n'));
  assert.ok(drain, 'the gateway\'s default drain is found in src/');
  assert.ok(seconds(gateway.stop_grace_period ?? '10s') > Number(drain[1].replace(/_/g, '')) / 1000, 'stop_grace_period outlasts the drain');
});

test('compose.yaml: every named volume is declared and used, the data services keep theirs in one, bind mounts exist', () => {
  const { services, volumes = {} } = compose();
  const used = new Set<string>();
  const mounts: Record<string, string[]> = {};
  for (const [name, s] of Object.entries(services)) {
    for (const v of s.volumes ?? []) {
      const [source, target] = v.split(':');
      if (source.startsWith('.') || source.startsWith('/')) assert.ok(existsSync(join(projectRoot, source)), `${name}: ${source} is missing`);
      else {
        assert.ok(source in volumes, `${name} mounts ${source}, which is not declared`);
        used.add(source);
        (mounts[name] ??= []).push(target);
      }
    }
  }
  assert.deepEqual([...used].sort(), Object.keys(volumes).sort(), 'every declared volume is used');
  assert.deepEqual(mounts, { redis: ['/data'], postgres: ['/var/lib/postgresql/data'] });
});

test('.env.example: describes every variable the compose files interpolate, and a copy of it hands the gateway no blank setting', () => {
  const described = read('.env.example');
  for (const name of interpolated().keys()) assert.match(described, new RegExp(`\\b${name}\\b`), `${name} is not in .env.example`);
  // Compose passes `NAME=` in .env to the container as an empty value, which most settings take as a value (PORT= is
  // port 0): only a config reference (blank is unset) or a variable compose.yaml requires (blank stops it) may be blank.
  const refs = configRefs();
  const required = interpolated();
  const blank = [...described.matchAll(/^([A-Z][A-Z0-9_]*)=\s*$/gm)].map((m) => m[1]);
  assert.ok(blank.includes('OPENAI_API_KEY'));
  for (const name of blank) {
    assert.ok(refs.has(name) || required.get(name)?.required, `.env.example sets ${name} blank: comment it out so its default applies`);
  }
});

test('deploy/nginx.conf: streams and uploads unbuffered, WebSockets upgraded, no body cap below the gateway\'s, time for long requests', () => {
  const conf = nginxConf();
  assert.deepEqual(directive(conf, 'proxy_buffering'), ['off']);
  assert.deepEqual(directive(conf, 'proxy_request_buffering'), ['off']);
  assert.deepEqual(directive(conf, 'proxy_http_version'), ['1.1']);
  assert.ok(directive(conf, 'proxy_set_header').includes('Upgrade $http_upgrade'));
  assert.ok(directive(conf, 'proxy_set_header').includes('Connection $connection_upgrade'));
  assert.ok(directive(conf, 'proxy_set_header').includes('Host $http_host'), 'the Host with its port: the gateway\'s links are built from it');
  // Replicas come and go with --scale: Docker's DNS is asked again within seconds, not once at start.
  const [resolver] = directive(conf, 'resolver');
  assert.match(resolver ?? '', /^127\.0\.0\.11 valid=(\d+)s\b/);
  assert.ok(Number(/valid=(\d+)s/.exec(resolver)![1]) <= 10);

  const routes = parse(read('routes.yaml'));
  const values = (key: string) => {
    const out: number[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (k === key && typeof x === 'number' ? out.push(x) : walk(x));
    };
    walk(routes);
    return out;
  };
  const [bodyCap] = directive(conf, 'client_max_body_size');
  const largest = Math.max(...values('max_body_bytes'));
  assert.ok(largest > 100 * 1024 * 1024, 'the routes\' largest body is found');
  assert.ok(bodyCap === '0' || Number(/^(\d+)m$/.exec(bodyCap)?.[1]) * 1024 * 1024 >= largest, `client_max_body_size ${bodyCap} passes ${largest} bytes`);
  const read_ = seconds(directive(conf, 'proxy_read_timeout')[0]);
  const idle = Math.max(...values('idle_s'));
  assert.ok(idle > 0 && read_ > idle, `proxy_read_timeout (${read_} s) outlasts a realtime session's idle bound (${idle} s)`);
  assert.ok(seconds(directive(conf, 'proxy_send_timeout')[0]) > idle);
});

const skipNginx = nginxSkip('deploy/nginx.conf\'s tests');

test('nginx -t accepts deploy/nginx.conf as the nginx image reads it (in the http block), without Docker\'s DNS', { skip: skipNginx }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-nginx-t-'));
  try {
    const shipped = join(projectRoot, 'deploy/nginx.conf');
    const r = nginxTest(dir, mainConfig(dir, `  include ${shipped};`));
    assert.equal(r.status, 0, r.output);
    assert.match(r.output, /test is successful/);
    assert.ok(r.output.includes(`# configuration file ${shipped}:`), 'the shipped file was read');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('nginx with deploy/nginx.conf, in front of a stand-in gateway: the client\'s Host, a stream as it comes, a WebSocket, a large upload', { skip: skipNginx, timeout: 30_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-nginx-'));
  const cleanup: (() => unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  t.after(async () => { for (const step of cleanup.reverse()) await step(); });
  let sawFirst!: () => void;
  const firstSeen = new Promise<void>((resolve) => { sawFirst = resolve; });
  const gateway = createServer(async (req, res) => {
    if (req.url === '/stream') {
      // The second event waits for the client to have the first: nginx holding it back would stall the stream here.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      await firstSeen;
      res.end('data: 2\n\ndata: [DONE]\n\n');
      return;
    }
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ bytes, url: req.url, host: req.headers.host, proto: req.headers['x-forwarded-proto'] }));
  });
  const upgraded: Duplex[] = [];
  gateway.on('upgrade', (_req, socket) => {
    upgraded.push(socket);
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(d));
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  // An upgraded socket is the test's own, not the server's: closeAllConnections leaves it, and close would wait for it.
  cleanup.push(() => new Promise<void>((resolve) => {
    for (const s of upgraded) s.destroy();
    gateway.closeAllConnections();
    gateway.close(() => resolve());
  }));
  const upstream = (gateway.address() as AddressInfo).port;

  // The shipped file as it is, but for where it listens and where the gateways are (loopback here, not Docker's network).
  const shipped = read('deploy/nginx.conf');
  const target = nginxTarget(nginxConf());
  const listen = /^\s*listen\s+\d+;/m.exec(shipped)![0].trim();
  const nginx = await startNginx(join(dir, 'run'), (port) => {
    const conf = shipped.replace(listen, `listen 127.0.0.1:${port};`).replace(target.line, `set $gateway 127.0.0.1:${upstream};`);
    assert.ok(!conf.includes(target.line) && !conf.includes(listen));
    return conf;
  });
  cleanup.push(() => nginx.stop());
  const base = `http://127.0.0.1:${nginx.port}`;

  const echo = await (await fetch(`${base}/v1/models?limit=2`)).json() as Record<string, unknown>;
  assert.deepEqual(echo, { bytes: 0, url: '/v1/models?limit=2', host: `127.0.0.1:${nginx.port}`, proto: 'http' });
  const behindTls = await (await fetch(`${base}/v1/models`, { headers: { 'x-forwarded-proto': 'https' } })).json() as Record<string, unknown>;
  assert.equal(behindTls.proto, 'https', 'a TLS proxy in front says how the client came');

  // 24 MiB: past nginx's own default cap (1 MiB) and the gateway's chat routes' 20 MiB.
  const upload = Buffer.alloc(24 * 1024 * 1024, 7);
  const up = await fetch(`${base}/v1/files`, { method: 'POST', body: upload, headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(up.status, 200);
  assert.equal(((await up.json()) as { bytes: number }).bytes, upload.length);

  const stream = await fetch(`${base}/stream`);
  let text = '';
  const decoder = new TextDecoder();
  const reader = stream.body!.getReader();
  const held = setTimeout(() => void reader.cancel(new Error('nginx held back the stream\'s first event')), 10_000);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.includes('data: 1\n\n')) sawFirst();
  }
  clearTimeout(held);
  assert.equal(text, 'data: 1\n\ndata: 2\n\ndata: [DONE]\n\n');

  const echoed = await new Promise<string>((resolve, reject) => {
    const req = request(`${base}/v1/realtime?model=m`, { headers: { connection: 'Upgrade', upgrade: 'websocket' } });
    req.once('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
    req.once('error', reject);
    req.once('upgrade', (res, socket) => {
      assert.equal(res.statusCode, 101);
      socket.once('data', (d: Buffer) => { socket.destroy(); resolve(String(d)); });
      socket.write('ping');
    });
    req.end();
  });
  assert.equal(echoed, 'ping');
});

test('deploy/redis-cluster/ holds the recipe\'s files as it shows them: three gateways behind nginx on a formed cluster', () => {
  const recipe = 'docs/recipes/redis-cluster-compose.md';
  assert.equal(read('deploy/redis-cluster/compose.yaml'), docBlock(recipe, 'cluster-compose'));
  assert.equal(read('deploy/nginx.conf'), docBlock(recipe, 'nginx'));
  const compose = parse(read('deploy/redis-cluster/compose.yaml'));
  assert.deepEqual(compose.services.lb.volumes, ['../nginx.conf:/etc/nginx/conf.d/default.conf:ro'], 'the root stack\'s nginx config');
  assert.equal(nginxTarget(nginxConf()).host, 'gateway');
  const nodes = Object.keys(compose.services).filter((s) => s.startsWith('redis-'));
  assert.equal(nodes.length, 6);
  assert.equal(compose.services.gateway.deploy.replicas, 3);
  assert.match(compose.services.gateway.environment.SWITCHYARD_STORE, /^redis-cluster:\/\/redis-1:6379,/);
  assert.equal(compose.services.gateway.depends_on['cluster-init'].condition, 'service_completed_successfully');
  assert.ok(existsSync(join(projectRoot, 'deploy/redis-cluster', compose.services.gateway.build, 'Dockerfile')));
});
