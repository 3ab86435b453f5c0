// Codex CLI at its defaults against the gateway: a `model_providers` entry in ~/.codex/config.toml (wire_api
// "responses", the gateway's /v1, the gateway key from an env variable) and `codex exec`. Two targets: a vendor that
// speaks only chat completions (compat-chat: Codex's Responses requests translated) and an OpenAI model (gpt-4o-mini
// on sim_openai: passed through natively). For each, one plain turn and one tool round trip (the simulator steered
// into a call of Codex's exec_command); the request bodies Codex sent are kept as golden fixtures of the translation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Stack } from './helpers/stack.js';
import { agents, agentStack, installAgent, runAgent, skipUnlessInstalled, type Capture, type Captured } from './helpers/agents.js';
import { keepGolden, normalise } from './helpers/agent-golden.js';
import { recipeEnv, recipeText } from './helpers/agent-settings.js';

const install = installAgent(agents.codex);
const skip = skipUnlessInstalled(install, 'Codex CLI');
let stack: Stack;
let front: Capture;
let key: string;

before(async () => {
  if (skip) return;
  ({ stack, front, key } = await agentStack(install, { env: { OPENAI_API_KEY: '' } }));
});
after(async () => { await front?.close(); await stack?.close(); });

/** The recipe's settings (docs/recipes/coding-agents.md), word for word but the URL and the model: a provider entry. */
function codexHome(model: string): string {
  const home = mkdtempSync(join(tmpdir(), 'switchyard-codex-home-'));
  mkdirSync(join(home, '.codex'));
  const config = recipeText('codex-config', front.url).replace(/^model = "[^"]*"/m, `model = "${model}"`);
  writeFileSync(join(home, '.codex', 'config.toml'), config);
  return home;
}

async function codex(model: string, prompt: string): Promise<{ out: string; sent: Captured[] }> {
  front.requests.length = 0;
  const home = codexHome(model);
  const cwd = mkdtempSync(join(tmpdir(), 'switchyard-codex-work-'));
  writeFileSync(join(cwd, 'notes.txt'), 'remember the milk\n');
  const last = join(home, 'last-message.txt');
  const r = await runAgent(install.bin!, ['exec', '--skip-git-repo-check', '--ephemeral', '-o', last, prompt], {
    home, cwd, env: recipeEnv('codex-run', front.url, key), timeoutMs: 90_000, // SWITCHYARD_API_KEY
  });
  assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`.slice(-3000));
  const sent = front.requests.filter((q) => q.path === '/v1/responses');
  assert.ok(sent.length >= 1 && sent.every((q) => q.status === 200), sent.map((q) => `${q.path} ${q.status}`).join(', '));
  return { out: readFileSync(last, 'utf8').trim(), sent };
}

const body = (q: Captured) => JSON.parse(q.body);

/** What must not change between runs: the fields, the tools (type and name, namespace members), the input items. */
function shape(b: any): unknown {
  const tool = (t: any): unknown => [t.type, t.name, ...(t.tools ? [t.tools.map(tool)] : [])];
  return { fields: Object.keys(b).sort(), tools: (b.tools ?? []).map(tool), input: (b.input ?? []).map((i: any) => [i.type, i.role]) };
}
const upstream = (path: string) => stack.sim.control.requests().filter((r) => r.path === path);

for (const target of [
  { name: 'a chat-only vendor (compat-chat, translated)', model: 'compat-chat', native: false },
  { name: 'an OpenAI model (gpt-4o-mini on sim_openai, passed through)', model: 'gpt-4o-mini', native: true },
  { name: 'a Messages vendor (claude-sonnet-4-5 on sim_anthropic, translated twice)', model: 'claude-sonnet-4-5', native: false, messages: true },
]) {
  const tag = target.native ? 'native' : target.messages ? 'messages' : 'translated';
  const vendorPath = target.messages ? '/v1/messages' : '/v1/chat/completions';

  test(`Codex CLI on ${target.name}: one plain turn`, { skip }, async () => {
    stack.sim.control.clear();
    const { out, sent } = await codex(target.model, 'Say hello [sim chunks=3]');
    assert.equal(out, 'tok1 tok2 tok3');
    const first = body(sent[0]);
    // What the issue saw refused before: namespace and hosted tools, include, store: false, reasoning, prompt_cache_key.
    assert.ok(first.tools.some((t: any) => t.type === 'namespace') && first.tools.some((t: any) => t.type === 'web_search'), JSON.stringify(first.tools.map((t: any) => t.type)));
    assert.deepEqual([first.store, first.include], [false, ['reasoning.encrypted_content']]);
    if (target.native) {
      assert.deepEqual(upstream('/v1/responses').at(-1)!.body, first, 'OpenAI got what Codex sent');
      assert.equal(upstream('/v1/chat/completions').length + upstream('/v1/messages').length, 0);
    } else {
      const sentOn = upstream(vendorPath).at(-1)!.body as any;
      const names = target.messages ? sentOn.tools.map((t: any) => t.name) : sentOn.tools.map((t: any) => t.type === 'function' && t.function.name);
      assert.ok(names.includes('exec_command') && names.every(Boolean), JSON.stringify(names));
      assert.ok(names.some((n: string) => n.startsWith('multi_agent_v1__')), 'namespace members flattened');
      const logged = stack.logs().filter((l) => l.msg === 'request' && l.route === 'responses').at(-1)!;
      assert.deepEqual(logged.dropped_tools, ['web_search']);
    }
    keepGolden('codex', `${tag}.plain-turn`, normalise(first), shape);
  });

  test(`Codex CLI on ${target.name}: a tool round trip (exec_command called, its output sent back, a final answer)`, { skip }, async () => {
    stack.sim.control.clear();
    const args = Buffer.from(JSON.stringify({ cmd: 'cat notes.txt' })).toString('base64url');
    const { out, sent } = await codex(target.model, `Read notes.txt [sim tool_call=exec_command tool_args=${args}]`);
    assert.ok(sent.length >= 2, `${sent.length} requests`);
    const second = body(sent[1]);
    const call = second.input.find((i: any) => i.type === 'function_call');
    const output = second.input.find((i: any) => i.type === 'function_call_output');
    assert.equal(call?.name, 'exec_command', JSON.stringify(second.input.map((i: any) => i.type)));
    assert.equal(output?.call_id, call.call_id, 'the tool\'s output went back to the model');
    assert.deepEqual(JSON.parse(call.arguments), { cmd: 'cat notes.txt' });
    assert.match(String(output.output), /remember the milk/, 'Codex ran the command');
    assert.match(out, /^tok1 tok2 tok3 tok4 tok5$/, 'a final answer after the tool');
    if (!target.native) {
      const tail = (upstream(vendorPath).at(-1)!.body as any).messages.slice(-2);
      if (target.messages) {
        assert.deepEqual([tail[0].role, tail[0].content.at(-1).type, tail[0].content.at(-1).name], ['assistant', 'tool_use', 'exec_command']);
        assert.deepEqual([tail[1].role, tail[1].content[0].type, tail[1].content[0].tool_use_id], ['user', 'tool_result', call.call_id]);
      } else {
        assert.deepEqual([tail[0].role, tail[0].tool_calls?.[0].function.name, tail[1].role, tail[1].tool_call_id], ['assistant', 'exec_command', 'tool', call.call_id]);
      }
    }
    keepGolden('codex', `${tag}.tool-round-trip`, normalise(second), shape);
  });
}
