// Routes sharing a method and path (routes.yaml, e.g. generateContent for Gemini chat and image models): the model
// the path names picks one route before anything is refused, so every refusal of a request, authentication's
// included, comes in that one route's envelope: its `error_answer` (or its dialect's `error`), else Shape A.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startStack, type Stack } from './helpers/stack.js';
import { post, assertShapeA, logLineOf, type RawReply } from './helpers/api.js';
import { projectRoot } from '../src/config/load-config.js';
import { catalog, type ErrorCode } from '../src/http/errors.js';
import type { CompiledRoute } from '../src/config/runtime.js';

type RouteDef = { id: string; method: string; path: string };
const declared: RouteDef[] = parse(readFileSync(join(projectRoot, 'routes.yaml'), 'utf8')).routes;

/** Every set of routes.yaml routes on one method and path, in file order (the order the model picks in). */
const sharedSets: RouteDef[][] = [...declared.reduce((byPath, r) => byPath.set(`${r.method} ${r.path}`, [...(byPath.get(`${r.method} ${r.path}`) ?? []), r]),
  new Map<string, RouteDef[]>()).values()].filter((s) => s.length > 1);

/**
 * A body each shared route's schema accepts, so a refusal after the body is read is the one meant (quota, a model the
 * token may not use). A new shared route whose schema is not here fails the test with its name.
 */
const validBodies: Record<string, unknown> = {
  'gemini-generate-content.request.json': { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  'generate-content.request.json': { contents: [{ role: 'user', parts: [{ text: 'a cat' }] }] },
};

const badKey = 'sk-not-a-key-of-this-gateway';
/** Where a refusal's message sits in the expected body: the answer has the message with its request id there. */
const message = '\u0000message';

let stack: Stack;
before(async () => {
  stack = await startStack();
  // A group whose second request in a minute is refused; it has no channels, which the pick must not care about.
  stack.gw.gateway.runtime.groups.set('one_a_minute', { rate_limit: { requests: 1, window_s: 60 } });
});
after(() => stack.close());

const compiled = (id: string): CompiledRoute => stack.gw.gateway.runtime.routes.find((r) => r.id === id)!;

/** The first priced model the default group reaches on the route's operation: one the path's model picks it by. */
function modelFor(route: CompiledRoute): string {
  const rt = stack.gw.gateway.runtime;
  const m = [...rt.models.keys()].find((name) => rt.candidates('default', name, route.operation).length);
  assert.ok(m, `no model of the default group is served on ${route.operation} (route ${route.id})`);
  return m;
}

/** The route's path naming `model` in each parameter; its model_expr must read that model back. */
async function pathFor(route: CompiledRoute, model: string): Promise<string> {
  const params = Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map(([, n]) => [n, model]));
  assert.equal(await route.modelExpr?.run({}, { params, query: {} }), model, `${route.id}: its model_expr reads the model from the path`);
  return route.path.replace(/\{(\w+)\}/g, encodeURIComponent(model));
}

/** What the route answers for a refusal with `code`: its own envelope where it has one, else Shape A. */
async function envelopeOf(route: CompiledRoute, code: ErrorCode): Promise<unknown> {
  const { status, type } = catalog[code];
  const own = await route.errorAnswer?.run({}, { status, code, message, type }).catch(() => undefined);
  return own ?? { error: { message, type: route.errorType ?? type, param: '', code } };
}

/** `got` is `want` exactly, but for the message, which is the gateway's text ending with the request id. */
function assertEnvelope(got: unknown, want: unknown, requestId: string, where: string): void {
  if (want === message) {
    assert.ok(typeof got === 'string' && got.endsWith(`(request id: ${requestId})`), `${where}: the message, with its request id (${String(got)})`);
    return;
  }
  if (want && typeof want === 'object') {
    assert.ok(got && typeof got === 'object', `${where}: ${JSON.stringify(got)} is not ${JSON.stringify(want)}`);
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), where);
    for (const [k, v] of Object.entries(want)) assertEnvelope((got as Record<string, unknown>)[k], v, requestId, `${where}.${k}`);
    return;
  }
  assert.deepEqual(got, want, where);
}

/** The structure of a body: its keys, nested, and the type of each leaf. */
const structure = (v: unknown): unknown => (v && typeof v === 'object'
  ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, structure(x)]))
  : typeof v);

interface Refusal { kind: string; code: ErrorCode; send(url: string, body: unknown, route: CompiledRoute): Promise<RawReply> }

/** Each way the gateway refuses a request on these routes, with a fresh token where the refusal needs its own. */
const refusals: Refusal[] = [
  { kind: 'no key', code: 'invalid_api_key', send: (url, body) => post(url, body) },
  { kind: 'a bad key', code: 'invalid_api_key', send: (url, body) => post(url, body, badKey) },
  // The other ways the route takes a key (its `key_header`, `key_query`), where it has them.
  { kind: 'a bad key in the route\'s key header', code: 'invalid_api_key', send: (url, body, r) => post(url, body, r.keyHeader ? undefined : badKey, r.keyHeader ? { [r.keyHeader]: badKey } : {}) },
  { kind: 'a bad key in the route\'s key query', code: 'invalid_api_key', send: (url, body, r) => (r.keyQuery ? post(`${url}?${r.keyQuery}=${badKey}`, body) : post(url, body, badKey)) },
  {
    kind: 'a revoked token', code: 'invalid_api_key', async send(url, body) {
      const t = await stack.token();
      await stack.gw.gateway.tokens.revoke(t.id);
      return post(url, body, t.key);
    },
  },
  { kind: 'no quota left', code: 'insufficient_user_quota', send: async (url, body) => post(url, body, (await stack.token({ quota: 0 })).key) },
  {
    kind: 'over the rate limit', code: 'too_many_requests', async send(url, body) {
      const { key } = await stack.token({ group: 'one_a_minute' });
      await post(url, body, key);
      return post(url, body, key);
    },
  },
  { kind: 'a model the token may not use', code: 'model_not_allowed', send: async (url, body) => post(url, body, (await stack.token({ models: ['some-other-model'] })).key) },
  { kind: 'a body that is not an object', code: 'invalid_request', send: async (url) => post(url, '[]', (await stack.token()).key) },
  { kind: 'a body that is not JSON', code: 'invalid_request', send: async (url) => post(url, '{"contents": [', (await stack.token()).key) },
];

test('routes.yaml has routes sharing a path, and a body for each of their schemas', () => {
  assert.ok(sharedSets.length > 0, 'no two routes share a method and path: nothing to check');
  for (const r of sharedSets.flat()) {
    const route = compiled(r.id);
    assert.ok(route.bodySchema && validBodies[route.bodySchema], `route ${r.id}: add a valid body for ${route.bodySchema} to validBodies`);
    assert.ok(route.validate!(validBodies[route.bodySchema!]), `route ${r.id}: the body for ${route.bodySchema} is valid`);
  }
});

for (const set of sharedSets) {
  test(`${set[0].method} ${set[0].path}: each refusal in the envelope of the route the path's model picks (${set.map((r) => r.id).join(', ')})`, async () => {
    for (const def of set) {
      const route = compiled(def.id);
      const model = modelFor(route);
      const url = `${stack.url}${await pathFor(route, model)}`;
      const structures = new Set<string>();
      for (const refusal of refusals) {
        const where = `${route.id} (${model}), ${refusal.kind}`;
        const r = await refusal.send(url, validBodies[route.bodySchema!], route);
        const id = r.headers.get('x-request-id')!;
        assert.equal(r.status, catalog[refusal.code].status, `${where}: ${r.text}`);
        assert.equal(r.headers.get('content-type'), 'application/json', where);
        assertEnvelope(r.json, await envelopeOf(route, refusal.code), id, where);
        assert.equal((await logLineOf(stack, id)).route, route.id, `${where}: the request was the route's`);
        structures.add(JSON.stringify(structure(r.json)));
      }
      assert.equal(structures.size, 1, `${route.id}: one envelope for every refusal, got ${[...structures].join(' | ')}`);
    }
  });
}

test('an image model on generateContent: a bad key is refused in Shape A, as its quota is, not in Google\'s envelope', async () => {
  const url = `${stack.url}/v1beta/models/gemini-3-pro-image-preview:generateContent`;
  const body = { contents: [{ parts: [{ text: 'a lighthouse' }] }] };
  const bad = await post(url, body, badKey);
  assertShapeA(bad, 401, 'invalid_api_key', 'invalid_request_error', 'Invalid API key');
  const none = await post(url, body);
  assertShapeA(none, 401, 'invalid_api_key', 'invalid_request_error', 'Missing API key');
  const broke = await post(url, body, (await stack.token({ quota: 0 })).key);
  assertShapeA(broke, 403, 'insufficient_user_quota', 'platform_api_error');
  for (const r of [bad, none, broke]) assert.equal((await logLineOf(stack, r.headers.get('x-request-id')!)).route, 'generate_content');
  // A chat model on the same path keeps Google's envelope, for its bad key as for anything else.
  const chat = await post(`${stack.url}/v1beta/models/gemini-2.5-flash:generateContent`, body, badKey);
  assert.equal(chat.status, 401);
  assert.deepEqual(chat.json.error.status, 'UNAUTHENTICATED');
  assert.equal(chat.json.error.code, 401);
});

test('the pick does not depend on the caller: an image model is the image route\'s for a group that cannot reach it', async () => {
  const { key } = await stack.token({ group: 'one_a_minute' });
  const r = await post(`${stack.url}/v1beta/models/gemini-2.5-flash-image:generateContent`, { contents: [{ parts: [{ text: 'x' }] }] }, key);
  assertShapeA(r, 404, 'model_not_found', 'invalid_request_error');
  assert.equal((await logLineOf(stack, r.headers.get('x-request-id')!)).route, 'generate_content');
});
