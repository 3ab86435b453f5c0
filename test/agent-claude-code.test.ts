// Claude Code at its defaults against the gateway: ANTHROPIC_BASE_URL and a gateway key, nothing else. One plain
// turn, and one tool round trip (the simulator steered into a tool call); the Messages requests it sent are kept.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './helpers/stack.js';
import { agents, captureFront, installAgent, runAgent, type Capture } from './helpers/agents.js';

const install = installAgent(agents.claude);
const skip = install.bin ? false : process.env.CI ? false : `Claude Code could not be installed: ${install.problem}`;
let stack: Stack;
let front: Capture;
let key: string;

before(async () => {
  if (skip) return;
  assert.ok(install.bin, install.problem);
  stack = await startStack();
  front = await captureFront(stack.url);
  ({ key } = await stack.token({ quota: 10_000_000 }));
});
after(async () => { await front?.close(); await stack?.close(); });

const claude = (prompt: string) => runAgent(install.bin!, ['-p', prompt, '--model', 'claude-sonnet-4-5', '--output-format', 'json'], {
  env: { ANTHROPIC_BASE_URL: front.url, ANTHROPIC_API_KEY: key },
  timeoutMs: 90_000,
});

test('Claude Code: one plain turn through /v1/messages', { skip }, async () => {
  const r = await claude('Say hello [sim chunks=3]');
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.equal(JSON.parse(r.stdout).result.trim(), 'tok1 tok2 tok3');
  const turns = front.requests.filter((q) => q.path.startsWith('/v1/messages'));
  assert.ok(turns.length >= 1 && turns.every((q) => q.status === 200), turns.map((q) => `${q.path} ${q.status}`).join(', '));
});

test('Claude Code: a tool round trip (tool_use, its tool_result sent back, a final answer)', { skip }, async () => {
  front.requests.length = 0;
  const r = await claude('Read notes.txt [sim tool_call=Read]');
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const out = JSON.parse(r.stdout);
  assert.equal(out.num_turns, 2);
  const sent = front.requests.filter((q) => q.path.startsWith('/v1/messages?') || q.path === '/v1/messages').map((q) => JSON.parse(q.body));
  const last = sent.at(-1).messages.at(-1);
  assert.equal(last.role, 'user');
  assert.equal(last.content[0].type, 'tool_result', 'the tool result went back to the vendor');
});
