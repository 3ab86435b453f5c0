// Gemini CLI against the gateway: GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY (a gateway key), API-key auth selected in
// its settings, headless (`-p`). One plain turn at its default model choice ("auto": a classifier turn, then the Pro
// model), a tool round trip on a Gemini vendor (bytes untouched: the CLI really reads a file and sends its content
// back as a functionResponse), and one on a Messages vendor (Gemini ⇄ unified ⇄ Messages both ways). The bodies it
// sent are kept, normalised, in test/golden/agents/gemini-cli/ (SWITCHYARD_UPDATE_GOLDEN=1 rewrites them); the test
// checks what is stable in them (fields, generation settings, tool names, turns and parts) against the fixtures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Stack } from './helpers/stack.js';
import { agents, agentStack, installAgent, runAgent, skipUnlessInstalled, type Capture, type Captured } from './helpers/agents.js';
import { keepGolden, messagesShape, normalise, type Json } from './helpers/agent-golden.js';
import { recipeEnv, recipeText } from './helpers/agent-settings.js';

const install = installAgent(agents.gemini);
const skip = skipUnlessInstalled(install, 'Gemini CLI');
let stack: Stack;
let front: Capture;
let key: string;

before(async () => {
  if (skip) return;
  ({ stack, front, key } = await agentStack(install));
});
after(async () => { await front?.close(); await stack?.close(); });

/** The settings a user writes once (~/.gemini/settings.json), from the recipe: API-key auth; no telemetry, update checks or IDE. */
const settings = () => recipeText('gemini-settings', front.url);

async function gemini(prompt: string, extra: string[], files: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), 'switchyard-gemini-home-'));
  mkdirSync(join(home, '.gemini'));
  writeFileSync(join(home, '.gemini', 'settings.json'), settings());
  const cwd = mkdtempSync(join(tmpdir(), 'switchyard-gemini-work-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
  front.requests.length = 0;
  stack.sim.control.clear();
  const r = await runAgent(install.bin!, ['-p', prompt, '-o', 'json', '--skip-trust', ...extra], {
    home, cwd, env: recipeEnv('gemini-run', front.url, key), timeoutMs: 120_000, // GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY
  });
  return { ...r, home, cwd, sent: front.requests.filter((q) => q.path.startsWith('/v1beta/')) };
}

/** The request with what changes between runs or machines replaced: paths (the CLI's install, HOME, the working
 * directory, also lower-cased as the CLI names its project folder), the date, the key; long prose cut to a line. */
function normalised(body: unknown, path: string, home: string, cwd: string): Json {
  const places: [string, string][] = [[resolve(install.bin!, '../../..'), '<AGENT>'], [home, '<HOME>'], [cwd, '<WORK>'], [cwd.toLowerCase(), '<work>'], [key, '<KEY>']];
  return normalise({ path, body }, { places });
}
const agentSent = (q: Captured, r: { home: string; cwd: string }) => normalised(JSON.parse(q.body), q.path, r.home, r.cwd);

/** What a Gemini request fixture pins: its fields, generation settings, tool names, each turn's role and parts. */
function stable(fx: any) {
  const b = fx.body;
  return {
    path: fx.path,
    fields: Object.keys(b).sort(),
    generationConfig: b.generationConfig,
    tools: (b.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((f: any) => f.name)).sort(),
    turns: (b.contents ?? []).map((c: any) => `${c.role}: ${c.parts.map((p: any) => Object.keys(p).filter((k) => k !== 'thoughtSignature').join('+')).join(', ')}`),
  };
}

/** What a Messages request fixture pins: its path, max_tokens, and shape (fields, tool names, turns and blocks). */
const stableMessages = (fx: any) => ({ path: fx.path, max_tokens: fx.body.max_tokens, ...(messagesShape(fx.body) as object) });

const golden = (name: string, value: Json, pin: (fx: any) => unknown = stable) => keepGolden('gemini-cli', name, value, pin);

test('Gemini CLI at its defaults: one plain turn through /v1beta streamGenerateContent', { skip }, async () => {
  const r = await gemini('Say hello [sim chunks=3]', []);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.equal(JSON.parse(r.stdout).response.trim(), 'tok1 tok2 tok3');
  const turns = r.sent.filter((q) => q.path.includes(':streamGenerateContent'));
  assert.equal(turns.length, 1);
  assert.equal(turns[0].path, '/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse');
  assert.equal(turns[0].status, 200);
  assert.equal(turns[0].headers['x-goog-api-key'], key, 'the key in Google\'s header');
  // "auto" first asks gemini-3.5-flash-lite which model should answer; the shipped catalog does not price it, the
  // CLI falls back to its default and says so on stderr.
  const classifier = r.sent.filter((q) => q.path.includes('gemini-3.5-flash-lite'));
  assert.ok(classifier.every((q) => q.status === 404), classifier.map((q) => `${q.path} ${q.status}`).join(', '));
  golden('plain', agentSent(turns[0], r));
});

test('Gemini CLI: a tool round trip on a Gemini vendor (read_file runs, its output goes back as a functionResponse)', { skip }, async () => {
  const args = Buffer.from(JSON.stringify({ file_path: 'notes.txt' })).toString('base64url');
  const r = await gemini(`Read notes.txt [sim tool_call=read_file tool_args=${args}]`, ['-m', 'gemini-2.5-flash', '--approval-mode', 'yolo'],
    { 'notes.txt': 'the launch code is 4242\n' });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const out = JSON.parse(r.stdout);
  assert.equal(out.response.trim(), 'tok1 tok2 tok3 tok4 tok5');
  assert.equal(out.stats.tools.byName.read_file?.success, 1, JSON.stringify(out.stats.tools));
  const turns = r.sent.filter((q) => q.path.includes(':streamGenerateContent'));
  assert.equal(turns.length, 2);
  assert.ok(turns.every((q) => q.status === 200));
  const last = JSON.parse(turns[1].body).contents.at(-1);
  assert.equal(last.role, 'user');
  const response = last.parts.find((p: any) => p.functionResponse).functionResponse;
  assert.equal(response.name, 'read_file');
  assert.match(JSON.stringify(response.response), /the launch code is 4242/);
  const upstream = stack.sim.control.requests().filter((q) => q.path.startsWith('/v1beta/'));
  assert.deepEqual(upstream.at(-1)!.body, JSON.parse(turns[1].body), 'the Gemini vendor got the CLI\'s own body');
  golden('tool-round-trip-gemini', agentSent(turns[1], r));
});

test('Gemini CLI: a tool round trip on a Messages vendor (translated both ways)', { skip }, async () => {
  const r = await gemini('List the files [sim tool_call=list_directory]', ['-m', 'claude-sonnet-4-5', '--approval-mode', 'yolo']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const out = JSON.parse(r.stdout);
  assert.equal(out.response.trim(), 'tok1 tok2 tok3 tok4 tok5');
  assert.equal(out.stats.tools.totalCalls, 1, JSON.stringify(out.stats.tools));
  const turns = r.sent.filter((q) => q.path.includes(':streamGenerateContent'));
  assert.equal(turns.length, 2);
  assert.ok(turns.every((q) => q.status === 200));
  const sent = stack.sim.control.requests().filter((q) => q.path === '/v1/messages').map((q) => q.body as any);
  assert.equal(sent.length, 2);
  assert.ok(sent[0].tools.some((t: any) => t.name === 'list_directory'), 'its functionDeclarations became Messages tools');
  assert.ok(typeof sent[0].system === 'string' && sent[0].system.length > 1000, 'its system instruction became the system prompt');
  // It sends temperature and topP together; Anthropic refuses the pair (as the simulator does): temperature only.
  const config = JSON.parse(turns[0].body).generationConfig;
  assert.ok(typeof config.temperature === 'number' && typeof config.topP === 'number', JSON.stringify(config));
  assert.deepEqual([sent[0].temperature, 'top_p' in sent[0]], [config.temperature, false]);
  const [use, result] = sent[1].messages.slice(-2);
  assert.equal(use.content.at(-1).type, 'tool_use');
  assert.equal(result.content[0].type, 'tool_result');
  assert.equal(result.content[0].tool_use_id, use.content.at(-1).id, 'the function response answers the call it was made for');
  golden('tool-round-trip-messages', agentSent(turns[1], r));
  const vendorBody = stack.sim.control.requests().filter((q) => q.path === '/v1/messages').at(-1)!;
  golden('tool-round-trip-messages.vendor', normalised(vendorBody.body, vendorBody.path, r.home, r.cwd), stableMessages);
});
