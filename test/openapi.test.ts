// GET /openapi.json end to end: a valid OpenAPI 3.1 document (checked by an OpenAPI validator, its schemas compiled
// by ajv in strict mode) covering every route of routes.yaml, with the right bodies and security, whose declared
// answers and errors are what real requests get.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startStack, type Stack } from './helpers/stack.js';
import { fastTasks, call, waitFinal } from './helpers/video.js';
import { sseData } from './helpers/api.js';
import { DocumentSchemas, check } from './helpers/openapi.js';
import { loadRuntime, projectRoot } from '../src/config/load-config.js';
import { openapiDocument } from '../src/openapi/serve-openapi.js';
import { policyOf } from '../src/policies/index.js';

interface RouteDef { id: string; method: string; path: string; body_schema?: string; multipart?: boolean }
const routes: RouteDef[] = parse(readFileSync(join(projectRoot, 'routes.yaml'), 'utf8')).routes;

const adminKey = `adm-${'0123456789'.repeat(3)}abcdef`; // 40 characters
let stack: Stack;
let doc: Record<string, any>;
let schemas: DocumentSchemas;
let key: string;

before(async () => {
  assert.equal(adminKey.length, 40);
  stack = await startStack({ env: { SWITCHYARD_ADMIN_KEY: adminKey } });
  fastTasks(stack);
  ({ key } = await stack.token({ quota: 1e9 }));
  const res = await fetch(`${stack.url}/openapi.json`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json');
  doc = await res.json();
  schemas = new DocumentSchemas(doc);
});
after(() => stack.close());

const operations = (d: Record<string, any>) => Object.values(d.paths as Record<string, object>).flatMap((p) => Object.keys(p));

test('the document is valid OpenAPI 3.1 (validator verdict) and its schemas compile as JSON Schema 2020-12', async () => {
  const verdict = await new Validator().validate(doc);
  const counts = { paths: Object.keys(doc.paths).length, operations: operations(doc).length, schemas: Object.keys(doc.components.schemas).length };
  console.log(`openapi validator verdict: ${JSON.stringify({ valid: verdict.valid, errors: verdict.errors ?? null })}; ${JSON.stringify(counts)}`);
  assert.equal(verdict.valid, true, JSON.stringify(verdict.errors)?.slice(0, 2000));
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.title, 'Switchyard');
  assert.equal(doc.info.version, JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')).version);
  assert.deepEqual(doc.servers, [{ url: '/' }]);
  assert.equal(schemas.compileAll(), counts.schemas);
  // Draft-07 leftovers are gone; the custom keyword survives as an extension.
  const text = JSON.stringify(doc.components.schemas);
  assert.doesNotMatch(text, /"\$schema"|"definitions"|"imageLimits"|\.json#/);
  assert.match(text, /"x-imageLimits":\{"formats"/);
  const tags = doc.tags.map((t: { name: string }) => t.name);
  assert.deepEqual(tags, ['chat', 'responses', 'messages', 'embeddings', 'rerank', 'moderations', 'models', 'images', 'files', 'batches', 'video', 'image-art', 'music', 'billing', 'admin', 'console users', 'operations', 'vendor formats']);
});

test('every route of routes.yaml is an operation named by its id, and every body schema is its request body', () => {
  // Routes sharing a method and path are one operation: the first, with the others as its alternates.
  const first = (r: (typeof routes)[number]) => routes.findIndex((x) => x.method === r.method && x.path === r.path) === routes.indexOf(r);
  assert.equal(operations(doc).length, routes.filter(first).length);
  for (const r of routes) {
    const op = doc.paths[r.path]?.[r.method.toLowerCase()];
    assert.ok(op, `${r.method} ${r.path} (${r.id}) is missing`);
    if (!first(r)) {
      assert.ok(op['x-switchyard-alternates'].some((a: any) => a.operationId === r.id), `${r.id} is an alternate of ${op.operationId}`);
      continue;
    }
    assert.equal(op.operationId, r.id);
    assert.equal(op.tags.length, 1);
    for (const name of r.path.match(/\{(\w+)\}/g) ?? []) {
      assert.ok(op.parameters.some((p: any) => p.in === 'path' && p.required && `{${p.name}}` === name), `${r.id}: path parameter ${name}`);
    }
    if (!r.body_schema) continue;
    const ref = `#/components/schemas/${r.body_schema.replace(/\.json$/, '')}`;
    const content = op.requestBody.content;
    assert.equal(content['application/json'].schema.$ref, ref, r.id);
    assert.ok(doc.components.schemas[ref.split('/').at(-1)!], `${ref} exists`);
    if (r.multipart) assert.equal(content['multipart/form-data'].schema.$ref, ref, r.id);
  }
  // A schema's cross-file references point at the converted components.
  const alpha = doc.components.schemas['alpha-reference2video.request'];
  assert.deepEqual(alpha.allOf, [{ $ref: '#/components/schemas/alpha-common.Fields' }]);
});

test('security: a client route, a Messages route (Bearer or x-api-key), an admin route, /healthz', () => {
  const sec = (path: string, method = 'post') => doc.paths[path][method].security;
  assert.deepEqual(sec('/v1/chat/completions'), [{ clientToken: [] }]);
  assert.deepEqual(sec('/v1/messages'), [{ clientToken: [] }, { 'keyHeader.x-api-key': [] }]);
  assert.deepEqual(sec('/admin/usage', 'get'), [{ adminKey: [] }]);
  assert.deepEqual(sec('/healthz', 'get'), []);
  assert.deepEqual(sec('/openapi.json', 'get'), []);
  const schemes = doc.components.securitySchemes;
  assert.deepEqual(schemes.clientToken, { ...schemes.clientToken, type: 'http', scheme: 'bearer' });
  assert.deepEqual(schemes.adminKey, { ...schemes.adminKey, type: 'http', scheme: 'bearer' });
  assert.deepEqual(schemes['keyHeader.x-api-key'], { ...schemes['keyHeader.x-api-key'], type: 'apiKey', in: 'header', name: 'x-api-key' });
});

test('errors: Shape A, Shape B on saturated video submits, the families\' own shapes, and the statuses of each stage', () => {
  const errorOf = (path: string, method: string, status: number) => doc.paths[path][method].responses[status]?.content['application/json'].schema;
  const a = { $ref: '#/components/schemas/error-a.response' };
  assert.deepEqual(errorOf('/v1/chat/completions', 'post', 401), a);
  assert.deepEqual(errorOf('/v1/video/generations', 'post', 429), { $ref: '#/components/schemas/error-b.response' });
  assert.deepEqual(errorOf('/v1/messages', 'post', 400), { anyOf: [{ $ref: '#/components/schemas/anthropic_messages.error' }, a] });
  assert.deepEqual(errorOf('/art/submit/imagine', 'post', 404), { anyOf: [{ $ref: '#/components/schemas/image-art.error' }, a] });
  assert.deepEqual(errorOf('/music/fetch/{id}', 'get', 404), { anyOf: [{ $ref: '#/components/schemas/music.error' }, a] });
  const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
  assert.deepEqual(statuses('/v1/chat/completions', 'post'), ['200', '400', '401', '403', '404', '408', '413', '415', '429', '500', '502', '503', '504', 'default']);
  assert.deepEqual(statuses('/v1/videos', 'post'), ['200', '400', '401', '403', '404', '408', '413', '429', '500', '502', '503', '504', 'default']);
  assert.deepEqual(statuses('/v1/videos/{id}', 'get'), ['200', '401', '404', '408', '429', '500', '503']);
  assert.deepEqual(statuses('/admin/tokens', 'post'), ['201', '400', '401', '403', '404', '408', '413', '415', '500', '503']);
  assert.deepEqual(statuses('/admin/teams/{id}/members', 'post'), ['200', '400', '401', '403', '404', '408', '409', '413', '415', '500', '503']);
  assert.match(doc.paths['/admin/teams/{id}/members'].post.responses['404'].description, /`team_not_found`, `user_not_found`/);
  assert.deepEqual(Object.keys(doc.paths['/admin/users/{id}/usage'].get.responses['200'].content), ['application/json', 'text/csv']);
  assert.match(doc.paths['/admin/teams/{id}/usage'].get.responses['200'].description, /members now/);
  assert.deepEqual(statuses('/healthz', 'get'), ['200', '408', '500', '503']);
  assert.match(doc.paths['/v1/chat/completions'].post.responses['403'].description, /`model_not_allowed`, `insufficient_user_quota`/);
});

test('real answers validate against the schemas the document declares: chat, errors, video tasks, models', async () => {
  const chat = await call(stack, key, 'POST', '/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(chat.status, 200, chat.text);
  assert.equal(check(schemas.declared('/v1/chat/completions', 'post', 200), chat.json), undefined);
  const stream = await call(stack, key, 'POST', '/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi [sim chunks=3]' }] });
  const events = sseData(stream.text).filter((d) => d !== '[DONE]').map((d) => JSON.parse(d));
  assert.ok(events.length >= 3, stream.text);
  const chunk = schemas.declared('/v1/chat/completions', 'post', 200, 'text/event-stream', true);
  for (const e of events) assert.equal(check(chunk, e), undefined, JSON.stringify(e));

  const shapeA = await call(stack, key, 'POST', '/v1/chat/completions', { messages: [] });
  assert.equal(shapeA.status, 400, shapeA.text);
  assert.equal(check(schemas.declared('/v1/chat/completions', 'post', 400), shapeA.json), undefined);
  const noModel = await call(stack, key, 'GET', '/v1/models/no-such-model');
  assert.equal(check(schemas.declared('/v1/models/{id}', 'get', 404), noModel.json), undefined);

  const models = await call(stack, key, 'GET', '/v1/models');
  assert.equal(check(schemas.declared('/v1/models', 'get', 200), models.json), undefined);
  assert.ok(models.json.data.length > 0);

  const submit = await call(stack, key, 'POST', '/v1/video/generations', { model: 'veo3', prompt: 'a fox [sim polls=1]' });
  assert.equal(submit.status, 200, submit.text);
  assert.equal(check(schemas.declared('/v1/video/generations', 'post', 200), submit.json), undefined);
  const done = await waitFinal(stack, key, `/v1/videos/${submit.json.id}`);
  assert.equal(done.status, 'completed');
  assert.equal(check(schemas.declared('/v1/videos/{id}', 'get', 200), done), undefined);
  const page = await call(stack, key, 'GET', '/v1/videos?limit=5');
  assert.equal(check(schemas.declared('/v1/videos', 'get', 200), page.json), undefined);
  // The schema is not vacuous: an answer with a field the gateway never sends is refused.
  assert.notEqual(check(schemas.declared('/v1/videos/{id}', 'get', 200), { ...done, extra_field: 1 }), undefined);

  // Files: the upload's, one file's and a page's answers; a file of another user is the declared 404.
  const form = new FormData();
  form.set('purpose', 'batch');
  form.set('file', new Blob([`${JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } })}\n`]), 'in.jsonl');
  const up = await fetch(`${stack.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const file = await up.json();
  assert.equal(up.status, 200, JSON.stringify(file));
  assert.equal(check(schemas.declared('/v1/files', 'post', 200), file), undefined);
  assert.equal(check(schemas.declared('/v1/files/{id}', 'get', 200), (await call(stack, key, 'GET', `/v1/files/${file.id}`)).json), undefined);
  assert.equal(check(schemas.declared('/v1/files', 'get', 200), (await call(stack, key, 'GET', '/v1/files?limit=2')).json), undefined);
  const { key: other } = await stack.token();
  const foreign = await call(stack, other, 'GET', `/v1/files/${file.id}`);
  assert.equal(foreign.status, 404);
  assert.equal(check(schemas.declared('/v1/files/{id}', 'get', 404), foreign.json), undefined);
});

test('real family errors validate against their declared shapes, and would not pass as Shape A', async () => {
  const shapeA = schemas.component('error-a.response');
  const messages = await call(stack, '', 'POST', '/v1/messages', { max_tokens: 16, messages: [] }, { authorization: '', 'x-api-key': key });
  assert.equal(messages.status, 400, messages.text);
  assert.equal(messages.json.type, 'error');
  assert.equal(check(schemas.declared('/v1/messages', 'post', 400), messages.json), undefined);
  assert.notEqual(check(shapeA, messages.json), undefined);
  const unauthorized = await call(stack, 'wrong', 'POST', '/v1/messages', { model: 'gpt-4o-mini', max_tokens: 16, messages: [] });
  assert.equal(unauthorized.status, 401);
  assert.equal(check(schemas.declared('/v1/messages', 'post', 401), unauthorized.json), undefined);

  const art = await call(stack, key, 'POST', '/art/submit/imagine', { prompt: 'a fox', taskId: 'task_notmine', action: 'UPSCALE', index: 1 });
  assert.equal(art.status, 404, art.text);
  assert.equal(check(schemas.declared('/art/submit/imagine', 'post', 404), art.json), undefined);
  assert.notEqual(check(shapeA, art.json), undefined);

  const vip = stack.gw.gateway.runtime.groups.get('vip')!;
  const before = vip.max_inflight_tasks;
  vip.max_inflight_tasks = 1;
  try {
    const { key: vipKey } = await stack.token({ group: 'vip', quota: 1e6 });
    assert.equal((await call(stack, vipKey, 'POST', '/v1/video/generations', { model: 'veo3', prompt: 'hold [sim polls=1000]' })).status, 200);
    const saturated = await call(stack, vipKey, 'POST', '/v1/video/generations', { model: 'veo3', prompt: 'over' });
    assert.equal(saturated.status, 429, saturated.text);
    assert.equal(check(schemas.declared('/v1/video/generations', 'post', 429), saturated.json), undefined);
    assert.notEqual(check(shapeA, saturated.json), undefined);
  } finally {
    vip.max_inflight_tasks = before;
  }
});

test('the document is built once per config, and a new config (a reload) gets its own', async () => {
  const g = stack.gw.gateway;
  const first = g.runtime;
  assert.equal(openapiDocument(first, policyOf), openapiDocument(first, policyOf), 'one build per config');
  const [a, b] = await Promise.all([fetch(`${stack.url}/openapi.json`), fetch(`${stack.url}/openapi.json`)]);
  assert.equal(await a.text(), await b.text());
  // A config loaded without the admin key, swapped in as a reload does: the next answer describes it.
  const next = loadRuntime(undefined, { ...process.env, SWITCHYARD_SIM_URL: stack.sim.url, SWITCHYARD_ADMIN_KEY: '' }).runtime;
  g.swap(next);
  try {
    assert.notEqual(openapiDocument(next, policyOf), openapiDocument(first, policyOf));
    const now = await (await fetch(`${stack.url}/openapi.json`)).json();
    assert.deepEqual(Object.keys(now.paths).filter((p) => p.startsWith('/admin')), []);
    assert.equal(now.info['x-config-hash'], next.hash);
  } finally {
    g.swap(first);
  }
  assert.ok((await (await fetch(`${stack.url}/openapi.json`)).json()).paths['/admin/usage']);
});
