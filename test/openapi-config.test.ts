// The OpenAPI document follows the config: no admin API without the admin key, an operator's own request schemas
// converted like the shipped ones, and the query parameters the policies really read (their code and their answers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startStack, fixture } from './helpers/stack.js';
import { call } from './helpers/video.js';
import { DocumentSchemas } from './helpers/openapi.js';
import { loadRuntime, projectRoot } from '../src/config/load-config.js';
import { buildDocument } from '../src/openapi/document.js';
import { policyOf } from '../src/policies/index.js';
import { queryParameters } from '../src/openapi/parameters.js';

test('without SWITCHYARD_ADMIN_KEY the document has no admin routes (they are not compiled) and no admin key scheme', async () => {
  const stack = await startStack({ env: { SWITCHYARD_ADMIN_KEY: '' } });
  try {
    const doc = await (await fetch(`${stack.url}/openapi.json`)).json();
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/admin')), []);
    assert.equal(doc.components.securitySchemes.adminKey, undefined);
    assert.equal(doc.tags.some((t: { name: string }) => t.name === 'admin'), false);
    assert.ok(doc.paths['/v1/dashboard/billing/usage'].get, 'billing is a client route and stays');
    assert.equal((await new Validator().validate(doc)).valid, true);
  } finally {
    await stack.close();
  }
});

test("an operator's own request schema (with definitions and a $ref into a shipped schema) becomes a component", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-openapi-'));
  copyFileSync(join(fixture('gateway'), 'channels.yaml'), join(dir, 'channels.yaml'));
  const routes = readFileSync(join(fixture('gateway'), 'routes.yaml'), 'utf8').replace('body_schema: chat-completions.request.json', 'body_schema: my-chat.request.json');
  writeFileSync(join(dir, 'routes.yaml'), routes);
  mkdirSync(join(dir, 'schemas', 'api'), { recursive: true });
  writeFileSync(join(dir, 'schemas', 'api', 'my-chat.request.json'), JSON.stringify({
    $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', required: ['model', 'messages', 'user'],
    properties: { model: { type: 'string' }, user: { $ref: '#/definitions/User' }, messages: { type: 'array', items: { $ref: 'chat-completions.request.json#/definitions/ChatMessage' } } },
    definitions: { User: { type: 'string', minLength: 1, tsType: 'string' } },
  }));
  const doc = await buildDocument(loadRuntime(dir, { SWITCHYARD_SIM_URL: 'http://127.0.0.1:9' }).runtime, policyOf);
  assert.equal((await new Validator().validate(doc)).valid, true);
  const op = doc.paths as Record<string, any>;
  assert.equal(op['/v1/chat/completions'].post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/my-chat.request');
  const own = (doc.components as any).schemas;
  assert.deepEqual(own['my-chat.request'].properties.user, { $ref: '#/components/schemas/my-chat.request.User' });
  assert.deepEqual(own['my-chat.request'].properties.messages.items, { $ref: '#/components/schemas/chat-completions.request.ChatMessage' });
  assert.deepEqual(own['my-chat.request.User'], { type: 'string', minLength: 1, 'x-tsType': 'string' });
  const compiled = new DocumentSchemas(doc).component('my-chat.request');
  assert.equal(compiled({ model: 'm', messages: [{ role: 'user', content: 'hi' }], user: 'u' }), true);
  assert.equal(compiled({ model: 'm', messages: [{ role: 'user', content: 'hi' }], user: '' }), false);
});

test('every query parameter a policy reads (`q.<name>` in its file) is documented for its route', () => {
  for (const [route, { source, parameters }] of Object.entries(queryParameters)) {
    const read = new Set([...readFileSync(join(projectRoot, source), 'utf8').matchAll(/\bq\.([a-z_]+)\b/g)].map(([, n]) => n));
    assert.ok(read.size > 0, `${source} reads no q.<name>: the table points at the wrong file`);
    const documented = new Set(parameters.map((p) => p.name));
    assert.deepEqual([...read].filter((n) => !documented.has(n)), [], `${route}: read in ${source} but not documented`);
  }
});

test('a documented page size maximum is the one each listing enforces', async () => {
  const adminKey = 'k'.repeat(40);
  const stack = await startStack({ env: { SWITCHYARD_ADMIN_KEY: adminKey } });
  try {
    const { key } = await stack.token();
    const doc = await (await fetch(`${stack.url}/openapi.json`)).json();
    for (const [path, bearer] of [['/v1/videos', key], ['/admin/tokens', adminKey], ['/admin/tasks', adminKey]]) {
      const limit = doc.paths[path].get.parameters.find((p: { name: string }) => p.name === 'limit').schema;
      assert.equal((await call(stack, bearer, 'GET', `${path}?limit=${limit.maximum}`)).status, 200, path);
      const over = await call(stack, bearer, 'GET', `${path}?limit=${limit.maximum + 1}`);
      assert.equal(over.status, 400, `${path}: ${over.text}`);
      assert.match(over.json.error.message, /`limit`/);
      assert.equal((await call(stack, bearer, 'GET', `${path}?limit=${limit.minimum - 1}`)).status, 400, path);
    }
  } finally {
    await stack.close();
  }
});
