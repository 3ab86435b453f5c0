// OpenAI Responses vendor (POST /v1/responses): the response object and its stream events as OpenAI documents them
// (response.created, response.in_progress, output_item.added, content_part.added, output_text.delta …,
// function_call_arguments.delta …, output_item.done, response.completed with usage). Directives as for chat:
// `[sim chunks=N]`, `[sim tool_call=NAME tool_args=BASE64URL-JSON]` (a function, a custom tool answered with `input`, or a namespace's member),
// `[sim status=N]` (0 drops the connection), `[sim interval_ms=N]`, `[sim cut_after=N]`, `[sim usage=BASE64URL-JSON]` (merged over the usage).
import { playSteps, type Step } from './stream-steps.js';
import { type Directives, intDirective, parseDirectives, toolArgFragments } from './directives.js';
import { overriddenUsage, usageDirective } from './usage-directive.js';
import { type Ctx, type Route, errorBody, openaiAuthorized, randomId, sendJson, sleep, statusError } from './http.js';

type Obj = Record<string, unknown>;
interface Tool { type: string; name?: string; tools?: Tool[] }
// The call the model makes: a function (maybe inside a namespace) or a custom (freeform) tool.
interface Call { kind: 'function' | 'custom'; name: string; namespace?: string }


export const openaiResponses: Route = { method: 'POST', path: '/v1/responses', handle };

async function handle(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const body = parse(ctx);
  if (!body) return;
  const d = parseDirectives(lastUserText(body.input));
  if (!(await sleep(intDirective(d, 'first_byte_ms', 0), ctx.signal))) return;
  const status = intDirective(d, 'status');
  if (status === 0) { ctx.req.socket.destroy(); return; }
  if (status !== undefined && status >= 400 && status <= 599) {
    const canned = statusError(status);
    return sendJson(ctx.res, status, canned.body, canned.headers);
  }
  const plan = planReply(body, d);
  if (body.stream === true) return playSteps(ctx, streamSteps(body, plan, d), { contentType: 'text/event-stream', intervalMs: intDirective(d, 'interval_ms', 0), complete: (last) => last.startsWith('event: response.completed') });
  sendJson(ctx.res, 200, responseObject(body, plan, 'completed', outputItems(plan)));
}

function parse(ctx: Ctx): Obj | undefined {
  let body: unknown;
  try { body = JSON.parse(ctx.raw); } catch { body = undefined; }
  const problem = !isObject(body) ? ['We could not parse the JSON body of your request.', null]
    : typeof body.model !== 'string' || !body.model ? ['Missing required parameter: \'model\'.', 'model']
    : body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input) ? ["Invalid type for 'input': expected a string or an array.", 'input']
    : undefined;
  if (!problem) return body as Obj;
  sendJson(ctx.res, 400, errorBody(problem[0] as string, 'invalid_request_error', problem[1], null));
  return undefined;
}

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((p) => typeof p?.text === 'string').map((p) => p.text).join(' ');
}

function lastUserText(input: unknown): string {
  if (typeof input === 'string') return input;
  const last = Array.isArray(input) ? [...input].reverse().find((i) => isObject(i) && i.role === 'user') : undefined;
  return last ? textOf(last.content) : '';
}

/** A tool result in the input means the model already called: it answers in text (as a model would). */
const answered = (input: unknown) => Array.isArray(input) && isObject(input.at(-1)) && /_output$/.test(String((input.at(-1) as Obj).type));

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function inputTokens(body: Obj): number {
  const items = typeof body.input === 'string' ? [{ content: body.input }] : Array.isArray(body.input) ? body.input : [];
  const fromItems = items.reduce((n: number, i: Obj) => n + words(textOf(i.content) || String(i.output ?? i.arguments ?? '')), 0);
  return fromItems + words(typeof body.instructions === 'string' ? body.instructions : '');
}

interface Plan { call?: Call & { id: string; callId: string }; pieces: string[]; msgId: string; input: number; usage?: Obj }

function planReply(body: Obj, d: Directives): Plan {
  const base = { msgId: randomId('msg_', 32), input: inputTokens(body), usage: usageDirective(d) };
  const call = d.tool_call && !answered(body.input) && body.tool_choice !== 'none' ? findTool(body.tools, d.tool_call) : undefined;
  if (call) return { ...base, call: { ...call, id: randomId('fc_', 32), callId: randomId('call_') }, pieces: call.kind === 'custom' ? ['echo ', 'Paris'] : toolArgFragments(d) };
  const n = intDirective(d, 'chunks', 5);
  const cap = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined;
  return { ...base, pieces: Array.from({ length: cap !== undefined ? Math.min(n, cap) : n }, (_, i) => `tok${i + 1} `) };
}

/** The named tool among the request's: top-level functions and custom tools, or a member of a namespace. */
function findTool(tools: unknown, name: string): Call | undefined {
  for (const t of Array.isArray(tools) ? (tools as Tool[]) : []) {
    if ((t.type === 'function' || t.type === 'custom') && t.name === name) return { kind: t.type, name };
    const inner = t.type === 'namespace' ? t.tools?.find((x) => x.name === name) : undefined;
    if (inner) return { kind: inner.type === 'custom' ? 'custom' : 'function', name, namespace: t.name };
  }
  return undefined;
}

function outputItems(plan: Plan): Obj[] {
  const text = plan.pieces.join('');
  if (!plan.call) return [messageItem(plan.msgId, text, 'completed')];
  return [callItem(plan, text, 'completed')];
}

function messageItem(id: string, text: string | undefined, status: string): Obj {
  return { id, type: 'message', status, role: 'assistant', content: text === undefined ? [] : [outputText(text)] };
}

const outputText = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] });

function callItem(plan: Plan, args: string, status: string): Obj {
  const c = plan.call!;
  const ns = c.namespace ? { namespace: c.namespace } : {};
  return c.kind === 'custom'
    ? { id: c.id, type: 'custom_tool_call', status, call_id: c.callId, name: c.name, ...ns, input: args }
    : { id: c.id, type: 'function_call', status, call_id: c.callId, name: c.name, ...ns, arguments: args };
}

/** The Responses usage object, `[sim usage=B64]` merged in; total_tokens adds up unless the directive sets it. */
function usage(plan: Plan) {
  const output = plan.pieces.length;
  const base = {
    input_tokens: plan.input, input_tokens_details: { cached_tokens: 0 },
    output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: plan.input + output,
  };
  return overriddenUsage(base, plan.usage, { key: 'total_tokens', parts: ['input_tokens', 'output_tokens'] });
}

function responseObject(body: Obj, plan: Plan, status: string, output: Obj[], id = randomId('resp_', 48)): Obj {
  const done = status === 'completed';
  return {
    id, object: 'response', created_at: Math.floor(Date.now() / 1000), status, background: false, error: null, incomplete_details: null,
    instructions: body.instructions ?? null, max_output_tokens: body.max_output_tokens ?? null, model: body.model, output,
    parallel_tool_calls: body.parallel_tool_calls !== false, previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: (body.reasoning as Obj | undefined)?.effort ?? null, summary: null }, store: body.store !== false,
    temperature: body.temperature ?? 1, text: body.text ?? { format: { type: 'text' } }, tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [], top_p: body.top_p ?? 1, truncation: 'disabled', usage: done ? usage(plan) : null, user: null, metadata: body.metadata ?? {},
  };
}

/** The whole event sequence, computed up front so the send loop only paces it. */
function streamSteps(body: Obj, plan: Plan, d: Directives): Step[] {
  const id = randomId('resp_', 48);
  let seq = 0;
  const ev = (type: string, data: Obj): Step => ({ data: `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n` });
  const steps = [ev('response.created', { response: responseObject(body, plan, 'in_progress', [], id) }), ev('response.in_progress', { response: responseObject(body, plan, 'in_progress', [], id) })];
  const whole = plan.pieces.join('');
  const cutAfter = intDirective(d, 'cut_after');
  if (plan.call) {
    const item = plan.call;
    steps.push(ev('response.output_item.added', { output_index: 0, item: callItem(plan, '', 'in_progress') }));
    const kind = item.kind === 'custom' ? 'custom_tool_call_input' : 'function_call_arguments';
    for (const [k, delta] of plan.pieces.entries()) {
      if (k === cutAfter) return [...steps, { cut: true }];
      steps.push(ev(`response.${kind}.delta`, { item_id: item.id, output_index: 0, delta }));
    }
    steps.push(ev(`response.${kind}.done`, { item_id: item.id, output_index: 0, [item.kind === 'custom' ? 'input' : 'arguments']: whole }));
    steps.push(ev('response.output_item.done', { output_index: 0, item: callItem(plan, whole, 'completed') }));
  } else {
    const at = { item_id: plan.msgId, output_index: 0, content_index: 0 };
    steps.push(ev('response.output_item.added', { output_index: 0, item: messageItem(plan.msgId, undefined, 'in_progress') }));
    steps.push(ev('response.content_part.added', { ...at, part: outputText('') }));
    for (const [k, delta] of plan.pieces.entries()) {
      if (k === cutAfter) return [...steps, { cut: true }];
      steps.push(ev('response.output_text.delta', { ...at, delta, logprobs: [] }));
    }
    steps.push(ev('response.output_text.done', { ...at, text: whole, logprobs: [] }));
    steps.push(ev('response.content_part.done', { ...at, part: outputText(whole) }));
    steps.push(ev('response.output_item.done', { output_index: 0, item: messageItem(plan.msgId, whole, 'completed') }));
  }
  steps.push(ev('response.completed', { response: responseObject(body, plan, 'completed', outputItems(plan), id) }));
  return steps;
}
