// `GET /v1/models` and `GET /v1/models/{id}`: both OpenAI and Anthropic serve their model list at this path. A request
// with Anthropic's headers (`anthropic-version`, or `x-api-key` without a Bearer header) gets Anthropic's API; any other
// gets OpenAI's. Gateways call these as a cheap, read-only check that a key works (`switchyard check --probe`).
import type { IncomingMessage } from 'node:http';
import { anthropicAuthorized, anthropicError, anthropicRequestId } from './anthropic.js';
import { type Ctx, type Route, errorBody, openaiAuthorized, sendJson } from './http.js';

const PATH = /^\/v1\/models(?:\/([^/]+))?$/;

/** OpenAI's list: every model the key may use (here: those the simulator's OpenAI-format vendors answer for). */
const OPENAI_MODELS: [string, number, string][] = [
  ['gpt-6.2-astra', 1790812800, 'system'], ['gpt-6.2-sol', 1790812800, 'system'], ['gpt-6-luna', 1782864000, 'system'],
  ['gpt-4o-mini', 1721172741, 'system'], ['gpt-4o', 1715367049, 'system'], ['text-embedding-3-small', 1705948997, 'system'],
  ['text-embedding-3-large', 1705953180, 'system'], ['gpt-image-2', 1767225600, 'system'], ['gpt-image-2.5-flare', 1785542400, 'system'],
  ['gpt-image-2.5-sunburst', 1785542400, 'system'], ['gpt-image-2.6-sunburst', 1790812800, 'system'],
  ['sora-2', 1759708615, 'system'], ['sora-2-pro', 1759708663, 'system'],
];

/** Anthropic's list, newest first, with the aliases its retrieve endpoint resolves. */
const ANTHROPIC_MODELS = [
  { id: 'claude-fable-5-1', alias: 'claude-fable-5-1', display_name: 'Claude Fable 5.1', created_at: '2026-10-01T00:00:00Z' },
  { id: 'claude-opus-5-5', alias: 'claude-opus-5-5', display_name: 'Claude Opus 5.5', created_at: '2026-09-01T00:00:00Z' },
  { id: 'claude-sonnet-5-5', alias: 'claude-sonnet-5-5', display_name: 'Claude Sonnet 5.5', created_at: '2026-09-01T00:00:00Z' },
  { id: 'claude-opus-5', alias: 'claude-opus-5', display_name: 'Claude Opus 5', created_at: '2026-05-01T00:00:00Z' },
  { id: 'claude-sonnet-5', alias: 'claude-sonnet-5', display_name: 'Claude Sonnet 5', created_at: '2026-05-01T00:00:00Z' },
  { id: 'claude-haiku-4-5-20251001', alias: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5', created_at: '2025-10-15T00:00:00Z' },
  { id: 'claude-sonnet-4-5-20250929', alias: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
  { id: 'claude-opus-4-1-20250805', alias: 'claude-opus-4-1', display_name: 'Claude Opus 4.1', created_at: '2025-08-05T00:00:00Z' },
];

function isAnthropic(req: IncomingMessage): boolean {
  return req.headers['anthropic-version'] !== undefined || (req.headers['x-api-key'] !== undefined && req.headers.authorization === undefined);
}

function param(ctx: Ctx): string | undefined {
  const m = PATH.exec(ctx.path);
  return m?.[1] === undefined ? undefined : decodeURIComponent(m[1]);
}

async function openai(ctx: Ctx): Promise<void> {
  if (!openaiAuthorized(ctx)) return;
  const view = ([id, created, owner]: [string, number, string]) => ({ id, object: 'model', created, owned_by: owner });
  const id = param(ctx);
  if (id === undefined) return sendJson(ctx.res, 200, { object: 'list', data: OPENAI_MODELS.map(view) });
  const model = OPENAI_MODELS.find(([m]) => m === id);
  if (model) return sendJson(ctx.res, 200, view(model));
  sendJson(ctx.res, 404, errorBody(`The model '${id}' does not exist`, 'invalid_request_error', 'model', 'model_not_found'));
}

/** `limit` 1–1000 (default 20), paged by `after_id` / `before_id`, as Anthropic's Models API. */
async function anthropic(ctx: Ctx): Promise<void> {
  ctx.res.setHeader('request-id', anthropicRequestId());
  if (!anthropicAuthorized(ctx)) return;
  const view = ({ id, display_name, created_at }: (typeof ANTHROPIC_MODELS)[number]) => ({ type: 'model', id, display_name, created_at });
  const id = param(ctx);
  if (id !== undefined) {
    const model = ANTHROPIC_MODELS.find((m) => m.id === id || m.alias === id);
    return model ? sendJson(ctx.res, 200, view(model)) : sendJson(ctx.res, 404, anthropicError(ctx.res, 'not_found_error', `model: ${id}`));
  }
  const q = new URL(ctx.req.url ?? '/', 'http://sim').searchParams;
  const limit = q.has('limit') ? Number(q.get('limit')) : 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    return sendJson(ctx.res, 400, anthropicError(ctx.res, 'invalid_request_error', 'limit: Input should be greater than or equal to 1 and less than or equal to 1000'));
  }
  const after = q.get('after_id');
  const before = q.get('before_id');
  let list = ANTHROPIC_MODELS;
  if (after) list = list.slice(list.findIndex((m) => m.id === after) + 1 || list.length);
  if (before) list = list.slice(0, Math.max(0, list.findIndex((m) => m.id === before)));
  const page = before ? list.slice(-limit) : list.slice(0, limit);
  sendJson(ctx.res, 200, {
    data: page.map(view), has_more: page.length < list.length, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null,
  });
}

export const modelRoutes: Route[] = [{ method: 'GET', path: PATH, handle: (ctx) => (isAnthropic(ctx.req) ? anthropic(ctx) : openai(ctx)) }];
