// Anthropic Messages API: x-api-key + anthropic-version, validation, directives, JSON and SSE replies shaped like api.anthropic.com.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Fault } from './control.js';
import { playSteps, type Step } from './stream-steps.js';
import { type Directives, intDirective, parseDirectives, toolArgFragments } from './directives.js';
import { type Ctx, type Route, echoed, sendJson, sleep } from './http.js';
import { deepMerge, usageDirective } from './usage-directive.js';

/** The versions Anthropic documents; anything else is refused like the real API does. */
export const ANTHROPIC_VERSIONS = ['2023-06-01', '2023-01-01'];

const MESSAGES = '/v1/messages';
const COUNT_TOKENS = '/v1/messages/count_tokens';
const BLOCK_TYPES = [
  'text', 'image', 'document', 'search_result', 'thinking', 'redacted_thinking', 'tool_use', 'tool_result',
  'server_tool_use', 'web_search_tool_result',
];
const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const TOOL_CHOICES = ['auto', 'any', 'tool', 'none'];
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

type Json = Record<string, unknown>;

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id: string | null;
}

interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: { role: string; content: unknown }[];
  system?: unknown;
  stop_sequences?: string[];
  tools?: Json[];
  tool_choice?: Json;
  stream?: boolean;
}

/** What the reply will say, decided once so JSON and SSE modes report identical numbers. */
interface Plan {
  tool?: { id: string; name: string };
  /** Text deltas (one word each, the last possibly cut by a stop sequence) or the tool input's JSON fragments. */
  pieces: string[];
  stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
  stopSequence: string | null;
  inputTokens: number;
  outputTokens: number;
  /** `[sim usage=B64]`: merged over the usage reported at the end. */
  usage?: Json;
}


// ---- ids, error bodies, dispatcher hooks ----

function base58(n: number): string {
  let out = '';
  for (const b of randomBytes(n)) out += BASE58[b % BASE58.length];
  return out;
}

/** Anthropic's `request-id` style, e.g. `req_011CSSm1Hk3tCb5cK7SNcQpT`. */
export function anthropicRequestId(): string {
  return `req_011C${base58(20)}`;
}

export function isAnthropicPath(path: string): boolean {
  return path === MESSAGES || path.startsWith(`${MESSAGES}/`);
}

/** Dispatcher hook, before faults: every Anthropic answer carries its own `request-id` next to `x-request-id`. */
export function prepareAnthropic(res: ServerResponse, path: string): void {
  if (isAnthropicPath(path)) res.setHeader('request-id', anthropicRequestId());
}

/** On Anthropic paths faults match the `x-api-key` first (a gateway may send a Bearer header as well). */
export function anthropicFaultKey(req: IncomingMessage, path: string): string | undefined {
  const key = req.headers['x-api-key'];
  return isAnthropicPath(path) && typeof key === 'string' && key !== '' ? key : undefined;
}

/** `{type:"error", error:{type, message}, request_id}`; the id is the one in this response's `request-id` header. */
export function anthropicError(res: ServerResponse, type: string, message: string): AnthropicErrorBody {
  const id = res.getHeader('request-id');
  return { type: 'error', error: { type, message }, request_id: typeof id === 'string' ? id : null };
}

/** Canned Anthropic errors by status, shared by the `status=` directive and body-less faults. */
export function anthropicStatusError(res: ServerResponse, status: number): { body: AnthropicErrorBody; headers: Record<string, string> } {
  const e = (type: string, message: string, headers: Record<string, string> = {}) => ({ body: anthropicError(res, type, message), headers });
  switch (status) {
    case 400: return e('invalid_request_error', 'Simulated invalid request (HTTP 400).');
    case 401: return e('authentication_error', 'invalid x-api-key');
    case 402: return e('billing_error', 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.');
    case 403: return e('permission_error', 'Your API key does not have permission to use the specified resource.');
    case 404: return e('not_found_error', 'The requested resource could not be found.');
    case 413: return e('request_too_large', 'Request exceeds the maximum allowed number of bytes.');
    case 429:
      return e('rate_limit_error', "This request would exceed your organization's rate limit of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.", {
        'retry-after': '1', 'anthropic-ratelimit-requests-limit': '50', 'anthropic-ratelimit-requests-remaining': '0',
      });
    case 500: return e('api_error', 'Internal server error');
    case 504: return e('timeout_error', 'Request timed out');
    case 529: return e('overloaded_error', 'Overloaded');
    default: return e(status >= 500 ? 'api_error' : 'invalid_request_error', `Simulated error (HTTP ${status}).`);
  }
}

/** A fault without its own body on an Anthropic path answers with Anthropic's error body for that status. */
export function withAnthropicFaultBody(res: ServerResponse, path: string, fault: Fault): Fault {
  if (!isAnthropicPath(path) || fault.body !== undefined || fault.status === 0) return fault;
  const e = anthropicStatusError(res, fault.status);
  return { ...fault, body: e.body, headers: { ...e.headers, ...fault.headers } };
}

/** Unknown paths under /v1/messages answer like Anthropic's router, not OpenAI's. */
export function anthropicNotFound(res: ServerResponse): void {
  sendJson(res, 404, anthropicError(res, 'not_found_error', 'Not Found'));
}

function fail(ctx: Ctx, status: number, type: string, message: string): void {
  sendJson(ctx.res, status, anthropicError(ctx.res, type, message));
}

// ---- auth and validation ----

/** Key first (401), then the version header (400), as the real API answers. False = already answered. */
export function anthropicAuthorized(ctx: Ctx): boolean {
  const key = ctx.req.headers['x-api-key'];
  if (typeof key !== 'string' || key === '') {
    fail(ctx, 401, 'authentication_error', 'x-api-key header is required');
    return false;
  }
  if (!ctx.keys.has(key)) {
    fail(ctx, 401, 'authentication_error', 'invalid x-api-key');
    return false;
  }
  const version = ctx.req.headers['anthropic-version'];
  if (typeof version !== 'string' || version === '') {
    fail(ctx, 400, 'invalid_request_error', 'anthropic-version: header is required');
    return false;
  }
  if (!ANTHROPIC_VERSIONS.includes(version)) {
    fail(ctx, 400, 'invalid_request_error', `anthropic-version: "${version}" is not a valid version`);
    return false;
  }
  return true;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The body as a validated request, or undefined after answering 400/404. */
function parseRequest(ctx: Ctx, needMaxTokens: boolean): MessagesRequest | undefined {
  let body: unknown;
  try {
    body = JSON.parse(ctx.raw);
  } catch (err) {
    fail(ctx, 400, 'invalid_request_error', `The request body is not valid JSON: ${(err as Error).message}`);
    return undefined;
  }
  const problem = validate(body, needMaxTokens);
  if (problem) {
    fail(ctx, 400, 'invalid_request_error', problem);
    return undefined;
  }
  const req = body as MessagesRequest;
  if (req.model.startsWith('missing-')) {
    fail(ctx, 404, 'not_found_error', `model: ${req.model}`);
    return undefined;
  }
  return req;
}

/** Pydantic-style messages (`field: problem`), the way the Messages API words them. */
function validate(body: unknown, needMaxTokens: boolean): string | undefined {
  if (!isObject(body)) return 'Input should be a valid dictionary';
  if (body.model === undefined) return 'model: Field required';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Input should be a valid string';
  if (needMaxTokens || body.max_tokens !== undefined) {
    if (body.max_tokens === undefined) return 'max_tokens: Field required';
    if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) return 'max_tokens: Input should be a valid integer';
    if (body.max_tokens < 1) return 'max_tokens: Input should be greater than or equal to 1';
  }
  if (body.messages === undefined) return 'messages: Field required';
  if (!Array.isArray(body.messages)) return 'messages: Input should be a valid list';
  if (body.messages.length === 0) return 'messages: at least one message is required';
  for (const [i, m] of body.messages.entries()) {
    const p = validateMessage(m, i, i === body.messages.length - 1);
    if (p) return p;
  }
  return validateToolPairs(body.messages as MessagesRequest['messages'])
    ?? validateSystem(body.system)
    ?? validateSampling(body)
    ?? validateTools(body.tools, body.tool_choice)
    ?? (body.stream !== undefined && typeof body.stream !== 'boolean' ? 'stream: Input should be a valid boolean' : undefined)
    ?? (body.metadata !== undefined && !isObject(body.metadata) ? 'metadata: Input should be a valid dictionary' : undefined);
}

function validateMessage(m: unknown, i: number, last: boolean): string | undefined {
  const at = `messages.${i}`;
  if (!isObject(m)) return `${at}: Input should be a valid dictionary`;
  if (m.role === undefined) return `${at}.role: Field required`;
  if (m.role !== 'user' && m.role !== 'assistant') return `${at}.role: Input should be 'user' or 'assistant'`;
  if (m.content === undefined) return `${at}.content: Field required`;
  const emptyOk = last && m.role === 'assistant';
  const empty = 'all messages must have non-empty content except for the optional final assistant message';
  if (typeof m.content === 'string') return m.content === '' && !emptyOk ? `${at}: ${empty}` : undefined;
  if (!Array.isArray(m.content)) return `${at}.content: Input should be a valid string or a valid list`;
  if (m.content.length === 0 && !emptyOk) return `${at}: ${empty}`;
  for (const [j, b] of m.content.entries()) {
    const p = validateBlock(b, `${at}.content.${j}`, m.role);
    if (p) return p;
  }
  return undefined;
}

function validateBlock(b: unknown, at: string, role: string): string | undefined {
  if (!isObject(b)) return `${at}: Input should be a valid dictionary`;
  if (b.type === undefined) return `${at}: Unable to extract tag using discriminator 'type'`;
  if (!BLOCK_TYPES.includes(b.type as string)) {
    return `${at}: Input tag '${String(b.type)}' found using 'type' does not match any of the expected tags: ${BLOCK_TYPES.map((t) => `'${t}'`).join(', ')}`;
  }
  switch (b.type) {
    case 'text':
      if (typeof b.text !== 'string') return `${at}.text.text: Field required`;
      return b.text === '' ? 'messages: text content blocks must be non-empty' : undefined;
    case 'image':
      return validateImage(b.source, `${at}.image.source`);
    case 'tool_use':
      if (role !== 'assistant') return `${at}: tool_use blocks can only appear in assistant messages`;
      if (typeof b.id !== 'string') return `${at}.tool_use.id: Field required`;
      if (typeof b.name !== 'string') return `${at}.tool_use.name: Field required`;
      return isObject(b.input) ? undefined : `${at}.tool_use.input: Input should be a valid dictionary`;
    case 'tool_result':
      if (role !== 'user') return `${at}: tool_result blocks can only appear in user messages`;
      return typeof b.tool_use_id === 'string' ? undefined : `${at}.tool_result.tool_use_id: Field required`;
    default:
      return undefined;
  }
}

function validateImage(source: unknown, at: string): string | undefined {
  if (!isObject(source)) return `${at}: Field required`;
  if (source.type === 'base64') {
    if (!IMAGE_MEDIA_TYPES.includes(source.media_type as string)) {
      return `${at}.base64.media_type: Input should be ${IMAGE_MEDIA_TYPES.map((t) => `'${t}'`).join(', ').replace(/, ([^,]+)$/, ' or $1')}`;
    }
    return typeof source.data === 'string' && source.data !== '' ? undefined : `${at}.base64.data: Field required`;
  }
  if (source.type === 'url') return typeof source.url === 'string' && source.url !== '' ? undefined : `${at}.url.url: Field required`;
  if (source.type === 'file') return typeof source.file_id === 'string' ? undefined : `${at}.file.file_id: Field required`;
  return `${at}: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`;
}

/** Every tool_use must be answered by a tool_result in the next message, and every tool_result must answer one. */
function validateToolPairs(messages: MessagesRequest['messages']): string | undefined {
  const blocks = (m: { content: unknown } | undefined): Json[] => (Array.isArray(m?.content) ? (m.content as Json[]) : []);
  for (const [i, m] of messages.entries()) {
    const uses = blocks(m).filter((b) => b.type === 'tool_use').map((b) => b.id as string);
    const results = blocks(messages[i + 1]).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id as string);
    const open = uses.filter((id) => !results.includes(id));
    if (open.length > 0 && i + 1 < messages.length) {
      return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${open.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
    const previous = blocks(messages[i - 1]).filter((b) => b.type === 'tool_use').map((b) => b.id as string);
    const j = blocks(m).findIndex((b) => b.type === 'tool_result' && !previous.includes(b.tool_use_id as string));
    if (j >= 0) {
      return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(blocks(m)[j].tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
  }
  return undefined;
}

function validateSystem(system: unknown): string | undefined {
  if (system === undefined || typeof system === 'string') return undefined;
  if (!Array.isArray(system)) return 'system: Input should be a valid string or a valid list';
  const j = system.findIndex((b) => !isObject(b) || b.type !== 'text' || typeof b.text !== 'string');
  return j < 0 ? undefined : `system.${j}: Input should be a valid text block ({"type": "text", "text": "..."})`;
}

function validateSampling(body: Json): string | undefined {
  for (const name of ['temperature', 'top_p']) {
    const v = body[name];
    if (v === undefined) continue;
    if (typeof v !== 'number') return `${name}: Input should be a valid number`;
    if (v < 0) return `${name}: Input should be greater than or equal to 0`;
    if (v > 1) return `${name}: Input should be less than or equal to 1`;
  }
  // Every model served here (Opus 4.1, Sonnet and Haiku 4.5 and later) refuses the two together, as Anthropic's do.
  if (body.temperature !== undefined && body.top_p !== undefined) return 'temperature and top_p cannot both be specified for this model. Please use only one.';
  const stops = body.stop_sequences;
  if (stops === undefined) return undefined;
  if (!Array.isArray(stops)) return 'stop_sequences: Input should be a valid list';
  const j = stops.findIndex((s) => typeof s !== 'string');
  if (j >= 0) return `stop_sequences.${j}: Input should be a valid string`;
  return stops.some((s: string) => s.trim() === '') ? 'stop_sequences: each stop sequence must contain non-whitespace' : undefined;
}

function validateTools(tools: unknown, choice: unknown): string | undefined {
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
    for (const [i, t] of tools.entries()) {
      if (!isObject(t)) return `tools.${i}: Input should be a valid dictionary`;
      if (t.type !== undefined && t.type !== 'custom') continue; // server tools (web_search_…) carry their own shapes
      if (typeof t.name !== 'string') return `tools.${i}.custom.name: Field required`;
      if (!/^[a-zA-Z0-9_-]{1,128}$/.test(t.name)) return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
      if (t.input_schema === undefined) return `tools.${i}.custom.input_schema: Field required`;
      if (!isObject(t.input_schema)) return `tools.${i}.custom.input_schema: Input should be a valid dictionary`;
    }
  }
  if (choice === undefined) return undefined;
  if (!isObject(choice)) return 'tool_choice: Input should be a valid dictionary';
  if (!TOOL_CHOICES.includes(choice.type as string)) {
    return `tool_choice: Input tag '${String(choice.type)}' found using 'type' does not match any of the expected tags: ${TOOL_CHOICES.map((t) => `'${t}'`).join(', ')}`;
  }
  return choice.type === 'tool' && typeof choice.name !== 'string' ? 'tool_choice.tool.name: Field required' : undefined;
}

// ---- counting and planning ----

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Whitespace words of all text (system + messages); every non-text block counts as one token. */
function inputTokens(body: Pick<MessagesRequest, 'system' | 'messages'>): number {
  const count = (content: unknown): number => {
    if (typeof content === 'string') return words(content);
    if (!Array.isArray(content)) return 0;
    return content.reduce((n: number, b) => n + (b?.type === 'text' ? words(String(b.text ?? '')) : 1), 0);
  };
  return count(body.system) + body.messages.reduce((n, m) => n + count(m.content), 0);
}

function lastUserText(messages: MessagesRequest['messages']): string {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content as Json[]).filter((b) => b.type === 'text').map((b) => b.text as string).join(' ');
}

/** The tool to call: `[sim tool_call=NAME]`, else what `tool_choice` forces (`tool` → its name, `any` → the first tool). */
function chosenTool(body: MessagesRequest, d: Directives): string | undefined {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return undefined;
  const choice = body.tool_choice;
  if (choice?.type === 'none') return undefined;
  if (d.tool_call) return d.tool_call;
  if (choice?.type === 'tool') return choice.name as string;
  if (choice?.type === 'any') return body.tools.map((t) => t.name).find((n): n is string => typeof n === 'string');
  return undefined;
}

function planReply(body: MessagesRequest, d: Directives): Plan {
  return { ...planWords(body, d), usage: usageDirective(d) };
}

function planWords(body: MessagesRequest, d: Directives): Plan {
  const input = inputTokens(body);
  const toolName = chosenTool(body, d);
  if (toolName) {
    const tool = { id: `toolu_01${base58(22)}`, name: toolName };
    // Five fragments ({"location":"Paris"} unless `tool_args`), so a tool use's output_tokens is a known constant.
    const pieces = toolArgFragments(d);
    return { tool, pieces, stopReason: 'tool_use', stopSequence: null, inputTokens: input, outputTokens: pieces.length };
  }
  const wanted = intDirective(d, 'chunks', 5);
  const limit = Math.min(wanted, body.max_tokens);
  const stops = body.stop_sequences ?? [];
  const pieces: string[] = [];
  let text = '';
  for (let i = 0; i < limit; i++) {
    const next = `${text}tok${i + 1} `;
    const hit = firstStop(next, stops);
    if (hit) return { pieces: cutPieces([...pieces, `tok${i + 1} `], hit.index), stopReason: 'stop_sequence', stopSequence: hit.sequence, inputTokens: input, outputTokens: i + 1 };
    text = next;
    pieces.push(`tok${i + 1} `);
  }
  return { pieces, stopReason: limit < wanted ? 'max_tokens' : 'end_turn', stopSequence: null, inputTokens: input, outputTokens: limit };
}

/** The stop sequence found earliest in the text (generation stops as soon as one is complete). */
function firstStop(text: string, stops: string[]): { sequence: string; index: number } | undefined {
  let best: { sequence: string; index: number } | undefined;
  for (const sequence of stops) {
    const index = text.indexOf(sequence);
    if (index >= 0 && (!best || index < best.index)) best = { sequence, index };
  }
  return best;
}

/** The words up to `length` characters; the last one may be cut, empty ones are dropped. */
function cutPieces(pieces: string[], length: number): string[] {
  const out: string[] = [];
  let left = length;
  for (const p of pieces) {
    if (left <= 0) break;
    out.push(p.slice(0, left));
    left -= p.length;
  }
  return out;
}

/** The final usage, in the shape Anthropic's API reports today, with `[sim usage=B64]` merged in. */
function usage(plan: Plan): Json {
  return deepMerge({
    input_tokens: plan.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, output_tokens: plan.outputTokens, service_tier: 'standard',
  }, plan.usage);
}

/** message_start: the input side is known before generation; output_tokens is the 1 Anthropic's stream starts with, server tools not yet used. */
function startUsage(plan: Plan): Json {
  const { server_tool_use: _used, ...inputSide } = usage(plan);
  return { ...inputSide, output_tokens: 1 };
}

/** message_delta: Anthropic's cumulative counts (input side included), the figures a stream is billed by. */
function deltaUsage(plan: Plan): Json {
  const u = usage(plan);
  const keys = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens', 'server_tool_use'];
  return Object.fromEntries(keys.filter((k) => k in u).map((k) => [k, u[k]]));
}

// ---- handlers ----

/** `status=` directive: an Anthropic error (or, for 0, a dropped connection) instead of a message. */
function directedFailure(ctx: Ctx, d: Directives): boolean {
  const status = intDirective(d, 'status');
  if (status === 0) {
    ctx.req.socket.destroy();
    return true;
  }
  if (status === undefined || status < 400 || status > 599) return false;
  const canned = anthropicStatusError(ctx.res, status);
  sendJson(ctx.res, status, canned.body, canned.headers);
  return true;
}

async function messages(ctx: Ctx): Promise<void> {
  if (!anthropicAuthorized(ctx)) return;
  const body = parseRequest(ctx, true);
  if (!body) return;
  const d = parseDirectives(lastUserText(body.messages));
  if (!(await sleep(intDirective(d, 'first_byte_ms', 0), ctx.signal))) return;
  if (directedFailure(ctx, d)) return;
  const plan = planReply(body, d);
  const id = `msg_01${base58(22)}`;
  if (body.stream === true) return streamReply(ctx, body, plan, d, id);
  const content = plan.tool
    ? [{ type: 'tool_use', id: plan.tool.id, name: plan.tool.name, input: JSON.parse(plan.pieces.join('')) }]
    : [{ type: 'text', text: plan.pieces.join('') }];
  sendJson(ctx.res, 200, {
    id, type: 'message', role: 'assistant', model: body.model, content,
    stop_reason: plan.stopReason, stop_sequence: plan.stopSequence, usage: usage(plan),
  });
}

async function countTokens(ctx: Ctx): Promise<void> {
  if (!anthropicAuthorized(ctx)) return;
  const body = parseRequest(ctx, false);
  if (!body) return;
  const d = parseDirectives(lastUserText(body.messages));
  if (!(await sleep(intDirective(d, 'first_byte_ms', 0), ctx.signal))) return;
  if (directedFailure(ctx, d)) return;
  sendJson(ctx.res, 200, { input_tokens: inputTokens(body) });
}

function event(name: string, payload: unknown): Step {
  return { data: `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n` };
}

/** The whole event sequence, computed up front so the send loop only has to pace it. */
function streamSteps(ctx: Ctx, body: MessagesRequest, plan: Plan, d: Directives, id: string): Step[] {
  const block = plan.tool ? { type: 'tool_use', id: plan.tool.id, name: plan.tool.name, input: {} } : { type: 'text', text: '' };
  const steps: Step[] = [
    event('message_start', {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: startUsage(plan) },
    }),
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: block }),
    event('ping', { type: 'ping' }),
  ];
  const cutAfter = intDirective(d, 'cut_after');
  const errorAfter = intDirective(d, 'error_after');
  for (let k = 0; ; k++) {
    if (k === cutAfter) return [...steps, { cut: true }];
    // An error event is an error body inside a 200 stream: echo mode treats it as one.
    if (k === errorAfter) return [...steps, event('error', echoed(ctx.res, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, true))];
    if (k === plan.pieces.length) break;
    const delta = plan.tool ? { type: 'input_json_delta', partial_json: plan.pieces[k] } : { type: 'text_delta', text: plan.pieces[k] };
    steps.push(event('content_block_delta', { type: 'content_block_delta', index: 0, delta }));
  }
  steps.push(
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', { type: 'message_delta', delta: { stop_reason: plan.stopReason, stop_sequence: plan.stopSequence }, usage: deltaUsage(plan) }),
    event('message_stop', { type: 'message_stop' }),
  );
  return steps;
}

async function streamReply(ctx: Ctx, body: MessagesRequest, plan: Plan, d: Directives, id: string): Promise<void> {
  const steps = streamSteps(ctx, body, plan, d, id);
  await playSteps(ctx, steps, {
    contentType: 'text/event-stream; charset=utf-8', intervalMs: intDirective(d, 'interval_ms', 0),
    complete: (last) => last.startsWith('event: message_stop\n'),
  });
}

export const anthropicRoutes: Route[] = [
  { method: 'POST', path: MESSAGES, handle: messages },
  { method: 'POST', path: COUNT_TOKENS, handle: countTokens },
];
