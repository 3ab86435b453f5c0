// OpenAI Chat Completions vendor: auth, validation, directives, and JSON/SSE replies shaped like api.openai.com.
import { playSteps, type Step } from './stream-steps.js';
import { directedFailure } from './openai-status.js';
import { type Directives, flagDirective, intDirective, parseDirectives, toolArgFragments } from './directives.js';
import { overriddenUsage, usageDirective } from './usage-directive.js';
import {
  type Ctx, type Route, echoed, errorBody, openaiAuthorized, randomId, sendJson, sleep,
} from './http.js';

interface ChatMessage {
  role: string;
  content?: unknown;
}

interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: unknown[];
  tool_choice?: unknown;
  max_tokens?: number;
  max_completion_tokens?: number;
}

interface Invalid {
  status: number;
  message: string;
  param: string | null;
  code: string | null;
}

/** What the reply will say, decided once so JSON and SSE modes report identical numbers. */
interface Plan {
  tool?: { id: string; name: string };
  pieces: string[];
  finish: 'stop' | 'length' | 'tool_calls';
  usage: ReturnType<typeof usageOf>;
}


const PART_TYPES = ['text', 'image_url', 'input_audio', 'refusal', 'audio', 'file', 'video_url'];
const DONE = 'data: [DONE]\n\n';
const STREAM_ERROR = errorBody('upstream exploded', 'server_error', null, 'server_error');

export const openaiChat: Route = { method: 'POST', path: '/v1/chat/completions', handle };

async function handle(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const body = parseRequest(ctx);
  if (!body) return;
  const d = parseDirectives(lastUserText(body.messages));
  if (!(await sleep(intDirective(d, 'first_byte_ms', 0), ctx.signal))) return;
  if (directedFailure(ctx, d)) return;
  const plan = planReply(body, d);
  if (body.stream === true) return streamReply(ctx, body, plan, d);
  jsonReply(ctx, body, plan, d);
}


function parseRequest(ctx: Ctx): ChatRequest | undefined {
  let body: unknown;
  try {
    body = JSON.parse(ctx.raw);
  } catch {
    sendJson(ctx.res, 400, errorBody(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
      'invalid_request_error', null, null,
    ));
    return undefined;
  }
  const problem = validate(body);
  if (!problem) return body as ChatRequest;
  sendJson(ctx.res, problem.status, errorBody(problem.message, 'invalid_request_error', problem.param, problem.code));
  return undefined;
}

function validate(body: unknown): Invalid | undefined {
  if (!isObject(body)) return bad('Invalid type for request body: expected an object.', null, 'invalid_type');
  if (typeof body.model !== 'string' || body.model === '') return bad('you must provide a model parameter', 'model', null);
  if (body.messages === undefined) return bad("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(body.messages)) return bad("Invalid type for 'messages': expected an array.", 'messages', 'invalid_type');
  if (body.messages.length === 0) return bad("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  const messageProblem = body.messages.map(validateMessage).find(Boolean);
  if (messageProblem) return messageProblem;
  if (body.model.startsWith('missing-')) {
    return { status: 404, message: `The model \`${body.model}\` does not exist or you do not have access to it.`, param: null, code: 'model_not_found' };
  }
  return undefined;
}

function validateMessage(m: unknown, i: number): Invalid | undefined {
  if (!isObject(m) || typeof m.role !== 'string') return bad(`Missing required parameter: 'messages[${i}].role'.`, `messages[${i}].role`, 'missing_required_parameter');
  if (!Array.isArray(m.content)) return undefined;
  const j = m.content.findIndex((p) => !isObject(p) || !PART_TYPES.includes(p.type as string));
  if (j < 0) return undefined;
  const type = String((m.content[j] as { type?: unknown })?.type);
  return bad(`Invalid value: '${type}'. Supported values are: ${PART_TYPES.map((t) => `'${t}'`).join(', ')}.`, `messages[${i}].content[${j}].type`, 'invalid_value');
}

function bad(message: string, param: string | null, code: string | null): Invalid {
  return { status: 400, message, param, code };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((p) => p?.type === 'text' && typeof p.text === 'string').map((p) => p.text).join(' ');
}

function lastUserText(messages: ChatMessage[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return last ? textOf(last.content) : '';
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Whitespace words of text content; each non-text part counts as one token. */
function promptTokens(messages: ChatMessage[]): number {
  let total = 0;
  for (const { content } of messages) {
    if (typeof content === 'string') total += words(content);
    else if (Array.isArray(content)) {
      for (const p of content) total += p?.type === 'text' ? words(String(p.text ?? '')) : 1;
    }
  }
  return total;
}

/**
 * OpenAI's usage object, with `[sim usage=B64]` merged in (e.g. `prompt_tokens_details.cached_tokens`, or the
 * `cache_write_tokens` GPT-6.x reports); total_tokens is the sum of the two counts unless the directive sets it.
 */
function usageOf(prompt: number, completion: number, d: Directives) {
  const usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  return overriddenUsage(usage, usageDirective(d), { key: 'total_tokens', parts: ['prompt_tokens', 'completion_tokens'] });
}

function planReply(body: ChatRequest, d: Directives): Plan {
  const prompt = promptTokens(body.messages);
  // A tool's result last means the model already called it: it answers in text (an agent's round trip ends).
  const toolName = body.messages.at(-1)?.role === 'tool' ? undefined : d.tool_call;
  if (toolName && Array.isArray(body.tools) && body.tools.length > 0 && body.tool_choice !== 'none') {
    const tool = { id: randomId('call_'), name: toolName };
    const pieces = toolArgFragments(d);
    return { tool, pieces, finish: 'tool_calls', usage: usageOf(prompt, pieces.length, d) };
  }
  const wanted = intDirective(d, 'chunks', 5);
  const cap = body.max_completion_tokens ?? body.max_tokens;
  const capped = typeof cap === 'number' && cap < wanted;
  const n = capped ? Math.max(0, cap) : wanted;
  const pieces = Array.from({ length: n }, (_, i) => `tok${i + 1} `);
  return { pieces, finish: capped ? 'length' : 'stop', usage: usageOf(prompt, n, d) };
}

function envelope(model: string) {
  return { id: randomId('chatcmpl-', 29), created: Math.floor(Date.now() / 1000), model, system_fingerprint: 'fp_sim' };
}

function jsonReply(ctx: Ctx, body: ChatRequest, plan: Plan, d: Directives): void {
  if (flagDirective(d, 'malformed')) {
    ctx.res.writeHead(200, { 'content-type': 'application/json' });
    ctx.res.end('{"id": "broken');
    return;
  }
  const { id, created, model, system_fingerprint } = envelope(body.model);
  const message = plan.tool
    ? { role: 'assistant', content: null, refusal: null, tool_calls: [toolCall(plan.tool, plan.pieces.join(''))] }
    : { role: 'assistant', content: plan.pieces.join(''), refusal: null };
  const reply = {
    id, object: 'chat.completion', created, model, system_fingerprint,
    choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finish }],
    ...(flagDirective(d, 'no_usage') ? {} : { usage: plan.usage }),
  };
  sendJson(ctx.res, 200, reply);
}

function toolCall(tool: { id: string; name: string }, args: string) {
  return { id: tool.id, type: 'function', function: { name: tool.name, arguments: args } };
}

async function streamReply(ctx: Ctx, body: ChatRequest, plan: Plan, d: Directives): Promise<void> {
  const steps = streamSteps(ctx, body, plan, d);
  await playSteps(ctx, steps, { contentType: 'text/event-stream', intervalMs: intDirective(d, 'interval_ms', 0), complete: (last) => last === DONE });
}

/** The whole event sequence, computed up front so the send loop only has to pace it. */
function streamSteps(ctx: Ctx, body: ChatRequest, plan: Plan, d: Directives): Step[] {
  const base = { ...envelope(body.model), object: 'chat.completion.chunk' };
  const withUsage = body.stream_options?.include_usage === true && !flagDirective(d, 'no_usage');
  const chunk = (choices: unknown[], usage: unknown = null): Step => {
    const { id, object, created, model, system_fingerprint } = base;
    return event({ id, object, created, model, system_fingerprint, choices, ...(withUsage ? { usage } : {}) });
  };
  const choice = (delta: unknown, finish: string | null = null) => [{ index: 0, delta, logprobs: null, finish_reason: finish }];
  const steps: Step[] = [chunk(choice(firstDelta(plan)))];
  if (flagDirective(d, 'malformed')) steps.push({ data: 'data: {not json\n\n' });
  const cutAfter = intDirective(d, 'cut_after');
  const errorAfter = intDirective(d, 'error_after');
  for (let k = 0; ; k++) {
    if (k === cutAfter) return [...steps, { cut: true }];
    // An error event is an error body inside a 200 stream: echo mode treats it as one.
    if (k === errorAfter) return [...steps, event(echoed(ctx.res, STREAM_ERROR, true))];
    if (k === plan.pieces.length) break;
    steps.push(chunk(choice(pieceDelta(plan, k))));
  }
  steps.push(chunk(choice({}, plan.finish)));
  if (withUsage) steps.push(chunk([], plan.usage));
  steps.push({ data: DONE });
  return steps;
}

function event(payload: unknown): Step {
  return { data: `data: ${JSON.stringify(payload)}\n\n` };
}

function firstDelta(plan: Plan): unknown {
  if (!plan.tool) return { role: 'assistant', content: '' };
  // Real OpenAI announces the call (id, name, empty arguments) in the same chunk as the role.
  return { role: 'assistant', content: null, tool_calls: [{ index: 0, ...toolCall(plan.tool, '') }] };
}

function pieceDelta(plan: Plan, k: number): unknown {
  const piece = plan.pieces[k];
  return plan.tool ? { tool_calls: [{ index: 0, function: { arguments: piece } }] } : { content: piece };
}
