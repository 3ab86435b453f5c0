// Third-party clients on the chat completions route: the Vercel AI SDK's chat provider and LangChain's default
// ChatOpenAI (their Responses modes are in responses.test.ts).
import { test as nodeTest, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import { ChatOpenAI } from '@langchain/openai';
import { startStack, type Stack } from './helpers/stack.js';

const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 20_000 }, fn);

let stack: Stack;
let key: string;

before(async () => {
  stack = await startStack({ env: { OPENAI_API_KEY: '' } });
  ({ key } = await stack.token());
});
after(() => stack.close());

const chatCalls = () => stack.sim.control.requests().filter((r) => r.path === '/v1/chat/completions').length;

test('Vercel AI SDK openai.chat(model): generateText and streamText over /v1/chat/completions', async () => {
  const openai = createOpenAI({ baseURL: `${stack.url}/v1`, apiKey: key });
  const before = chatCalls();
  const g = await generateText({ model: openai.chat('gpt-4o-mini'), prompt: 'hi [sim chunks=3]' });
  assert.equal(g.text, 'tok1 tok2 tok3 ');
  assert.equal(g.usage.outputTokens, 3);
  const s = streamText({ model: openai.chat('gpt-4o-mini'), prompt: 'hi [sim chunks=2]' });
  let text = '';
  for await (const d of s.textStream) text += d;
  assert.equal(text, 'tok1 tok2 ');
  assert.equal((await s.usage).outputTokens, 2);
  assert.equal(chatCalls() - before, 2);
});

test('LangChain ChatOpenAI (chat completions): invoke and stream', async () => {
  const llm = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: key, configuration: { baseURL: `${stack.url}/v1` }, maxRetries: 0 });
  const r = await llm.invoke('hi [sim chunks=3]');
  assert.equal(r.text, 'tok1 tok2 tok3 ');
  let text = '';
  for await (const c of await llm.stream('hi [sim chunks=2]')) text += c.text;
  assert.equal(text, 'tok1 tok2 ');
});
