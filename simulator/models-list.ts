// GET /v1/models: OpenAI's model list (Bearer) and Anthropic's (x-api-key + anthropic-version) share the path; the
// headers decide, as each vendor's own clients send them. A read-only call that checks a key without spending money.
import type { Ctx, Route } from './http.js';
import { openaiAuthorized, sendJson } from './http.js';
import { anthropicAuthorized } from './anthropic.js';

/** Representative ids: the simulator answers any model name, so the list only has to look like the vendor's. */
const OPENAI_MODELS = [
  'gpt-6.2-astra', 'gpt-6.2-sol', 'gpt-6-luna', 'gpt-4o', 'gpt-4o-mini', 'text-embedding-3-small', 'text-embedding-3-large',
  'gpt-image-2', 'gpt-image-2.5-flare', 'gpt-image-2.5-sunburst', 'gpt-image-2.6-sunburst', 'sora-2', 'sora-2-pro',
];
const ANTHROPIC_MODELS: [id: string, name: string][] = [
  ['claude-fable-5-1', 'Claude Fable 5.1'], ['claude-opus-5-5', 'Claude Opus 5.5'], ['claude-sonnet-5-5', 'Claude Sonnet 5.5'],
  ['claude-opus-5', 'Claude Opus 5'], ['claude-sonnet-5', 'Claude Sonnet 5'], ['claude-sonnet-4-5', 'Claude Sonnet 4.5'],
  ['claude-haiku-4-5', 'Claude Haiku 4.5'],
];
const CREATED = 1_767_225_600; // 2026-01-01T00:00:00Z

const isAnthropic = (ctx: Ctx): boolean => ctx.req.headers['x-api-key'] !== undefined || ctx.req.headers['anthropic-version'] !== undefined;

function openaiList(ctx: Ctx): void {
  if (!openaiAuthorized(ctx)) return;
  sendJson(ctx.res, 200, { object: 'list', data: OPENAI_MODELS.map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'system' })) });
}

/** Anthropic pages with `limit` (1–1000, default 20) and `after_id`; `has_more` says whether another page exists. */
function anthropicList(ctx: Ctx): void {
  if (!anthropicAuthorized(ctx)) return;
  const q = new URL(ctx.req.url ?? '/', 'http://sim').searchParams;
  const limit = q.has('limit') ? Number(q.get('limit')) : 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    return sendJson(ctx.res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'limit: Input should be less than or equal to 1000' } });
  }
  const after = q.get('after_id');
  const start = after ? ANTHROPIC_MODELS.findIndex(([id]) => id === after) + 1 : 0;
  const page = ANTHROPIC_MODELS.slice(start, start + limit);
  const data = page.map(([id, display_name]) => ({ type: 'model', id, display_name, created_at: new Date(CREATED * 1000).toISOString() }));
  sendJson(ctx.res, 200, { data, has_more: start + limit < ANTHROPIC_MODELS.length, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
}

export const modelsList: Route = {
  method: 'GET',
  path: '/v1/models',
  handle: async (ctx) => (isAnthropic(ctx) ? anthropicList(ctx) : openaiList(ctx)),
};
