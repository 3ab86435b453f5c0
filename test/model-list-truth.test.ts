// The model list tells the truth: on the demo config and on the production config (deploy/config, every vendor on the
// simulator), every model GET /v1/models offers a token is called on each endpoint its `supported_endpoint_types`
// names, with a minimal valid request, and answered (a chat, an embedding, an image, a submitted task, a realtime
// response), never refused as a model the endpoint does not serve. The requests are the price conformance tables'
// (helpers/conformance.ts); this file knows only which shipped route answers each endpoint type, and the few fields a
// model needs to be asked anything at all (an image for image-to-video models).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './helpers/stack.js';
import { startProduction } from './helpers/production.js';
import { fastTasks } from './helpers/video.js';
import { send, type Row, type Via } from './helpers/conformance.js';
import type { CompiledRoute } from '../src/config/runtime.js';

/** How this test calls each shipped route that serves a model (the route ids of routes.yaml). */
const viaOf: Record<string, Via> = {
  chat_completions: 'chat', responses: 'responses', messages: 'messages', gemini_generate: 'gemini', generate_content: 'gemini-image',
  embeddings: 'embeddings', images_generations: 'image', images_edits: 'image-edit',
  video_generations: 'video', vendork_text2video: 'vendork', vendork_image2video: 'vendork-i2v', alpha_text2video: 'alpha-text2video',
  art_official: 'visual', art_submit_imagine: 'midjourney', music_submit_music: 'suno-music', music_submit_lyrics: 'suno-lyrics',
  audio_speech: 'speech', audio_transcriptions: 'transcription', audio_translations: 'translation', realtime: 'realtime',
  rerank: 'rerank', moderations: 'moderation',
};

const image = 'https://example.com/first.png';
const lastImage = 'https://example.com/last.png';

/** Fields a model cannot be asked without, on the route this test calls it by. */
function needs(model: string, via: Via): Record<string, unknown> {
  if (via === 'visual') return /i2v_first_tail|recamera/.test(model) ? { image_urls: [image, lastImage] } : /i2v/.test(model) ? { image_urls: [image] } : {};
  if (via !== 'video') return {};
  if (/i2v_first_tail/.test(model)) return { image, metadata: { last_frame_url: lastImage } };
  return /i2v/.test(model) || model === 'kling-v2-1' ? { image } : {};
}

interface Checked { listed: number; calls: number; refused: string[] }

/** Lists each group's models, then calls every (model, endpoint type) pair its entry names. */
async function walk(stack: Stack): Promise<Checked> {
  const rt = stack.gw.gateway.runtime;
  const out: Checked = { listed: 0, calls: 0, refused: [] };
  for (const group of rt.groups.keys()) {
    const { key } = await stack.token({ group, quota: 1_000_000_000 });
    const list = await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(list.status, 200);
    const models = (await list.json() as { data: { id: string; supported_endpoint_types: string[] }[] }).data;
    out.listed = Math.max(out.listed, models.length);
    const calls = models.flatMap((m) => {
      assert.ok(m.supported_endpoint_types.length > 0, `${m.id} names no endpoint`);
      return m.supported_endpoint_types.map((type) => ({ model: m.id, type, route: routeFor(rt.routes, type, m.id) }));
    });
    // A handful at a time: the simulator answers each at once, tasks are only submitted.
    for (let i = 0; i < calls.length; i += 8) {
      await Promise.all(calls.slice(i, i + 8).map(async ({ model, type, route }) => {
        const via = viaOf[route.id];
        const row: Row = { model, via, body: needs(model, via), dims: [], usd: 0 };
        const res = await send(stack, key, row, `${group}-${model}`);
        out.calls++;
        if (res.status >= 400) out.refused.push(`${group} ${model} on ${type} (${route.method} ${route.path}): ${res.status} ${res.text.slice(0, 300)}`);
      }));
    }
  }
  return out;
}

/** The route of an endpoint type this test calls a model by: one whose fixed model, if any, is this one. */
function routeFor(routes: readonly CompiledRoute[], type: string, model: string): CompiledRoute {
  const route = routes.find((r) => (r.endpointType ?? r.id) === type && viaOf[r.id] && (!r.model || r.model === model));
  assert.ok(route, `endpoint type ${type} (of ${model}) has no route this test knows how to call: add it to viaOf`);
  return route;
}

const stacks: Stack[] = [];
after(async () => { await Promise.all(stacks.map((s) => s.close())); });

for (const [name, start] of [['demo config', () => startStack()], ['production config', () => startProduction()]] as const) {
  test(`${name}: every model listed is answered on every endpoint its entry names`, { timeout: 300_000 }, async () => {
    const stack = await start();
    stacks.push(stack);
    fastTasks(stack);
    const checked = await walk(stack);
    console.log(`${name}: ${checked.listed} models listed, ${checked.calls} calls, ${checked.calls - checked.refused.length} answered`);
    assert.deepEqual(checked.refused, []);
  });
}

test('a model is listed only with a route that can call it: operations no route uses, operations for other models, fixed-model routes', async () => {
  const { endpointTypesOf } = await import('../src/config/endpoint-types.js');
  const route = (id: string, operation: string, more: Partial<CompiledRoute> = {}) => ({ id, operation, policy: 'json', ...more }) as CompiledRoute;
  const op = (models?: string[]) => ({ models: models && new Set(models) });
  const channel = (models: string[], operations: Record<string, ReturnType<typeof op>>, more: object = {}) =>
    ({ enabled: true, groups: new Set(['g']), models: new Set(models), operations: new Map(Object.entries(operations)), ...more }) as never;
  const types = endpointTypesOf([
    route('chat', 'chat', { endpointType: 'openai' }),
    route('chat_tokens', 'chat', { policy: 'count_tokens', endpointType: 'openai' }),
    route('draw', 'draw'),
    route('song', 'song', { policy: 'task', task: { action: 'submit' } as never, model: 'song-a' }),
    route('song_get', 'song', { policy: 'task', task: { action: 'query' } as never }),
    route('list', 'list', { policy: 'models' }),
  ], [
    channel(['chat-a', 'draw-a', 'orphan'], { chat: op(['chat-a']), draw: op(['draw-a']), nothing_routes_to: op() }),
    channel(['song-a', 'song-b'], { song: op() }),
    channel(['off'], { chat: op() }, { enabled: false }),
    channel(['elsewhere'], { chat: op() }, { groups: new Set(['h']) }),
  ])('g');
  assert.deepEqual(Object.fromEntries(types), { 'chat-a': ['openai'], 'draw-a': ['draw'], 'song-a': ['song'] });
});
