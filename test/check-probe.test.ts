// `switchyard check` per channel and `check --probe` end to end: the real CLI against the bundled simulator with good
// keys, wrong keys (named as an authentication failure, never printed) and a dead port (unreachable).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../simulator/server.js';
import { projectRoot } from '../src/config/load-config.js';
import { displayUrl } from '../src/config/channel-status.js';
import { compileProbe } from '../src/config/compile-probe.js';
import { judgeAnswer } from '../src/probe/judge.js';
import { fixture } from './helpers/stack.js';

const cli = join(projectRoot, 'dist', 'src', 'cli.js');
const secrets = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'SIM_KEY', 'SIM_ACCESS_KEY', 'SIM_SECRET_KEY', 'SWITCHYARD_CONFIG_DIR'];

/** The CLI as a child process, asynchronously: the simulator answering it runs in this process. */
function run(args: string[], extra: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const k of secrets) if (!(k in extra)) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'check', ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill(); reject(new Error(`check did not end: ${stdout}${stderr}`)); }, 30_000);
    child.once('exit', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

/** Rows of the probe table: channel → [verdict, call and result]. */
function probeRows(stdout: string): Map<string, string> {
  const table = stdout.slice(stdout.indexOf('channel', stdout.indexOf('config OK')));
  return new Map(table.split('\n').slice(1).filter((l) => /^\S+\s{2}/.test(l) && !l.startsWith('probe:')).map((l) => {
    const [id, ...rest] = l.split(/\s{2,}/);
    return [id, rest.join('  ')];
  }));
}

let sim: Simulator;
before(async () => { sim = await startSimulator({ port: 0, keys: ['sim-key'] }); });
after(() => sim.close());

const probed = ['sim_openai', 'sim_compatible', 'sim_legacy', 'sim_anthropic', 'sim_fixed_duration', 'sim_kling', 'sim_vidu', 'sim_ark', 'sim_ark_assets', 'sim_wan', 'sim_hailuo',
  'sim_unified', 'sim_art', 'sim_music', 'sim_reseller_images', 'sim_gemini', 'sim_visual', 'sim_cohere'];

test('check: each channel enabled or why not, and its base URL', async () => {
  const r = await run([], { SWITCHYARD_SIM_URL: sim.url });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.at(-1), 'config OK');
  assert.match(r.stdout, new RegExp(`^sim_openai +enabled +${sim.url.replace(/[.]/g, '\\.')}$`, 'm'));
  assert.match(r.stdout, /^openai +disabled +https:\/\/api\.openai\.com +OPENAI_API_KEY is not set$/m);
  assert.match(r.stdout, /^anthropic +disabled +https:\/\/api\.anthropic\.com +ANTHROPIC_API_KEY is not set$/m);
});

test('check: a channel switched off in the file says so; a base URL never shows credentials or query values', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-status-'));
  cpSync(fixture('gateway'), dir, { recursive: true });
  const file = join(dir, 'channels.yaml');
  writeFileSync(file, readFileSync(file, 'utf8')
    .replace('  - id: sim_vip\n', '  - id: sim_vip\n    enabled: false\n')
    .replace('base_url: "${env:SWITCHYARD_SIM_URL}"\n    groups: [default', 'base_url: "http://ops:${env:PROBE_TEST_PASSWORD}@127.0.0.1:9/v1?key=${env:PROBE_TEST_PASSWORD}"\n    groups: [default'));
  const r = await run(['--dir', dir], { SWITCHYARD_SIM_URL: sim.url, PROBE_TEST_PASSWORD: 'hunter2-secret' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^sim_vip +disabled +\S+ +`enabled: false` in channels\.yaml$/m);
  assert.match(r.stdout, /^sim_shared +enabled +http:\/\/\*\*\*@127\.0\.0\.1:9\/v1\?key=\*\*\*$/m);
  assert.doesNotMatch(r.stdout + r.stderr, /hunter2/);
  assert.equal(displayUrl('https://user:pw@example.com/base/?key=abc&x=1'), 'https://***@example.com/base/?key=***&x=***');
});

test('check --probe with good keys: every enabled channel ok, read-only calls only, exit 0', async () => {
  sim.control.clear();
  const r = await run(['--probe'], { SWITCHYARD_SIM_URL: sim.url });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const rows = probeRows(r.stdout);
  for (const id of probed) assert.match(rows.get(id) ?? '', /^ok +(GET|POST) \/\S* +HTTP (200|404), \d+ ms$/, `${id}: ${rows.get(id)}`);
  assert.match(rows.get('openai') ?? '', /^not probed +disabled: OPENAI_API_KEY is not set$/);
  assert.match(rows.get('sim_jina') ?? '', /^not probed +no `probe` in its config$/, 'every call Jina answers spends tokens');
  assert.match(r.stdout, /^probe: 18 ok, 0 failed, 3 not probed$/m);
  const calls = sim.control.requests();
  assert.equal(calls.length, probed.length, 'one call per probed channel');
  const writes = calls.filter((c) => c.method === 'POST' && !['/mj/task/list-by-condition', '/suno/fetch', '/'].includes(c.path));
  assert.deepEqual(writes, [], 'no generation was asked for');
  assert.equal(sim.control.videoTasks().length + sim.control.mediaTasks().length, 0, 'no task was created');
});

test('check --probe with wrong keys: each channel names the authentication failure and the vendor\'s code; no key is printed, even echoed', async () => {
  const wrong = { SWITCHYARD_SIM_URL: sim.url, SIM_KEY: 'sk-wrong-key-0123456789', SIM_SECRET_KEY: 'wrong-kling-secret' };
  const r = await run(['--probe'], wrong);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const rows = probeRows(r.stdout);
  for (const id of probed) assert.match(rows.get(id) ?? '', /^auth failed +(GET|POST) \S+ +HTTP (400|401|403)\b/, `${id}: ${rows.get(id)}`);
  assert.match(rows.get('sim_openai')!, /HTTP 401 \(invalid_api_key\): the vendor refused the key/);
  assert.match(rows.get('sim_gemini')!, /HTTP 400 \(INVALID_ARGUMENT\): the answer says the key was refused \(auth_failed_when\)/);
  assert.match(r.stdout, /^probe: 0 ok, 18 failed, 3 not probed$/m);
  // A careless vendor repeats the key in every string of its error: codes are then no identifiers and are left out.
  sim.control.setEchoCredential(true);
  try {
    const echoed = await run(['--probe'], wrong);
    assert.equal(echoed.code, 1);
    assert.match(echoed.stdout, /^probe: 0 ok, 18 failed, 3 not probed$/m);
    for (const out of [r.stdout + r.stderr, echoed.stdout + echoed.stderr]) {
      assert.doesNotMatch(out, /sk-wrong|wrong-kling|wrong-visual|sim-key/);
      assert.doesNotMatch(out, /\*{4}/, 'nothing had to be masked: no vendor text is printed at all');
    }
  } finally {
    sim.control.setEchoCredential(false);
  }
});

test('check --probe on a dead port: unreachable, exit 1; --channel picks channels', async () => {
  const dead = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
  });
  const r = await run(['--probe', '--channel', 'sim_openai,sim_kling'], { SWITCHYARD_SIM_URL: `http://127.0.0.1:${dead}` });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const rows = probeRows(r.stdout);
  assert.deepEqual([...rows.keys()], ['sim_openai', 'sim_kling']);
  for (const row of rows.values()) assert.match(row, /^unreachable +GET \S+ +cannot connect \(ECONNREFUSED\), \d+ ms$/);
  const unknown = await run(['--probe', '--channel', 'nope'], { SWITCHYARD_SIM_URL: sim.url });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no channel nope in the config/);
});

test('check --probe on the deployment config: OpenAI\'s and Anthropic\'s model lists with their own auth', async () => {
  const urls = { OPENAI_BASE_URL: sim.url, ANTHROPIC_BASE_URL: sim.url };
  const good = await run(['--dir', join(projectRoot, 'deploy', 'config'), '--probe'], { ...urls, OPENAI_API_KEY: 'sim-key', ANTHROPIC_API_KEY: 'sim-key' });
  assert.equal(good.code, 0, good.stdout + good.stderr);
  assert.match(good.stdout, /^openai +ok +GET \/v1\/models +HTTP 200, \d+ ms$/m);
  assert.match(good.stdout, /^anthropic +ok +GET \/v1\/models +HTTP 200, \d+ ms$/m);
  const bad = await run(['--dir', join(projectRoot, 'deploy', 'config'), '--probe'], { ...urls, OPENAI_API_KEY: 'sim-key', ANTHROPIC_API_KEY: 'sk-ant-revoked-0000' });
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /^anthropic +auth failed +GET \/v1\/models +HTTP 401 \(authentication_error\): the vendor refused the key, \d+ ms$/m);
});

test('a probe answer is judged by ok_status, auth_failed_when, then the status', async () => {
  const judge = (spec: Parameters<typeof compileProbe>[0], status: number, body?: unknown) =>
    judgeAnswer(compileProbe(spec, 1000), status, body === undefined ? undefined : Buffer.from(JSON.stringify(body)));
  const get = { method: 'GET' as const, path: '/x' };
  assert.equal((await judge(get, 204)).verdict, 'ok');
  assert.equal((await judge(get, 404)).verdict, 'unexpected');
  assert.equal((await judge({ ...get, ok_status: [200, 404] }, 404)).verdict, 'ok');
  assert.equal((await judge({ ...get, ok_status: [200, 404] }, 200)).verdict, 'ok');
  assert.equal((await judge({ ...get, ok_status: [404] }, 200)).verdict, 'unexpected', 'ok_status replaces the 2xx default');
  assert.equal((await judge(get, 403)).verdict, 'auth failed');
  assert.equal((await judge(get, 429, { error: { code: 'insufficient_quota' } })).detail.startsWith('HTTP 429 (insufficient_quota)'), true);
  assert.equal((await judge(get, 429)).verdict, 'rate limited');
  assert.equal((await judge(get, 503)).verdict, 'vendor error');
  assert.equal((await judge(get, 302)).verdict, 'unexpected');
  const biz = { ...get, auth_failed_when: 'base.code in [1004, 2049]' };
  assert.equal((await judge(biz, 200, { base: { code: 2049 } })).verdict, 'auth failed');
  assert.equal((await judge(biz, 200, { base: { code: 2013 } })).verdict, 'ok');
  assert.equal((await judge(biz, 200, 'not an object')).verdict, 'ok');
  const long = { error: { code: `invalid_api_key ${'x'.repeat(80)}` } };
  assert.equal((await judge(get, 401, long)).detail, 'HTTP 401: the vendor refused the key', 'a code that is not an identifier is never printed');
});
