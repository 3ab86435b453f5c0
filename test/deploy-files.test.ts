// The deployment files cannot be run here (no Docker), so what they depend on is checked: every path the Dockerfile
// copies exists, every variable the gateway reads is in .env.example, compose.yaml is valid YAML with both services, and
// the Redis Cluster recipe's files (deploy/redis-cluster/) are the ones its page shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../src/config/load-config.js';
import { docBlock } from './helpers/doc-blocks.js';

const read = (f: string) => readFileSync(join(projectRoot, f), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(join(projectRoot, dir)).flatMap((n) => {
    const rel = join(dir, n);
    return statSync(join(projectRoot, rel)).isDirectory() ? sources(rel) : rel.endsWith('.ts') ? [rel] : [];
  });
}

test('every path the Dockerfile copies from the build context exists', () => {
  const copies = read('Dockerfile').split('\n').filter((l) => /^COPY (?!--from)/.test(l));
  assert.ok(copies.length > 3);
  for (const line of copies) {
    for (const path of line.split(/\s+/).slice(1, -1)) assert.ok(existsSync(join(projectRoot, path)), `${line}: ${path} is missing`);
  }
});

test('every environment variable the gateway reads is described in .env.example', () => {
  const described = read('.env.example');
  const names = new Set(sources('src').flatMap((f) => [...read(f).matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1])));
  const vendorFiles = readdirSync(join(projectRoot, 'vendors')).map((f) => `vendors/${f}`);
  for (const f of ['channels.yaml', 'deploy/config/channels.yaml', ...vendorFiles]) {
    const config = read(f).split('\n').filter((l) => !l.trimStart().startsWith('#')).join('\n');
    for (const m of config.matchAll(/\$\{env:([A-Z][A-Z0-9_]+)/g)) names.add(m[1]);
  }
  assert.ok(names.has('SWITCHYARD_ADMIN_KEY') && names.has('OPENAI_API_KEY'));
  for (const n of names) assert.match(described, new RegExp(`\\b${n}\\b`), `${n} is not in .env.example`);
});

test('compose.yaml runs the gateway on Redis, and Redis is healthy before it starts', () => {
  const compose = parse(read('compose.yaml'));
  assert.match(compose.services.gateway.environment.SWITCHYARD_STORE, /^redis:\/\/redis:6379/);
  assert.equal(compose.services.gateway.depends_on.redis.condition, 'service_healthy');
  assert.ok(compose.services.redis.healthcheck);
});

test('deploy/redis-cluster/ holds the recipe\'s files as it shows them: three gateways behind nginx on a formed cluster', () => {
  const recipe = 'docs/recipes/redis-cluster-compose.md';
  assert.equal(read('deploy/redis-cluster/compose.yaml'), docBlock(recipe, 'cluster-compose'));
  assert.equal(read('deploy/redis-cluster/nginx.conf'), docBlock(recipe, 'cluster-nginx'));
  const compose = parse(read('deploy/redis-cluster/compose.yaml'));
  const nodes = Object.keys(compose.services).filter((s) => s.startsWith('redis-'));
  assert.equal(nodes.length, 6);
  assert.equal(compose.services.gateway.deploy.replicas, 3);
  assert.match(compose.services.gateway.environment.SWITCHYARD_STORE, /^redis-cluster:\/\/redis-1:6379,/);
  assert.equal(compose.services.gateway.depends_on['cluster-init'].condition, 'service_completed_successfully');
  assert.ok(existsSync(join(projectRoot, 'deploy/redis-cluster', compose.services.gateway.build, 'Dockerfile')));
  assert.match(read('deploy/redis-cluster/nginx.conf'), /proxy_buffering off;/);
});
