// A month of a busy gateway's request log, made up deterministically for the request-log bench: records in time order
// over the 30 days before today (more by day than by night), 200 tokens of 50 users (a few tokens send most requests),
// a dozen models and channels, 3 % tasks (a submit naming its task, and the task's end), a few topups, 2 % errors.
import type { RequestRecord } from '../src/request-log/log-store.js';
import { seededRandom } from '../test/helpers/seeded-random.js';

export const days = 30;
export const tokens = Array.from({ length: 200 }, (_, i) => `tok_${i.toString(16).padStart(4, '0')}`);
/** user_k owns tokens k, k + 50, k + 100 and k + 150. */
const userOf = (token: number) => `user_${token % 50}`;
export const models = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1', 'o4-mini', 'claude-haiku-4-5', 'claude-sonnet-4-5', 'gemini-2.5-flash',
  'gemini-2.5-pro', 'deepseek-chat', 'qwen-plus', 'text-embedding-3-small', 'sora-2'];
export const channels = ['openai', 'openai_b', 'azure_east', 'azure_west', 'anthropic', 'bedrock', 'vertex', 'gemini', 'deepseek',
  'dashscope', 'openrouter', 'sim_openai'];
const routes = ['chat_completions', 'responses', 'messages', 'embeddings'];
const errors: [number, string][] = [[429, 'rate_limited'], [502, 'upstream_error'], [504, 'upstream_timeout'], [400, 'invalid_request'],
  [499, 'client_closed'], [402, 'insufficient_quota']];

const random = seededRandom;

/** Where a fraction of a day's requests falls in it (ms): night hours (0-7 UTC) carry a third of a day hour's load. */
function msInDay(f: number): number {
  const u = f * (7 + 17 * 3);
  return (u < 7 ? u : 7 + (u - 7) / 3) * 3_600_000;
}

/** The UTC midnight that ends the month of records: today's. */
export const monthEnd = (now: number) => Math.floor(now / 86_400_000) * 86_400_000;

/** `count` finished requests (and the tasks and topups among them) in the 30 UTC days before `end`, `batch` at a time. */
export function* monthOfRecords(count: number, end: number, batch: number): Generator<RequestRecord[]> {
  const rnd = random(42);
  const perDay = count / days;
  const start = end - days * 86_400_000;
  const out: RequestRecord[] = [];
  for (let i = 0; i < count; i++) {
    const day = Math.floor(i / perDay);
    const at = Math.floor(start + day * 86_400_000 + msInDay((i - day * perDay) / perDay));
    out.push(...recordsAt(i, at, rnd));
    if (out.length >= batch) yield out.splice(0, batch);
  }
  if (out.length) yield out;
}

function recordsAt(i: number, at: number, rnd: () => number): RequestRecord[] {
  const token = Math.floor(tokens.length * rnd() ** 2);
  const m = Math.floor(models.length * rnd());
  const tags = { token: tokens[token], user: userOf(token), group: `group_${token % 4}` };
  if (i % 1000 === 999) return [{ id: `topup_${i.toString(36)}`, kind: 'topup', at, ...tags, route: 'admin', charged: 1_000_000, reason: 'monthly' }];
  const failed = rnd() < 0.02 ? errors[Math.floor(rnd() * errors.length)] : undefined;
  const request = requestAt(i, at, rnd, { ...tags, model: models[m], channel: channels[(m + (rnd() < 0.2 ? 1 : 0)) % channels.length] }, failed);
  if (i % 33 !== 0 || failed) return [request];
  // A task: its submit's request naming the task, and the task's end a minute or two later under the task's id.
  const task = `task_${i.toString(36).padStart(32, 'x')}`;
  const done: RequestRecord = { ...request, id: task, kind: 'task', at: at + 60_000 + Math.floor(rnd() * 60_000), started_at: at, outcome: 'completed', units: 8 };
  return [{ ...request, task, route: 'video_create', path: '/v1/videos', outcome: 'queued' }, done];
}

type Tags = Pick<RequestRecord, 'token' | 'user' | 'group' | 'model' | 'channel'>;

function requestAt(i: number, at: number, rnd: () => number, tags: Tags, failed: [number, string] | undefined): RequestRecord {
  const route = routes[i % routes.length];
  const latency = 200 + Math.floor(rnd() * 4000);
  const prompt = 50 + Math.floor(rnd() * 4000);
  const completion = failed ? 0 : 20 + Math.floor(rnd() * 800);
  const charged = failed ? 0 : Math.ceil(prompt * 0.15 + completion * 0.6);
  return {
    id: `req_3f9a0c1e${at.toString(36)}${i.toString(36)}`, kind: 'request', at, started_at: at - latency, ...tags, route,
    method: 'POST', path: `/v1/${route.replace('_', '/')}`, served_model: `${tags.model}-2025-08-07`,
    attempts: [{ channel: tags.channel!, status: failed?.[0] ?? 200, ms: latency - 15 }],
    status: failed?.[0] ?? 200, error_code: failed?.[1] ?? null, outcome: failed ? 'error' : 'done', reason: failed ? `upstream answered ${failed[0]}` : null,
    usage: failed ? null : { prompt_tokens: prompt, completion_tokens: completion, cached_tokens: Math.floor(prompt / 3) },
    reserved: 4000, charged, vendor_charged: charged,
    charge_lines: failed ? [] : [['prompt', prompt, 0.15, Math.ceil(prompt * 0.15)], ['completion', completion, 0.6, Math.ceil(completion * 0.6)]],
    latency_ms: latency, first_byte_ms: Math.floor(latency / 4), client: `10.0.${i % 7}.${i % 251}`,
  };
}
