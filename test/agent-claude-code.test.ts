// Claude Code at its defaults against the gateway: ANTHROPIC_BASE_URL and a gateway key, nothing else (as the recipe,
// docs/recipes/coding-agents.md, sets them). One plain
// turn and one tool round trip on a Messages vendor (claude-sonnet-4-5 on sim_anthropic: bytes untouched), and a tool
// round trip on a chat vendor (gpt-4o-mini on sim_openai: Messages translated to chat completions and back). The
// Messages requests it sent are kept, normalised, in test/golden/agents/claude-code/, and so is what the chat vendor
// received (the translation); SWITCHYARD_UPDATE_GOLDEN=1 rewrites them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Stack } from './helpers/stack.js';
import { agents, agentStack, installAgent, runAgent, skipUnlessInstalled, type Capture } from './helpers/agents.js';
import { chatShape, keepGolden, messagesShape, normalise } from './helpers/agent-golden.js';
import { recipeEnv } from './helpers/agent-settings.js';

const install = installAgent(agents.claude);
const skip = skipUnlessInstalled(install, 'Claude Code');
let stack: Stack;
let front: Capture;
let key: string;

before(async () => {
  if (skip) return;
  ({ stack, front, key } = await agentStack(install));
});
after(async () => { await front?.close(); await stack?.close(); });

async function claude(prompt: string, model: string) {
  front.requests.length = 0;
  stack.sim.control.clear();
  const home = mkdtempSync(join(tmpdir(), 'switchyard-claude-home-'));
  const cwd = mkdtempSync(join(tmpdir(), 'switchyard-claude-work-'));
  writeFileSync(join(cwd, 'notes.txt'), 'the launch code is 4242\n');
  const r = await runAgent(install.bin!, ['-p', prompt, '--model', model, '--output-format', 'json'], {
    home, cwd, env: recipeEnv('claude-code', front.url, key), timeoutMs: 90_000, // ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY
  });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const turns = front.requests.filter((q) => q.path === '/v1/messages' || q.path.startsWith('/v1/messages?'));
  assert.ok(turns.length >= 1 && turns.every((q) => q.status === 200), turns.map((q) => `${q.path} ${q.status}`).join(', '));
  const places: [string, string][] = [[cwd, '<WORK>'], [home, '<HOME>'], [key, '<KEY>']];
  return { out: JSON.parse(r.stdout), sent: turns.map((q) => JSON.parse(q.body)), places };
}

/** Turns with a tool_result: the round trip's second request (Claude Code may send side requests beside it). */
const withResult = (b: any) => b.messages.some((m: any) => Array.isArray(m.content) && m.content.some((c: any) => c.type === 'tool_result'));
/** The conversation's own requests: the ones carrying Claude Code's tools (side requests such as a title carry none). */
const agentTurns = (sent: any[]) => sent.filter((b) => (b.tools ?? []).some((t: any) => t.name === 'Read'));

test('Claude Code: one plain turn through /v1/messages (a Messages vendor: untouched)', { skip }, async () => {
  const { out, sent, places } = await claude('Say hello [sim chunks=3]', 'claude-sonnet-4-5');
  assert.equal(out.result.trim(), 'tok1 tok2 tok3');
  const turns = agentTurns(sent);
  assert.equal(turns.length, 1, `${sent.length} requests`);
  const upstream = stack.sim.control.requests().filter((q) => q.path.startsWith('/v1/messages')).map((q) => q.body);
  // The simulator keeps long strings cut; normalised (prose cut to its first line) both must be the same.
  assert.deepEqual(normalise(upstream.find((b: any) => b.tools?.length)), normalise(turns[0]), 'the Messages vendor got Claude Code\'s own body');
  keepGolden('claude-code', 'plain-turn', normalise(turns[0], { places }), messagesShape);
});

test('Claude Code: a tool round trip on a Messages vendor (Read runs, its tool_result goes back, a final answer)', { skip }, async () => {
  const { out, sent, places } = await claude('Read notes.txt [sim tool_call=Read tool_arg=file_path:notes.txt]', 'claude-sonnet-4-5');
  assert.equal(out.num_turns, 2);
  const second = agentTurns(sent).find(withResult);
  assert.ok(second, 'a request carrying the tool_result');
  const [use, result] = second.messages.slice(-2);
  const call = use.content.find((c: any) => c.type === 'tool_use');
  assert.equal(call?.name, 'Read');
  assert.deepEqual([result.role, result.content[0].type, result.content[0].tool_use_id], ['user', 'tool_result', call.id]);
  keepGolden('claude-code', 'tool-round-trip', normalise(second, { places }), messagesShape);
});

test('Claude Code on a chat vendor (gpt-4o-mini: Messages translated to chat completions): a tool round trip', { skip }, async () => {
  const { out, sent, places } = await claude('Read notes.txt [sim tool_call=Read tool_arg=file_path:notes.txt]', 'gpt-4o-mini');
  assert.equal(out.num_turns, 2);
  assert.equal(out.result.trim(), 'tok1 tok2 tok3 tok4 tok5');
  const second = agentTurns(sent).find(withResult);
  assert.ok(second, 'a request carrying the tool_result');
  const chat = stack.sim.control.requests().filter((q) => q.path === '/v1/chat/completions');
  const vendor = chat.at(-1)!.body as any;
  assert.equal(stack.sim.control.requests().filter((q) => q.path.startsWith('/v1/messages')).length, 0, 'nothing went to a Messages vendor');
  // Its tools became functions, all of them (Claude Code sends client tools only: nothing to drop).
  const clientTools = second.tools.filter((t: any) => t.type === undefined || t.type === 'custom');
  assert.deepEqual(vendor.tools.map((t: any) => [t.type, t.function.name]), clientTools.map((t: any) => ['function', t.name]));
  const read = vendor.tools.find((t: any) => t.function.name === 'Read');
  assert.deepEqual(read.function.parameters.required, second.tools.find((t: any) => t.name === 'Read').input_schema.required);
  // The system blocks became one system message; the tool_use an assistant tool call; the tool_result a tool message.
  assert.equal(vendor.messages[0].role, 'system');
  const [asked, answered] = vendor.messages.slice(-2);
  assert.equal(asked.role, 'assistant');
  assert.equal(asked.tool_calls[0].function.name, 'Read');
  assert.deepEqual(JSON.parse(asked.tool_calls[0].function.arguments), { file_path: 'notes.txt' });
  assert.deepEqual([answered.role, answered.tool_call_id], ['tool', asked.tool_calls[0].id]);
  assert.match(answered.content, /the launch code is 4242/, 'Claude Code ran Read and its output reached the vendor');
  // What a chat vendor cannot take is not sent: cache_control, thinking, Claude Code's metadata and context management.
  const text = JSON.stringify(vendor);
  assert.ok(!/"cache_control"|"thinking"|"context_management"/.test(text), 'no Messages-only fields reach the chat vendor');
  assert.ok(JSON.stringify(second.system).includes('x-anthropic-billing-header') && !text.includes('x-anthropic-billing-header'),
    'Claude Code\'s attribution block, meant for Anthropic\'s billing, is not sent to another vendor');
  assert.ok(JSON.stringify(second).includes('"cache_control"') && second.thinking, 'Claude Code sent cache breakpoints and thinking (left out on the way)');
  assert.equal(typeof vendor.user, 'string', 'its metadata.user_id went as the chat `user`');
  const lines = stack.logs().filter((l) => l.msg === 'request' && l.route === 'messages' && l.status === 200);
  assert.ok(lines.length >= 2, JSON.stringify(lines.map((l) => l.route)));
  const serverTools = second.tools.filter((t: any) => t.type !== undefined && t.type !== 'custom').map((t: any) => t.type);
  assert.deepEqual(lines.at(-1)!.dropped_tools, serverTools.length ? serverTools : undefined, 'dropped tools (if any) are named');
  keepGolden('claude-code', 'chat-vendor.tool-round-trip', normalise(second, { places }), messagesShape);
  keepGolden('claude-code', 'chat-vendor.tool-round-trip.vendor', normalise(vendor, { places }), chatShape);
});
