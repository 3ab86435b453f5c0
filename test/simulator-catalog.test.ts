// Simulator fidelity for the production vendor catalog: Ark's asset API is V4-signed for service ark and a signed
// `POST /` goes by its credential scope; each video vendor's cheapest read-only call checks the key without spending;
// Ark's task list; Vidu's per-model durations and resolutions.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { ARK_SCOPE, type Simulator, VISUAL_SCOPE, signKlingJwt, signVolcV4, startSimulator } from '../simulator/server.js';

const KEY = 'sim-key';
let sim: Simulator;
let host: string;

before(async () => {
  sim = await startSimulator({ keys: [KEY] });
  host = new URL(sim.url).host;
});
after(() => sim.close());
beforeEach(() => {
  sim.control.clearVideo();
  sim.control.clearMedia();
});

async function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const res = await fetch(`${sim.url}${path}`, { method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), headers: init.headers, body: init.body });
  const text = await res.text();
  let body: any;
  try { body = JSON.parse(text); } catch { body = undefined; }
  return { status: res.status, body };
}

/** A Volcengine OpenAPI call, V4-signed for `scope` with the given key pair. */
function volc(action: string, version: string, payload: unknown, scope = ARK_SCOPE, ak = 'sim-ak', sk = 'sim-sk') {
  const body = JSON.stringify(payload);
  const query = `Action=${action}&Version=${version}`;
  const signed = signVolcV4({ ak, sk, host, query, body, ...scope });
  return call(`/?${query}`, { method: 'POST', headers: signed.headers, body });
}

test('Ark assets: accepted only V4-signed for cn-beijing/ark; a Bearer key or another scope is 401 in the OpenAPI envelope', async () => {
  const group = await volc('CreateAssetGroup', '2024-01-01', { Name: 'g' });
  assert.equal(group.status, 200);
  assert.match(group.body.Result.Id, /^group-\d{14}-\w{5}$/);
  assert.deepEqual([group.body.ResponseMetadata.Service, group.body.ResponseMetadata.Region], ['ark', 'cn-beijing']);

  const bearer = await call('/?Action=CreateAssetGroup&Version=2024-01-01', { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: '{"Name":"g"}' });
  assert.equal(bearer.status, 401);
  assert.equal(bearer.body.ResponseMetadata.Error.Code, 'InvalidAuthorization');
  const wrongRegion = await volc('CreateAssetGroup', '2024-01-01', { Name: 'g' }, { region: 'cn-north-1', service: 'ark' });
  assert.equal(wrongRegion.status, 401);
  assert.equal(wrongRegion.body.ResponseMetadata.Error.Code, 'InvalidCredential');
  const wrongSecret = await volc('CreateAssetGroup', '2024-01-01', { Name: 'g' }, ARK_SCOPE, 'sim-ak', 'not-the-secret');
  assert.equal(wrongSecret.status, 401);
  assert.equal(wrongSecret.body.ResponseMetadata.Error.Code, 'SignatureDoesNotMatch');
  assert.deepEqual(sim.control.signatures().map((s) => `${s.service}:${s.ok}:${s.code ?? ''}`),
    ['ark:true:', 'ark:false:InvalidAuthorization', 'ark:false:InvalidCredential', 'ark:false:SignatureDoesNotMatch']);
});

test('a signed POST / goes by its scope\'s service, whatever the Action: each API answers an Action it lacks with 404', async () => {
  const assetActionToVisual = await volc('CreateAssetGroup', '2024-01-01', { Name: 'g' }, VISUAL_SCOPE);
  assert.equal(assetActionToVisual.status, 404);
  assert.equal(assetActionToVisual.body.ResponseMetadata.Service, 'cv');
  assert.equal(assetActionToVisual.body.ResponseMetadata.Error.Code, 'InvalidActionOrVersion');
  const visualActionToArk = await volc('CVSync2AsyncSubmitTask', '2022-08-31', { req_key: 'jimeng_t2i_v40', prompt: 'p' }, ARK_SCOPE);
  assert.equal(visualActionToArk.status, 404);
  assert.equal(visualActionToArk.body.ResponseMetadata.Service, 'ark');
  assert.equal(visualActionToArk.body.ResponseMetadata.Error.Code, 'InvalidActionOrVersion');
  const visual = await volc('CVSync2AsyncSubmitTask', '2022-08-31', { req_key: 'jimeng_t2i_v40', prompt: 'p' }, VISUAL_SCOPE);
  assert.equal(visual.status, 200);
  assert.equal(visual.body.code, 10000);
  assert.deepEqual(sim.control.signatures().map((s) => `${s.service}:${s.action}`),
    ['cv:CreateAssetGroup', 'ark:CVSync2AsyncSubmitTask', 'cv:CVSync2AsyncSubmitTask']);
});

test('each vendor\'s read-only probe: a good key is answered without creating anything, a bad one is refused', async () => {
  const kling = (sk: string) => ({ authorization: `Bearer ${signKlingJwt('sim-ak', sk)}` });
  const probes: [string, (good: boolean) => Promise<{ status: number; body: any }>, number][] = [
    ['Vidu: a made-up task', (good) => call('/ent/v2/tasks/0/creations', { headers: { authorization: `Token ${good ? KEY : 'bad'}` } }), 404],
    ['Kling: the text2video list', (good) => call('/v1/videos/text2video?pageNum=1&pageSize=1', { headers: kling(good ? 'sim-sk' : 'bad') }), 200],
    ['Ark: the task list', (good) => call('/api/v3/contents/generations/tasks?page_num=1&page_size=1', { headers: { authorization: `Bearer ${good ? KEY : 'bad'}` } }), 200],
    ['Ark assets: ListAssets', (good) => volc('ListAssets', '2024-01-01', { PageNumber: 1, PageSize: 1 }, ARK_SCOPE, 'sim-ak', good ? 'sim-sk' : 'bad'), 200],
    ['visual API: the result of a made-up task', (good) => volc('CVSync2AsyncGetResult', '2022-08-31', { req_key: 'jimeng_t2i_v40', task_id: '0' }, VISUAL_SCOPE, 'sim-ak', good ? 'sim-sk' : 'bad'), 200],
    ['DashScope: a made-up task', (good) => call('/api/v1/tasks/0', { headers: { authorization: `Bearer ${good ? KEY : 'bad'}` } }), 200],
    ['MiniMax: a made-up task', (good) => call('/v1/query/video_generation?task_id=0', { headers: { authorization: `Bearer ${good ? KEY : 'bad'}` } }), 200],
  ];
  for (const [name, probe, okStatus] of probes) {
    assert.equal((await probe(true)).status, okStatus, name);
    assert.equal((await probe(false)).status, 401, name);
  }
  assert.deepEqual([sim.control.videoTasks().length, sim.control.videoAssets().length, sim.control.mediaTasks().length], [0, 0, 0], 'nothing was created');
});

test('Ark task list: newest first, paged, filtered by status; listing is not a poll', async () => {
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const ids: string[] = [];
  for (const text of ['a [sim polls=0]', 'b', 'c']) {
    const r = await call('/api/v3/contents/generations/tasks', { headers, body: JSON.stringify({ model: 'doubao-seedance-1-0-pro-250528', content: [{ type: 'text', text }] }) });
    ids.push(r.body.id);
  }
  await call(`/api/v3/contents/generations/tasks/${ids[0]}`, { headers });
  const all = await call('/api/v3/contents/generations/tasks', { headers });
  assert.equal(all.body.total, 3);
  assert.deepEqual(all.body.items.map((t: { id: string }) => t.id), [...ids].reverse());
  const page = await call('/api/v3/contents/generations/tasks?page_num=2&page_size=2', { headers });
  assert.deepEqual(page.body.items.map((t: { id: string }) => t.id), [ids[0]]);
  const done = await call('/api/v3/contents/generations/tasks?filter.status=succeeded', { headers });
  assert.deepEqual(done.body.items.map((t: { id: string; status: string }) => [t.id, t.status]), [[ids[0], 'succeeded']]);
  assert.equal(sim.control.videoTasks().find((t) => t.id === ids[1])!.polls, 0);
  const bad = await call('/api/v3/contents/generations/tasks?page_size=501', { headers });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.param, 'page_size');
});

test('Vidu refuses a duration or resolution the model does not render (FieldInvalid), as Vidu does', async () => {
  const submit = (body: Record<string, unknown>) => call('/ent/v2/text2video', { headers: { authorization: `Token ${KEY}` }, body: JSON.stringify({ prompt: 'p', ...body }) });
  for (const [body, field] of [
    [{ model: 'viduq1', resolution: '720p' }, 'resolution'], [{ model: 'viduq1', duration: 8 }, 'duration'],
    [{ model: 'viduq2-pro', duration: 11 }, 'duration'], [{ model: 'vidu2.0', duration: 5 }, 'duration'],
    [{ model: 'viduq3-pro', resolution: '360p' }, 'resolution'],
  ] as const) {
    const r = await submit(body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.deepEqual([r.body.reason, r.body.message], ['FieldInvalid', `invalid field: ${field}`]);
  }
  for (const body of [{ model: 'viduq1', resolution: '1080p', duration: 5 }, { model: 'viduq3-pro', duration: 16 }, { model: 'vidu2.0', duration: 8, resolution: '720p' }]) {
    assert.equal((await submit(body)).status, 200, JSON.stringify(body));
  }
});
