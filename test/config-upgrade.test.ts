// Config of an earlier release: renamed keys are read as their replacement with a deprecation warning at their line
// (and the gateway serves traffic on it as it did); removed keys without a safe reading fail naming the replacement.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkConfig } from '../src/config/check.js';
import { loadRuntime, projectRoot, schemaRegistry } from '../src/config/load-config.js';
import { fixture, startStack, eventually } from './helpers/stack.js';
import { call } from './helpers/video.js';

const old = fixture('upgrade-0.1');
const env = () => ({ ...process.env, SWITCHYARD_SIM_URL: 'http://127.0.0.1:4010' });
const check = (dir: string) => checkConfig(dir, schemaRegistry(dir), env());

describe('a config of the previous release', () => {
  test('loads: one deprecation warning per renamed key, at its line, and no error', () => {
    const r = check(old);
    assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
    const found = r.diagnostics.map((d) => `${d.level} ${d.file}:${d.line} ${d.path}`);
    assert.deepEqual(found, [
      'warning routes.yaml:16 /routes/1/units',
      'warning routes.yaml:26 /routes/2/task/seconds',
      'warning routes.yaml:27 /routes/2/task/saturated_answer',
      'warning channels.yaml:4 /dispatch/breaker_failures',
      'warning channels.yaml:19 /channels/0/operations/chat_completions/stream_end',
    ]);
    const messages = r.diagnostics.map((d) => d.message);
    assert.ok(messages.every((m) => m.startsWith('deprecated: ')), messages.join('\n'));
    assert.match(messages[0], /`units` was replaced by `price_inputs\.units`; read as `price_inputs: \{ units: \[n\] \}`/);
    assert.match(messages[1], /`task\.seconds` was replaced by `price_inputs\.seconds`; read as `price_inputs: \{ seconds: \[seconds, duration\] \}`/);
    assert.match(messages[2], /`task\.saturated_answer` was replaced by the route's `error_answer`/);
    assert.match(messages[3], /read as `breaker_min_requests: 3`/);
  });

  test('is read as its replacement: price inputs, the saturated answer for too_many_requests only, the breaker', async () => {
    const { runtime } = loadRuntime(old, env());
    const route = (id: string) => runtime.routes.find((r) => r.id === id)!;
    assert.deepEqual(route('images_generations').priceInputs, { units: [['n']] });
    assert.deepEqual(route('video_create').priceInputs, { seconds: [['seconds'], ['duration']] });
    const answer = route('video_create').errorAnswer!;
    const saturated = await answer.run({}, { code: 'too_many_requests', message: 'full', status: 429 });
    assert.deepEqual(JSON.parse(JSON.stringify(saturated)), { code: 30, description: 'full', result: null });
    assert.equal(await answer.run({}, { code: 'invalid_request', message: 'bad', status: 400 }), undefined, 'other errors keep their shape');
    assert.equal(runtime.breaker.minRequests, 3);
  });

  test('serves traffic as it did: images charged per n, video reserved for the seconds asked, saturation in the old shape', { timeout: 20_000 }, async () => {
    const stack = await startStack({ configDir: old });
    try {
      const { key, id } = await stack.token({ quota: 100_000 });
      const img = await call(stack, key, 'POST', '/v1/images/generations', { model: 'img-any', prompt: 'a kite', n: 2 });
      assert.equal(img.status, 200, img.text);
      const video = await call(stack, key, 'POST', '/v1/video/create', { model: 'veo3', prompt: 'a fox [sim polls=1000]', duration: 8 });
      assert.equal(video.status, 200, video.text);
      await eventually(async () => {
        const amounts = (await stack.gw.store.quota.entries(id)).filter((e) => e.kind === 'reserve').map((e) => e.amount).sort((a, b) => a - b);
        return JSON.stringify(amounts) === JSON.stringify([60, 80]);
      });
      const full = await call(stack, key, 'POST', '/v1/video/create', { model: 'veo3', prompt: 'another', duration: 8 });
      assert.equal(full.status, 429, full.text);
      assert.deepEqual(Object.keys(full.json), ['code', 'description', 'result']);
      assert.equal(full.json.code, 30);
      assert.match(full.json.description, /in flight/);
    } finally {
      await stack.close();
    }
  });
});

/** The old fixture with one edit; `find` must occur in `file`. */
function variant(file: 'routes.yaml' | 'channels.yaml', find: string, replace: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-upgrade-'));
  cpSync(old, dir, { recursive: true });
  const text = readFileSync(join(dir, file), 'utf8');
  assert.ok(text.includes(find), `${file} has ${find}`);
  writeFileSync(join(dir, file), text.replace(find, replace));
  return dir;
}

interface Refused { name: string; file: 'routes.yaml' | 'channels.yaml'; find: string; replace: string; path: string; says: RegExp }

const refused: Refused[] = [
  { name: 'units that compute', file: 'routes.yaml', find: 'units: "n ? $number(n) : 1"', replace: 'units: "$number(n) * 2"', path: '/routes/1/units', says: /`units` was replaced by `price_inputs\.units`.*not a plain field pick/ },
  { name: 'units with another default', file: 'routes.yaml', find: 'units: "n ? $number(n) : 1"', replace: 'units: "n ? n : 4"', path: '/routes/1/units', says: /write `price_inputs\.units` yourself/ },
  { name: 'units beside price_inputs.units', file: 'routes.yaml', find: 'units: "n ? $number(n) : 1"', replace: 'units: n\n    price_inputs: { units: [n] }', path: '/routes/1/units', says: /which this route already sets: remove `units`/ },
  { name: 'saturated_answer beside error_answer', file: 'routes.yaml', find: '    task:\n      action: submit', replace: '    error_answer: \'{ "code": 4 }\'\n    task:\n      action: submit', path: '/routes/2/task/saturated_answer', says: /already sets.*remove `task\.saturated_answer`/ },
  { name: 'breaker_failures beside breaker_min_requests', file: 'channels.yaml', find: 'breaker_failures: 3', replace: 'breaker_failures: 3\n  breaker_min_requests: 10', path: '/dispatch/breaker_failures', says: /replaced by `dispatch\.breaker_min_requests`.*remove `breaker_failures`/ },
  { name: 'stream_end: eof', file: 'channels.yaml', find: 'stream_end: done', replace: 'stream_end: eof', path: '/channels/0/operations/chat_completions/stream_end', says: /`stream_end` was removed: .*`dialects\.<name>\.stream_end`/ },
  { name: 'an operation error slot', file: 'channels.yaml', find: 'stream_end: done', replace: 'error: "{ \\"message\\": msg }"', path: '/channels/0/operations/chat_completions/error', says: /`error` was removed: .*`\{error: \{message, code, type\}\}`/ },
  { name: 'the query auth scheme', file: 'channels.yaml', find: 'auth: { scheme: bearer, key: sim-key }', replace: 'auth: { scheme: query, param: api_key, key: sim-key }', path: '/channels/0/auth/scheme', says: /auth scheme `query` was removed.*use `header`/ },
];

describe('removed keys without a safe reading', () => {
  for (const c of refused) {
    test(`${c.name}: one error at its line naming the replacement; switchyard check exits 1`, () => {
      const dir = variant(c.file, c.find, c.replace);
      const r = check(dir);
      assert.equal(r.ok, false);
      const errors = r.diagnostics.filter((d) => d.level === 'error');
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.equal(errors[0].file, c.file);
      assert.equal(errors[0].path, c.path);
      assert.ok(errors[0].line, 'a line number');
      assert.match(errors[0].message, c.says);
      assert.doesNotMatch(errors[0].message, /is not allowed/);
      const cli = spawnSync(process.execPath, [join(projectRoot, 'dist/src/cli.js'), 'check', '--dir', dir], { env: env(), encoding: 'utf8', timeout: 20_000 });
      assert.equal(cli.status, 1, cli.stdout + cli.stderr);
      assert.match(cli.stderr, new RegExp(`^error: ${c.file}:${errors[0].line}:\\d+ ${c.path}: `, 'm'));
    });
  }
});

test('a submit route for per-second models without price_inputs.seconds is warned about (the old default is gone)', () => {
  const dir = variant('routes.yaml', '      seconds: "$number(seconds ? seconds : duration)"\n', '');
  const r = check(dir);
  assert.equal(r.ok, true);
  const w = r.diagnostics.find((d) => d.path === '/routes/2' && d.level === 'warning');
  assert.match(w?.message ?? '', /route "video_create" submits tasks for models priced per second \(veo3\) but has no `price_inputs\.seconds`/);
});

test('CHANGELOG.md names every key this release renamed or removed, and its replacement', () => {
  const log = readFileSync(join(projectRoot, 'CHANGELOG.md'), 'utf8');
  for (const k of ['`units`', '`task.seconds`', '`task.saturated_answer`', '`dispatch.breaker_failures`', '`operations.<op>.stream_end: done`',
    '`operations.<op>.stream_end: eof`', '`operations.<op>.error`', '`auth.scheme: query`', '`auth.param`',
    '`price_inputs.units`', '`price_inputs.seconds`', '`error_answer`', '`dispatch.breaker_min_requests`', '`probe`']) {
    assert.ok(log.includes(k), `CHANGELOG.md mentions ${k}`);
  }
});
