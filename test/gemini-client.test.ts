// Gemini clients (the official @google/genai SDK, and raw fetch in Google's shapes) on the gateway's Gemini routes,
// against a unified channel (gpt-4o-mini → sim_openai, translated by the gemini_generate dialect) and a channel that
// speaks Gemini (gemini-2.5-flash → sim_gemini, bytes untouched): answers, streams, function calls and responses,
// countTokens, the model list, keys in x-goog-api-key and ?key=, errors in Google's shape, and what each path bills.
import { test as nodeTest, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { GoogleGenAI, FinishReason, Type, type Content, type Tool } from '@google/genai';
import { startStack, type Stack } from './helpers/stack.js';
import { billedOnce, lastUpstream, priceOf } from './helpers/anthropic.js';
import { logLineOf, sseData } from './helpers/api.js';

const test = (name: string, fn: () => Promise<void> | void) => nodeTest(name, { timeout: 20_000 }, fn);

let stack: Stack;
let key: string;

before(async () => {
  stack = await startStack({ env: { OPENAI_API_KEY: '', GEMINI_API_KEY: '' } });
  ({ key } = await stack.token());
});
after(() => stack.close());
beforeEach(() => { stack.sim.control.clear(); stack.sim.control.clearFaults(); });

const genai = (apiKey = key) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: stack.url, timeout: 10_000 } });

/** A raw call in Google's shapes; the key in the header unless `query` puts it in ?key=. */
async function gemini(path: string, body: unknown, opts: { key?: string | null; query?: boolean; method?: string } = {}) {
  const k = opts.key === undefined ? key : opts.key;
  const url = `${stack.url}${path}${opts.query && k ? `${path.includes('?') ? '&' : '?'}key=${k}` : ''}`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (k && !opts.query) headers['x-goog-api-key'] = k;
  const res = await fetch(url, { method: opts.method ?? 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json, id: res.headers.get('x-request-id')! };
}

const weather: Tool[] = [{ functionDeclarations: [{
  name: 'get_weather', description: 'Current weather for a place',
  parameters: { type: Type.OBJECT, properties: { location: { type: Type.STRING } }, required: ['location'] },
}] }];

const paths = [
  { name: 'unified channel (gpt-4o-mini → sim_openai)', model: 'gpt-4o-mini', native: false },
  { name: 'Gemini channel (gemini-2.5-flash → sim_gemini)', model: 'gemini-2.5-flash', native: true },
];

for (const { name, model, native } of paths) {
  test(`${name}: generateContent answers a GenerateContentResponse (system instruction, text, usage)`, async () => {
    const r = await genai().models.generateContent({ model, contents: 'Say hello [sim chunks=3]', config: { systemInstruction: 'You are terse.', temperature: 0.5 } });
    assert.equal(r.text, 'tok1 tok2 tok3 ');
    assert.equal(r.candidates?.[0].finishReason, FinishReason.STOP);
    assert.equal(r.candidates?.[0].content?.role, 'model');
    assert.ok((r.usageMetadata?.promptTokenCount ?? 0) > 0);
    assert.equal(r.usageMetadata?.candidatesTokenCount, 3);
    assert.equal(r.usageMetadata?.totalTokenCount, r.usageMetadata!.promptTokenCount! + 3);
    const up = lastUpstream(stack);
    if (native) {
      assert.equal(up.path, `/v1beta/models/${model}:generateContent`);
      assert.equal(up.headers['x-goog-api-key'], 'sim-key', 'the channel\'s key replaced the client\'s');
      assert.deepEqual((up.body as any).systemInstruction, { parts: [{ text: 'You are terse.' }], role: 'user' });
    } else {
      assert.equal(up.path, '/v1/chat/completions');
      const body = up.body as any;
      assert.deepEqual(body.messages, [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Say hello [sim chunks=3]' }]);
      assert.equal(body.temperature, 0.5);
    }
  });

  test(`${name}: generateContentStream streams SSE chunks, the last with finishReason and usageMetadata`, async () => {
    const chunks = [];
    for await (const c of await genai().models.generateContentStream({ model, contents: 'Stream [sim chunks=4]' })) chunks.push(c);
    assert.equal(chunks.map((c) => c.text ?? '').join(''), 'tok1 tok2 tok3 tok4 ');
    const last = chunks.at(-1)!;
    assert.equal(last.candidates?.[0].finishReason, FinishReason.STOP);
    assert.equal(last.usageMetadata?.candidatesTokenCount, 4);
    const up = lastUpstream(stack);
    assert.equal(up.url, native ? `/v1beta/models/${model}:streamGenerateContent?alt=sse` : '/v1/chat/completions');
  });

  test(`${name}: a function call and its response round trip`, async () => {
    const ai = genai();
    const ask: Content = { role: 'user', parts: [{ text: 'Weather in Paris? [sim tool_call=get_weather]' }] };
    const first = await ai.models.generateContent({ model, contents: [ask], config: { tools: weather } });
    const calls = first.functionCalls ?? [];
    assert.equal(calls.length, 1);
    assert.equal(calls[0].name, 'get_weather');
    assert.deepEqual(calls[0].args, { location: 'Paris' });
    const sent = lastUpstream(stack).body as any;
    if (!native) {
      assert.deepEqual(sent.tools[0].function.parameters, { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
        'Gemini\'s upper-case schema types became JSON Schema\'s');
    }
    const answer = { role: 'user', parts: [{ functionResponse: { id: calls[0].id, name: 'get_weather', response: { output: 'Sunny, 21 C' } } }] };
    const second = await ai.models.generateContent({ model, contents: [ask, first.candidates![0].content!, answer], config: { tools: weather } });
    // A tool's result last: the simulators answer in text, as a model would.
    assert.equal(second.text, 'tok1 tok2 tok3 tok4 tok5 ');
    const up = lastUpstream(stack).body as any;
    if (native) {
      assert.deepEqual(up.contents[2].parts[0].functionResponse.response, { output: 'Sunny, 21 C' });
    } else {
      const [, assistant, tool] = up.messages;
      assert.equal(assistant.tool_calls[0].function.name, 'get_weather');
      assert.deepEqual(tool, { role: 'tool', tool_call_id: assistant.tool_calls[0].id, content: 'Sunny, 21 C' });
    }
  });

  test(`${name}: a streamed function call comes whole in the last chunk`, async () => {
    const chunks = [];
    const stream = await genai().models.generateContentStream({ model, contents: 'Weather? [sim tool_call=get_weather]', config: { tools: weather } });
    for await (const c of stream) chunks.push(c);
    const calls = chunks.flatMap((c) => c.functionCalls ?? []);
    assert.deepEqual(calls.map((c) => [c.name, c.args]), [['get_weather', { location: 'Paris' }]]);
    assert.equal(chunks.at(-1)!.candidates?.[0].finishReason, FinishReason.STOP);
  });

  test(`${name}: countTokens answers totalTokens without calling the vendor`, async () => {
    const r = await genai().models.countTokens({ model, contents: 'one two three four' });
    assert.ok((r.totalTokens ?? 0) > 0);
    assert.equal(stack.sim.control.requests().filter((q) => !q.path.startsWith('/_sim')).length, 0);
  });

  test(`${name}: the key in ?key=, and the charge is the price of the usage reported`, async () => {
    const { key: own, id: account } = await stack.token();
    const before = (await stack.balance(account))!;
    const r = await gemini(`/v1beta/models/${model}:generateContent`, { contents: [{ role: 'user', parts: [{ text: 'Bill me [sim chunks=4]' }] }] }, { key: own, query: true });
    assert.equal(r.status, 200, r.text);
    const u = r.json.usageMetadata;
    await billedOnce(stack, account, r.id, before, priceOf(model), u.promptTokenCount, u.candidatesTokenCount);
    const line = await logLineOf(stack, r.id);
    assert.equal(line.path, `/v1beta/models/${model}:generateContent`, 'the access line has the path without the query (and its key)');
    assert.ok(!stack.rawLogs().includes(own), 'the key is in no log line');
  });

  test(`${name}: a raw alt=sse stream bills the usage of its last chunk`, async () => {
    const { key: own, id: account } = await stack.token();
    const before = (await stack.balance(account))!;
    const r = await gemini(`/v1beta/models/${model}:streamGenerateContent?alt=sse`, { contents: [{ parts: [{ text: 'Stream [sim chunks=2]' }] }] }, { key: own });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    const events = sseData(r.text).map((d) => JSON.parse(d));
    const last = events.at(-1);
    assert.equal(last.candidates[0].finishReason, 'STOP');
    await billedOnce(stack, account, r.id, before, priceOf(model), last.usageMetadata.promptTokenCount, last.usageMetadata.candidatesTokenCount);
  });
}

for (const model of ['gpt-4o-mini', 'gemini-2.5-flash']) {
  test(`${model}: streamGenerateContent without alt=sse answers one JSON array of the chunks, as Google does`, async () => {
    const r = await gemini(`/v1beta/models/${model}:streamGenerateContent`, { contents: [{ parts: [{ text: 'Stream [sim chunks=3]' }] }] });
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type')!, /^application\/json/);
    const chunks = JSON.parse(r.text);
    assert.ok(Array.isArray(chunks) && chunks.length >= 2);
    assert.equal(chunks.map((c: any) => c.candidates[0].content?.parts?.[0]?.text ?? '').join(''), 'tok1 tok2 tok3 ');
    assert.equal(chunks.at(-1).candidates[0].finishReason, 'STOP');
    const cut = await gemini(`/v1beta/models/${model}:streamGenerateContent`, { contents: [{ parts: [{ text: 'x [sim chunks=5 cut_after=2]' }] }] });
    assert.equal(JSON.parse(cut.text).at(-1).error.status, 'INTERNAL', 'a cut stream still closes the array, with an error element');
  });
}

test('Gemini 3 through the gateway untouched: the SDK echoes the call\'s thought signature back and the turn goes on', async () => {
  const ai = genai();
  const model = 'gemini-3-flash-preview';
  const ask: Content = { role: 'user', parts: [{ text: 'Weather? [sim tool_call=get_weather]' }] };
  const first = await ai.models.generateContent({ model, contents: [ask], config: { tools: weather } });
  const turn = first.candidates![0].content!;
  assert.ok(turn.parts?.[0].thoughtSignature, 'Gemini 3 signs its call');
  const answer = { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'Sunny' } } }] };
  const second = await ai.models.generateContent({ model, contents: [ask, turn, answer], config: { tools: weather } });
  assert.equal(second.text, 'tok1 tok2 tok3 tok4 tok5 ');
  const unsigned = await gemini(`/v1beta/models/${model}:generateContent`, { contents: [ask, { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: {} } }] }, answer] });
  assert.equal(unsigned.status, 400);
  assert.equal(unsigned.json.error.status, 'INVALID_ARGUMENT');
  assert.match(unsigned.json.error.message, /thought_signature/, 'Google\'s refusal reaches the client in Google\'s shape');
});

test('models.list and models.get: the caller\'s models in Google\'s shape', async () => {
  const names: string[] = [];
  for await (const m of await genai().models.list()) names.push(m.name!);
  assert.ok(names.includes('models/gemini-2.5-flash') && names.includes('models/gpt-4o-mini'), names.join(', '));
  const one = await genai().models.get({ model: 'gemini-2.5-flash' });
  assert.equal(one.name, 'models/gemini-2.5-flash');
  assert.equal(one.outputTokenLimit, 65536);
  assert.ok(one.supportedActions?.includes('generateContent') ?? true);
  const missing = await gemini('/v1beta/models/no-such-model', undefined, { method: 'GET' });
  assert.equal(missing.status, 404);
  assert.equal(missing.json.error.status, 'NOT_FOUND');
});

test('the image route on the same path still answers image models (generate_content, chosen by the model)', async () => {
  const r = await gemini('/v1beta/models/gemini-2.5-flash-image:generateContent', { contents: [{ parts: [{ text: 'a cat' }] }] });
  assert.equal(r.status, 200, r.text);
  assert.ok(r.json.candidates[0].content.parts.some((p: any) => p.inlineData?.mimeType === 'image/png'));
  const line = await logLineOf(stack, r.id);
  assert.equal(line.route, 'generate_content');
});

test('candidateCount and maxOutputTokens: n and the completion limit, checked before anything is reserved', async () => {
  const r = await gemini('/v1beta/models/gpt-4o-mini:generateContent', { contents: [{ parts: [{ text: 'two [sim chunks=2]' }] }], generationConfig: { candidateCount: 2, maxOutputTokens: 40 } });
  assert.equal(r.status, 200, r.text);
  const up = lastUpstream(stack).body as any;
  assert.equal(up.n, 2);
  assert.equal(up.max_completion_tokens, 40);
  const bad = await gemini('/v1beta/models/gpt-4o-mini:generateContent', { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { maxOutputTokens: 'lots' } });
  assert.equal(bad.status, 400);
  assert.match(bad.json.error.message, /maxOutputTokens/);
});

test('an error object in a Gemini vendor\'s stream reaches the client untouched and is logged as the vendor\'s error', async () => {
  const r = await gemini('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', { contents: [{ parts: [{ text: 'x [sim chunks=5 error_after=2]' }] }] });
  assert.equal(r.status, 200);
  const last = JSON.parse(sseData(r.text).at(-1)!);
  assert.equal(last.error.status, 'UNAVAILABLE');
  assert.equal((await logLineOf(stack, r.id)).outcome, 'upstream_error');
});

test('errors in Google\'s shape: no key 401, a bad key 401, a bad body 400, an unknown model 404, a vendor error relayed', async () => {
  const path = '/v1beta/models/gemini-2.5-flash:generateContent';
  const body = { contents: [{ parts: [{ text: 'hi' }] }] };
  const none = await gemini(path, body, { key: null });
  assert.equal(none.status, 401);
  assert.equal(none.json.error.code, 401);
  assert.equal(none.json.error.status, 'UNAUTHENTICATED');
  assert.match(none.json.error.message, /x-goog-api-key.*\?key=/);
  const wrong = await gemini(path, body, { key: 'sk-wrong', query: true });
  assert.equal(wrong.status, 401);
  assert.ok(!wrong.text.includes('sk-wrong'), 'the key is not echoed');
  const bad = await gemini(path, { contents: [] });
  assert.equal(bad.status, 400);
  assert.deepEqual(Object.keys(bad.json.error), ['code', 'message', 'status']);
  assert.equal(bad.json.error.status, 'INVALID_ARGUMENT');
  assert.match(bad.json.error.message, /contents/);
  const unknown = await gemini('/v1beta/models/no-such-model:generateContent', body);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.status, 'NOT_FOUND');
  const limited = await gemini(path, { contents: [{ parts: [{ text: 'x [sim status=429]' }] }] });
  assert.equal(limited.status, 429);
  assert.equal(limited.json.error.status, 'RESOURCE_EXHAUSTED');
  const sdk = await genai('sk-wrong').models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' }).catch((e: Error) => e);
  assert.ok(sdk instanceof Error && /401/.test(sdk.message), String(sdk));
});

test('a stream cut by the vendor ends with an error chunk', async () => {
  const r = await gemini('/v1beta/models/gpt-4o-mini:streamGenerateContent?alt=sse', { contents: [{ parts: [{ text: 'x [sim chunks=5 cut_after=2]' }] }] });
  assert.equal(r.status, 200);
  const last = JSON.parse(sseData(r.text).at(-1)!);
  assert.equal(last.error.status, 'INTERNAL');
  assert.match(last.error.message, /ended unexpectedly/);
});

