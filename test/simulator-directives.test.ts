// One directive syntax on every simulator: the same `[sim …]` text makes the same tool call (name and arguments) on
// OpenAI chat, Responses, Anthropic Messages and Gemini, answered whole or streamed. JSON-valued directives are
// base64url JSON everywhere; anything else in their place is no JSON value on any of them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Simulator, startSimulator } from '../simulator/server.js';
import { simCall } from './helpers/sim-call.js';

const KEY = 'sim-key-directives-0123456789';
let sim: Simulator;
before(async () => { sim = await startSimulator({ port: 0, keys: [KEY] }); });
after(async () => { await sim.close(); });

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const schema = { type: 'object', properties: { file_path: { type: 'string' } } };
type Call = { name: string; args: unknown };

/** `data:` payloads of an SSE body, `[DONE]` left out. */
const sseData = (text: string): any[] => text.split(/\r?\n\r?\n/).map((b) => /^data: (.*)$/m.exec(b)?.[1])
  .filter((d): d is string => d !== undefined && d !== '[DONE]').map((d) => JSON.parse(d));

/** Each simulator asked with `text` as its last user message and one declared tool: the call it answered with. */
const vendors: Record<string, (text: string, stream: boolean) => Promise<Call>> = {
  async 'OpenAI chat'(text, stream) {
    const r = await simCall(sim, '/v1/chat/completions', {
      headers: { authorization: `Bearer ${KEY}` },
      body: { model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: text }], tools: [{ type: 'function', function: { name: 'read_file', parameters: schema } }] },
    });
    assert.equal(r.status, 200, r.text);
    if (!stream) {
      const call = r.body.choices[0].message.tool_calls[0].function;
      return { name: call.name, args: JSON.parse(call.arguments) };
    }
    const deltas = sseData(r.text).flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
    return { name: deltas[0].function.name, args: JSON.parse(deltas.map((d) => d.function.arguments ?? '').join('')) };
  },
  async 'OpenAI Responses'(text, stream) {
    const r = await simCall(sim, '/v1/responses', {
      headers: { authorization: `Bearer ${KEY}` },
      body: { model: 'gpt-4o-mini', stream, input: text, tools: [{ type: 'function', name: 'read_file', parameters: schema }] },
    });
    assert.equal(r.status, 200, r.text);
    const response = stream ? sseData(r.text).find((e) => e.type === 'response.completed').response : r.body;
    const call = response.output.find((o: any) => o.type === 'function_call');
    if (!stream) return { name: call.name, args: JSON.parse(call.arguments) };
    const deltas = sseData(r.text).filter((e) => e.type === 'response.function_call_arguments.delta').map((e) => e.delta);
    return { name: call.name, args: JSON.parse(deltas.join('')) };
  },
  async 'Anthropic Messages'(text, stream) {
    const r = await simCall(sim, '/v1/messages', {
      headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
      body: { model: 'claude-sonnet-4-5', max_tokens: 100, stream, messages: [{ role: 'user', content: text }], tools: [{ name: 'read_file', input_schema: schema }] },
    });
    assert.equal(r.status, 200, r.text);
    if (!stream) {
      const use = r.body.content.find((b: any) => b.type === 'tool_use');
      return { name: use.name, args: use.input };
    }
    const events = sseData(r.text);
    const start = events.find((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use');
    const json = events.filter((e) => e.delta?.type === 'input_json_delta').map((e) => e.delta.partial_json).join('');
    return { name: start.content_block.name, args: JSON.parse(json) };
  },
  async Gemini(text, stream) {
    const path = `/v1beta/models/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
    const r = await simCall(sim, path, {
      headers: { 'x-goog-api-key': KEY },
      body: { contents: [{ role: 'user', parts: [{ text }] }], tools: [{ functionDeclarations: [{ name: 'read_file', parameters: schema }] }] },
    });
    assert.equal(r.status, 200, r.text);
    const chunks = stream ? sseData(r.text) : [r.body];
    const call = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []).find((p: any) => p.functionCall).functionCall;
    return { name: call.name, args: call.args };
  },
};

const odd = { file_path: 'a b/ü "q" ].txt', lines: [1, null, { to: 20 }], all: true };
const cases: { directives: string; args: unknown }[] = [
  { directives: `tool_call=read_file tool_args=${b64(odd)}`, args: odd },
  { directives: 'tool_call=read_file tool_arg=file_path:notes.txt', args: { file_path: 'notes.txt' } },
  { directives: 'tool_call=read_file', args: { location: 'Paris' } },
  // Raw JSON is not base64url: no simulator reads it as the arguments (each falls back to the fixed ones).
  { directives: 'tool_call=read_file tool_args={"file_path":"notes.txt"}', args: { location: 'Paris' } },
];

for (const { directives, args } of cases) {
  test(`[sim ${directives.slice(0, 60)}]: the same tool call on every simulator, whole and streamed`, async () => {
    for (const [vendor, ask] of Object.entries(vendors)) {
      for (const stream of [false, true]) {
        const call = await ask(`please read it [sim ${directives}]`, stream);
        assert.deepEqual(call, { name: 'read_file', args }, `${vendor}${stream ? ', streamed' : ''}`);
      }
    }
  });
}

/** Each chat simulator's request with `text` as the last user message, no tools. */
const plain: Record<string, (text: string) => { path: string; headers: Record<string, string>; body: unknown }> = {
  'OpenAI chat': (text) => ({ path: '/v1/chat/completions', headers: { authorization: `Bearer ${KEY}` }, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] } }),
  'OpenAI Responses': (text) => ({ path: '/v1/responses', headers: { authorization: `Bearer ${KEY}` }, body: { model: 'gpt-4o-mini', input: text } }),
  'Anthropic Messages': (text) => ({
    path: '/v1/messages', headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
    body: { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: text }] },
  }),
  Gemini: (text) => ({ path: '/v1beta/models/gemini-2.5-flash:generateContent', headers: { 'x-goog-api-key': KEY }, body: { contents: [{ role: 'user', parts: [{ text }] }] } }),
};

test('status=N answers that status and status=0 drops the connection, on every chat simulator', async () => {
  for (const [vendor, req] of Object.entries(plain)) {
    const limited = req('hi [sim status=429]');
    assert.equal((await simCall(sim, limited.path, limited)).status, 429, vendor);
    const dropped = req('hi [sim status=0]');
    await assert.rejects(simCall(sim, dropped.path, dropped), `${vendor}: the connection is dropped`);
  }
});
