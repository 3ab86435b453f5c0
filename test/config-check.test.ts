// Config checks: the real `switchyard check` CLI and checkConfig() on the shipped config and one broken fixture per rule.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { checkConfig } from '../src/config/check.js';
import { projectRoot, schemaRegistry } from '../src/config/load-config.js';
import type { Diagnostic } from '../src/config/diagnostics.js';
import { fixture } from './helpers/stack.js';

const cli = join(projectRoot, 'dist', 'src', 'cli.js');

// Env without the variables the configs reference, so every run sees the same "unset" world.
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ['OPENAI_API_KEY', 'SIM_KEY', 'SWITCHYARD_SIM_URL', 'SWITCHYARD_TEST_UNSET_KEY', 'SWITCHYARD_CONFIG_DIR']) delete env[k];
  return env;
}

function runCheck(dir: string) {
  const r = spawnSync(process.execPath, [cli, 'check', '--dir', dir], { env: cleanEnv(), encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const check = (dir: string) => checkConfig(dir, schemaRegistry(), cleanEnv());

interface Broken {
  dir: string;
  file: 'routes.yaml' | 'channels.yaml';
  path: string;
  line: number;
  message: string; // exact substring of the diagnostic
}

// Each fixture breaks exactly one rule of an otherwise valid minimal config.
const broken: Broken[] = [
  { dir: 'invalid-yaml', file: 'channels.yaml', path: '', line: 10, message: 'YAML syntax: Nested mappings are not allowed in compact mappings' },
  { dir: 'invalid-schema', file: 'channels.yaml', path: '/channels/0/auth/scheme', line: 10, message: '`channels[0].auth.scheme` must be one of: ' },
  { dir: 'invalid-hmac-region', file: 'channels.yaml', path: '/channels/0/auth', line: 10, message: '`channels[0].auth.region` is required when scheme is hmac_v4' },
  { dir: 'invalid-group', file: 'channels.yaml', path: '/channels/0/groups/1', line: 11, message: 'unknown group "gold"' },
  { dir: 'invalid-model-price', file: 'channels.yaml', path: '/channels/0/models/1', line: 12, message: 'model "gpt-5" has no entry (price) in models' },
  { dir: 'invalid-model-no-price', file: 'channels.yaml', path: '/models/gpt-4o-mini', line: 6, message: '`models.gpt-4o-mini.price` is required' },
  { dir: 'invalid-jsonata', file: 'channels.yaml', path: '/channels/0/operations/chat_completions/request', line: 16, message: 'JSONata: Expected "}", got "]"' },
  { dir: 'invalid-extends', file: 'channels.yaml', path: '/channels/0/extends', line: 13, message: 'unknown template "openai_compatibel"' },
  { dir: 'invalid-duplicate-route', file: 'routes.yaml', path: '/routes/1/path', line: 9, message: 'duplicate route POST /v1/chat/completions (also /routes/0)' },
  { dir: 'invalid-shared-path', file: 'routes.yaml', path: '/routes/1/path', line: 10, message: 'routes sharing a path need different operations and a model_expr over the path' },
  { dir: 'invalid-shared-model', file: 'routes.yaml', path: '/routes/1/path', line: 11, message: 'model "img-1" is served on operation chat_completions (channel sim) and images_generate (channel sim), whose routes share POST /v1beta/models/{model}:generateContent' },
  { dir: 'invalid-operation-models', file: 'channels.yaml', path: '/channels/0/operations/embeddings/models/0', line: 15, message: '"text-embedding-3-small" is not in this channel\'s models' },
  { dir: 'invalid-task-source', file: 'routes.yaml', path: '/routes/0/task/source', line: 8, message: '`source` must name a path parameter of a submit route (no {id} in /v1/videos/remix)' },
  { dir: 'invalid-operation', file: 'routes.yaml', path: '/routes/1', line: 7, message: 'no channel implements operation "embeddings"' },
  { dir: 'invalid-instead-of', file: 'channels.yaml', path: '/channels/0/operations/responses/instead_of', line: 14, message: '"chat_complete" is not an operation of this channel' },
];

describe('shipped config', () => {
  test('switchyard check passes: exit 0, prints each channel and config OK, warns about the unset OPENAI_API_KEY', () => {
    const r = runCheck(projectRoot);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').at(-1), 'config OK');
    assert.match(r.stdout, /^openai +disabled +https:\/\/api\.openai\.com +OPENAI_API_KEY is not set$/m);
    assert.doesNotMatch(r.stderr, /^error:/m);
    assert.match(r.stderr, /^warning: channels\.yaml:\d+:\d+ \/channels\/2\/auth\/key: environment variable OPENAI_API_KEY is not set: channel "openai" is disabled$/m);
  });

  test('checkConfig: ok, no errors, the openai channel comes back disabled and the simulator channels enabled', () => {
    const r = check(projectRoot);
    assert.equal(r.ok, true);
    assert.deepEqual(r.diagnostics.filter((d) => d.level === 'error'), []);
    const enabled = Object.fromEntries(r.config!.resolvedChannels.map((c) => [c.id, c.enabled !== false]));
    assert.deepEqual([enabled.sim_openai, enabled.sim_legacy, enabled.openai], [true, true, false]);
    const w = r.diagnostics.find((d) => d.path === '/channels/2/auth/key');
    assert.equal(w?.level, 'warning');
  });
});

describe('invalid configs', () => {
  for (const b of broken) {
    test(`${b.dir}: checkConfig reports one error at ${b.file}:${b.line} ${b.path || '/'}`, () => {
      const r = check(fixture(b.dir));
      assert.equal(r.ok, false);
      assert.equal(r.config, undefined);
      const errors = r.diagnostics.filter((d) => d.level === 'error');
      assert.equal(errors.length, 1, JSON.stringify(errors));
      const e: Diagnostic = errors[0];
      assert.equal(e.file, b.file);
      assert.equal(e.path, b.path);
      assert.equal(e.line, b.line);
      assert.ok(e.message.includes(b.message), `message: ${e.message}`);
    });

    test(`${b.dir}: switchyard check exits 1 naming ${b.file}:${b.line}`, () => {
      const r = runCheck(fixture(b.dir));
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.equal(r.stdout.trim(), 'config has 1 error');
      const line = r.stderr.split('\n').find((l) => l.startsWith('error: '));
      assert.ok(line, r.stderr);
      assert.ok(line.startsWith(`error: ${b.file}:${b.line}:`), line);
      assert.ok(line.includes(` ${b.path || '/'}: `), line);
      assert.ok(line.includes(b.message), line);
    });
  }
});

describe('unset environment reference', () => {
  test('checkConfig: a warning at the key, the channel disabled, still ok', () => {
    const r = check(fixture('env-unset'));
    assert.equal(r.ok, true);
    assert.equal(r.diagnostics.length, 1);
    const w = r.diagnostics[0];
    assert.equal(w.level, 'warning');
    assert.equal(w.file, 'channels.yaml');
    assert.equal(w.path, '/channels/0/auth/key');
    assert.equal(w.line, 10);
    assert.equal(w.message, 'environment variable SWITCHYARD_TEST_UNSET_KEY is not set: channel "sim" is disabled');
    assert.equal(r.config!.resolvedChannels[0].enabled, false);
  });

  test('checkConfig: the same config with the variable set has no findings and the channel enabled', () => {
    const r = checkConfig(fixture('env-unset'), schemaRegistry(), { ...cleanEnv(), SWITCHYARD_TEST_UNSET_KEY: 'k-123' });
    assert.equal(r.ok, true);
    assert.deepEqual(r.diagnostics, []);
    assert.notEqual(r.config!.resolvedChannels[0].enabled, false);
    assert.equal(r.config!.resolvedChannels[0].auth?.key, 'k-123');
  });

  test('switchyard check: exit 0, the channel disabled naming the variable, config OK, the warning on stderr', () => {
    const r = runCheck(fixture('env-unset'));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n').slice(1), ['sim      disabled  http://127.0.0.1:4010  SWITCHYARD_TEST_UNSET_KEY is not set', 'config OK']);
    assert.equal(r.stderr.trim(), 'warning: channels.yaml:10:34 /channels/0/auth/key: environment variable SWITCHYARD_TEST_UNSET_KEY is not set: channel "sim" is disabled');
  });
});

test('an operator adds a request schema in the config directory, without touching the install', async () => {
  const { mkdtempSync, copyFileSync, mkdirSync, writeFileSync, readFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-own-schema-'));
  copyFileSync(join(fixture('gateway'), 'channels.yaml'), join(dir, 'channels.yaml'));
  const routes = readFileSync(join(fixture('gateway'), 'routes.yaml'), 'utf8').replace('body_schema: chat-completions.request.json', 'body_schema: my-chat.request.json');
  writeFileSync(join(dir, 'routes.yaml'), routes);
  assert.match(check(dir).diagnostics.map((d) => d.message).join('\n'), /no schema "my-chat.request.json"/);
  mkdirSync(join(dir, 'schemas', 'api'), { recursive: true });
  writeFileSync(join(dir, 'schemas', 'api', 'my-chat.request.json'), JSON.stringify({ type: 'object', required: ['model', 'messages', 'user'] }));
  const ok = checkConfig(dir, schemaRegistry(dir), cleanEnv());
  assert.ok(ok.ok, ok.diagnostics.map((d) => d.message).join('\n'));
  const { loadRuntime } = await import('../src/config/load-config.js');
  const validate = loadRuntime(dir, cleanEnv()).runtime.routes.find((r) => r.id === 'chat_completions')!.validate!;
  assert.equal(validate({ model: 'm', messages: [] }), false, 'the operator\'s own rule applies');
  writeFileSync(join(dir, 'schemas', 'api', 'clash.json'), JSON.stringify({ $id: 'chat-completions.request.json', type: 'object' }));
  const { SchemaRegistry } = await import('../src/config/schema-registry.js');
  assert.throws(() => new SchemaRegistry(join(projectRoot, 'schemas'), [join(dir, 'schemas', 'api')]), /already exists/);
});

test('traces name each vendor by OpenTelemetry\'s well-known value where it has one (telemetry_provider), else by its vendor file', async () => {
  const { loadRuntime } = await import('../src/config/load-config.js');
  const { providerOf } = await import('../src/tracing/attributes.js');
  const channels = loadRuntime(projectRoot, cleanEnv()).runtime.channels;
  const provider = (id: string) => providerOf(channels.find((c) => c.id === id)!)['gen_ai.provider.name'];
  assert.deepEqual(['sim_openai', 'sim_anthropic', 'sim_gemini', 'sim_kling'].map(provider), ['openai', 'anthropic', 'gcp.gemini', 'kling']);
});
