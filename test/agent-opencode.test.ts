// opencode at its defaults against the gateway: an `@ai-sdk/openai-compatible` provider in the project's opencode.json
// (base URL and gateway key, a model with no limits set) and `opencode run`. opencode asks for its own default
// completion limit, max_tokens 32000, whatever the model: the gateway lowers it to the model's 16384 (it answered 400
// before). One plain turn and one tool round trip (the simulator steered into a call of opencode's `read` tool); the
// chat requests it sent are kept, normalized, as golden fixtures (test/golden/agents/opencode/), and
// SWITCHYARD_UPDATE_GOLDEN=1 rewrites them. A model set to `over_limit: refuse` gives opencode the 400 it met before.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, type Stack } from './helpers/stack.js';
import { agents, agentStack, installAgent, runAgent, skipUnlessInstalled, type Capture } from './helpers/agents.js';
import { quickTaskConfig } from './helpers/child-gateway.js';
import { keepGolden, normalise } from './helpers/agent-golden.js';
import { recipeEnv, recipeText } from './helpers/agent-settings.js';

const install = installAgent(agents.opencode);
const skip = skipUnlessInstalled(install, 'opencode');
const model = 'gpt-4o-mini'; // max_output_tokens 16384 (vendors/openai.yaml)
let stack: Stack;
let front: Capture;
let key: string;
let work: string;

before(async () => {
  if (skip) return;
  ({ stack, front, key } = await agentStack(install));
  work = realpathSync(mkdtempSync(join(tmpdir(), 'switchyard-opencode-')));
  writeFileSync(join(work, 'opencode.json'), JSON.stringify(settings(front.url, key), null, 2));
  writeFileSync(join(work, 'notes.txt'), 'hello from notes\n');
});
after(async () => { await front?.close(); await stack?.close(); });

/** The recipe's settings (docs/recipes/coding-agents.md): a provider through the AI SDK's OpenAI-compatible package, no model limits. */
function settings(gateway: string, apiKey: string) {
  const s = JSON.parse(recipeText('opencode-config', gateway));
  assert.equal(s.model, `switchyard/${model}`, 'the recipe\'s model is the one this test checks the limit of');
  s.provider.switchyard.options.apiKey = apiKey;
  return s;
}

// models.dev (opencode's model catalogue) is out of reach here; without it opencode waits ~8 s for the fetch to fail.
const opencode = (prompt: string, cwd = work) => runAgent(install.bin!, ['run', prompt], {
  cwd, env: recipeEnv('opencode-run', '', ''), timeoutMs: 120_000, // OPENCODE_DISABLE_MODELS_FETCH=1
});

type Body = { messages: { role: string; content: unknown; tool_calls?: unknown[] }[]; tools?: { function: { name: string; description: string } }[]; [k: string]: unknown };

/** The chat requests of one run, the session title's apart (opencode asks for it beside the first turn). */
function sentBodies(): { title: Body[]; turns: Body[] } {
  const chat = front.requests.filter((q) => q.path === '/v1/chat/completions');
  assert.ok(chat.every((q) => q.status === 200), chat.map((q) => `${q.path} ${q.status}`).join(', '));
  const bodies = chat.map((q) => JSON.parse(q.body) as Body);
  const isTitle = (b: Body) => String(b.messages[0]?.content).startsWith('You are a title generator');
  return { title: bodies.filter(isTitle), turns: bodies.filter((b) => !isTitle(b)) };
}

/** Every request asked for 32000, was lowered to 16384 on its way to the vendor, said so, and cost ≤ its reservation. */
function assertClamped(bodies: Body[]): void {
  const upstream = stack.sim.control.requests().filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as Body);
  for (const b of bodies) {
    assert.equal(b.max_tokens, 32000, 'opencode\'s own default');
    const seen = upstream.find((u) => JSON.stringify(u.messages) === JSON.stringify(b.messages));
    assert.ok(seen, 'the simulator received the request');
    assert.deepEqual(seen, { ...b, max_tokens: 16384 }, 'only the limit changed on the way');
  }
  const lines = stack.logs().filter((l) => l.msg === 'request' && l.route === 'chat_completions');
  assert.ok(lines.length >= bodies.length);
  for (const l of lines) {
    assert.equal(l.status, 200);
    assert.equal(l.clamped, 'max_tokens=32000;to=16384');
    assert.ok(l.charged > 0 && l.charged <= l.reserved, `charged ${l.charged} of ${l.reserved}`);
  }
}

/** What varies between runs out (the work dir, the date, call ids; long prompts and tool descriptions cut to a line). */
const normalised = (b: Body) => normalise(b, { places: [[work, '<work>']] });

test('opencode: one plain turn; its max_tokens 32000 is lowered to the model\'s 16384', { skip, timeout: 150_000 }, async () => {
  const r = await opencode('Say hello [sim chunks=3]');
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.equal(r.stdout.trim(), 'tok1 tok2 tok3');
  const { title, turns } = sentBodies();
  assert.equal(turns.length, 1);
  assert.equal(turns[0].stream, true);
  assert.deepEqual(turns[0].stream_options, { include_usage: true });
  assert.ok(turns[0].tools?.some((t) => t.function.name === 'read'));
  assertClamped([...title, ...turns]);
  keepGolden('opencode', 'plain', { title: title.map(normalised), turns: turns.map(normalised) });
});

test('opencode: a tool round trip (a read call, the file\'s text sent back, a final answer)', { skip, timeout: 150_000 }, async () => {
  front.requests.length = 0;
  stack.sim.control.clear();
  const r = await opencode('Read notes.txt [sim tool_call=read tool_arg=filePath:notes.txt]');
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.equal(r.stdout.trim(), 'tok1 tok2 tok3 tok4 tok5');
  const { title, turns } = sentBodies();
  assert.equal(turns.length, 2, 'the call, then the answer after its result');
  const [call, result] = turns[1].messages.slice(-2) as [{ tool_calls: { id: string; function: { name: string; arguments: string } }[] }, { role: string; tool_call_id: string; content: string }];
  assert.equal(call.tool_calls[0].function.name, 'read');
  assert.deepEqual(JSON.parse(call.tool_calls[0].function.arguments), { filePath: 'notes.txt' });
  assert.equal(result.role, 'tool');
  assert.equal(result.tool_call_id, call.tool_calls[0].id);
  assert.match(result.content, /hello from notes/, 'opencode ran its read tool and sent the file back');
  assertClamped([...title, ...turns]);
  keepGolden('opencode', 'tool', { title: title.map(normalised), turns: turns.map(normalised) });
});

test('opencode against a model set to `over_limit: refuse`: the 400 the issue met, named in opencode\'s error', { skip, timeout: 150_000 }, async () => {
  const strict = await startStack({ configDir: quickTaskConfig({}, [[['models', model], {
    owned_by: 'openai', max_output_tokens: 16384, over_limit: 'refuse', price: { input_per_mtok: 150, output_per_mtok: 600 },
  }]]) });
  try {
    const { key: k } = await strict.token({ quota: 10_000_000 });
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'switchyard-opencode-')));
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify(settings(strict.url, k)));
    const r = await opencode('Say hello [sim chunks=3]', dir);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr + r.stdout, /`max_tokens` must be a whole number of tokens from 1 to 16384/);
    const lines = strict.logs().filter((l) => l.msg === 'request' && l.route === 'chat_completions');
    assert.ok(lines.length >= 1 && lines.every((l) => l.status === 400 && l.reserved === undefined), JSON.stringify(lines));
    assert.equal(strict.sim.control.requests().filter((q) => q.path === '/v1/chat/completions').length, 0, 'nothing reached the vendor');
  } finally {
    await strict.close();
  }
});
