// Property-based fuzz of every route in routes.yaml: hostile bodies, headers and paths never get a 5xx, an off-contract 4xx, a key or unbounded RSS.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { startStack, type Stack } from './helpers/stack.js';
import {
  routes, kinds, send, describe, assertContract, assertShapeA, assertRefusal, readsJson, maxBody, maxDepth, pathWith, validAuth, isArt, json, jsonHeaders,
  type Hostile, type Reply, type RouteDef,
} from './helpers/fuzz.js';

// A fixed seed in CI; `FUZZ_SEED=… FUZZ_RUNS=5000 npm test` for a longer, different run.
fc.configureGlobal({ seed: Number(process.env.FUZZ_SEED ?? 42), numRuns: Number(process.env.FUZZ_RUNS ?? 200) });
const runs = fc.readConfigureGlobal().numRuns ?? 200;
/** Each property spends its runs across every route, so every route gets hostile requests of every kind. */
const perRoute = Math.max(3, Math.ceil(runs / routes.length));

let stack: Stack;
let key: string;
let secrets: string[];
const adminKey = `adm-${'f'.repeat(48)}`;
/** The admin API takes the operator's key; every other route a client token. */
const keyFor = (r: RouteDef) => (r.auth === 'admin' ? adminKey : key);

before(async () => {
  stack = await startStack({ env: { SWITCHYARD_ADMIN_KEY: adminKey } });
  // The fuzz token must reach each route's deeper stages, not the group's request rate or in-flight task limit.
  const group = stack.gw.gateway.runtime.groups.get('default')!;
  Object.assign(group, { rate_limit: { requests: 1e9, window_s: 60 }, max_inflight_tasks: 1e9 });
  ({ key } = await stack.token({ quota: 1e12 }));
  secrets = [key, adminKey, 'sim-key', 'sim-sk'];
});
after(() => stack.close());
beforeEach(() => stack.gw.gateway.breakers.reset());

const healthy = async () => {
  const r = await send(stack.url, { method: 'GET', path: '/healthz', headers: {} });
  assert.equal(r.status, 200, `the gateway stopped answering /healthz: ${r.status} ${r.text}`);
};

type Extra = (route: RouteDef, h: Hostile, r: Reply) => void;

/**
 * One property per hostile kind, asserted route by route: every route runs, and the test fails at the end with the
 * shrunk counterexample of each route that broke the contract, so one gateway bug does not hide the others.
 */
function fuzz(title: string, kind: (r: RouteDef, key: string) => fc.Arbitrary<Hostile>, extra?: Extra): void {
  test(title, { timeout: 180_000 }, async () => {
    const broken: string[] = [];
    for (const route of routes) {
      await stack.gw.gateway.breakers.reset(); // a breaker one route's failures opened must not fail the next route
      await fc.assert(fc.asyncProperty(kind(route, keyFor(route)), async (h) => {
        const r = await send(stack.url, h);
        assertContract(route, h, r, secrets);
        extra?.(route, h, r);
      }), { numRuns: perRoute, includeErrorInReport: true }).catch((err: Error) => broken.push(firstLines(err.message)));
    }
    await healthy();
    if (broken.length) assert.fail(`${broken.length} route(s) broke the contract:\n${broken.join('\n')}`);
  });
}

/** The shrunk counterexample with the answer it got (the failed assertion's message), without fast-check's hints. */
const firstLines = (m: string) => {
  const got = m.split('\n').find((l) => l.startsWith('Got '));
  return got ? got.replace(/^Got (AssertionError \[ERR_ASSERTION\]: )?/, '') : m.split('\n').slice(0, 4).join(' ');
};

fuzz('arbitrary JSON values as the body of every route', kinds.anyJson, (route, h, r) => {
  // A body that is not a JSON object never reaches the upstream on a JSON route.
  const v = JSON.parse(h.body!.toString('utf8'));
  if (readsJson(route) && (v === null || typeof v !== 'object' || Array.isArray(v))) assertRefusal(route, r, describe(h, r), 'invalid_request');
});

fuzz('real field names with wrong types, odd values and huge strings', kinds.mixedFields);

fuzz('nesting beyond max_json_depth is refused with 400 invalid_request on every JSON route', kinds.deepNesting, (route, h, r) => {
  if (!readsJson(route)) return;
  assert.equal(r.status, 400, describe(h, r));
  assert.match(assertRefusal(route, r, describe(h, r), 'invalid_request'), new RegExp(`nests deeper than ${maxDepth(route)} levels`));
});

fuzz('invalid UTF-8 bytes and random bytes as the body', kinds.invalidUtf8);

fuzz('wrong content types, multipart garbage included', kinds.wrongContentType, (route, h, r) => {
  // Multipart sent to a JSON-only route is refused as a media type, before the body is read.
  if (readsJson(route) && !route.multipart && h.headers['content-type'].startsWith('multipart/form-data')) {
    assert.equal(r.status, 415, describe(h, r));
    assertRefusal(route, r, describe(h, r), 'unsupported_media_type');
  }
});

fuzz('random Authorization variants and header values', kinds.headerVariants, (route, h, r) => {
  if (route.auth === false) return;
  // A console user's routes take a session cookie, never a bearer key: without the cookie, whatever the header says, 401.
  if (route.auth === 'session') return assert.equal(r.status, 401, describe(h, r)), assertRefusal(route, r, describe(h, r), 'session_required');
  if (validAuth(keyFor(route), h.headers.authorization)) return;
  assert.equal(r.status, 401, describe(h, r));
  assertRefusal(route, r, describe(h, r), 'invalid_api_key');
});

/** Whether a route's path template (`/v1/videos/{id}`) covers a concrete path. */
const covers = (template: string, path: string) =>
  new RegExp(`^${template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}$`).test(path.split('?')[0]);

fuzz('odd characters in path parameters, odd queries and wrong methods', kinds.oddPath, (route, h, r) => {
  if (h.method === route.method || routes.some((o) => o.method === h.method && covers(o.path, h.path))) return; // another route's method
  // A byte outside printable ASCII makes the request line invalid HTTP, which Node's parser may refuse (400) before
  // any route is looked up.
  if (/[^\x21-\x7e]/.test(h.path) && r.status === 400) return assertShapeA(r, describe(h, r), 'invalid_request');
  assert.equal(r.status, 405, describe(h, r));
  assertShapeA(r, describe(h, r), 'method_not_allowed'); // no route matched: no family to answer in
});

test("a taskId that is not one of the caller's tasks never reaches the vendor (image-art follow-ups)", { timeout: 60_000 }, async () => {
  const notOwned = fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.constantFrom(true, false), fc.string({ minLength: 1, maxLength: 30 }),
    fc.array(fc.string(), { minLength: 1, maxLength: 3 }), fc.dictionary(fc.string(), fc.string(), { minKeys: 1, maxKeys: 2 }));
  const broken: string[] = [];
  for (const route of routes.filter((r) => isArt(r) && r.task?.action === 'submit')) {
    await fc.assert(fc.asyncProperty(notOwned, async (taskId) => {
      stack.sim.control.clear();
      const h: Hostile = { method: 'POST', path: route.path, headers: jsonHeaders(key), body: json({ prompt: 'a fox', taskId, action: 'UPSCALE', index: 1 }) };
      const r = await send(stack.url, h);
      assertContract(route, h, r, secrets);
      const forwarded = stack.sim.control.requests().filter((q) => q.path.startsWith('/mj/') && (q.body as { taskId?: unknown })?.taskId !== undefined);
      assert.deepEqual(forwarded.map((q) => (q.body as { taskId?: unknown }).taskId), [], `an unowned taskId reached the vendor: ${describe(h, r)}`);
      assert.equal(r.status === 404 || r.status === 400, true, describe(h, r));
      assert.equal(JSON.parse(r.text).code, 4, `refused in the family's own shape: ${describe(h, r)}`);
    }), { numRuns: perRoute, includeErrorInReport: true }).catch((err: Error) => broken.push(firstLines(err.message)));
  }
  if (broken.length) assert.fail(`${broken.length} route(s) let a foreign taskId through:\n${broken.join('\n')}`);
});

test('hostile batch input files: every upload gets a contract answer, and a refused one never reaches the vendor', { timeout: 120_000 }, async () => {
  const route = routes.find((r) => r.id === 'files_create')!;
  const good = { custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } };
  // A real line with one field made wrong, a raw JSON value, or bytes: as lines of a file, between good ones.
  const line = fc.oneof(
    fc.constant(JSON.stringify(good)),
    fc.tuple(fc.constantFrom('custom_id', 'method', 'url', 'body', 'body.model', 'body.messages', 'body.max_tokens', 'body.n', 'body.service_tier'), fc.jsonValue({ maxDepth: 2 }))
      .map(([at, v]) => {
        const l = structuredClone(good) as Record<string, any>;
        const [k, sub] = at.split('.');
        if (sub) l[k][sub] = v; else l[k] = v;
        return JSON.stringify(l);
      }),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b).toString('latin1').replace(/\n/g, ' ')),
  );
  await fc.assert(fc.asyncProperty(fc.array(line, { minLength: 0, maxLength: 6 }), fc.boolean(), async (lines, trailing) => {
    stack.sim.control.clear();
    const text = lines.map((l, i) => (l === JSON.stringify(good) ? l.replace('"a"', `"a${i}"`) : l)).join('\n') + (trailing ? '\n' : '');
    const boundary = 'fuzzbatch';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="in.jsonl"\r\ncontent-type: application/jsonl\r\n\r\n`),
      Buffer.from(text, 'latin1'), Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const h: Hostile = { method: 'POST', path: '/v1/files', headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` }, body };
    const r = await send(stack.url, h);
    assertContract(route, h, r, secrets);
    const stored = stack.sim.control.requests().filter((q) => q.method === 'POST' && q.path === '/v1/files').length;
    if (r.status === 200) assert.equal(stored, 1, describe(h, r));
    else {
      assert.equal(r.status, 400, describe(h, r));
      assert.equal(stored, 0, `a refused file reached the vendor: ${describe(h, r)}`);
    }
  }), { numRuns: Math.max(50, perRoute * 5) });
});

test("bodies the gateway cannot map never open a channel's circuit breaker for everyone else", async () => {
  // Transform-breaking bodies found by the properties above; they are the client's fault, not the channel's.
  const cases: [string, unknown][] = [['/art/submit/imagine', { mode: 'RELAX' }], ['/v1/video/generations', { model: 'kling-v2-master', prompt: 'x', size: 'axb' }]];
  const breakers = stack.gw.gateway.breakers;
  await breakers.reset();
  for (const [path, body] of cases) for (let i = 0; i < 6; i++) await send(stack.url, { method: 'POST', path, headers: jsonHeaders(key), body: json(body) });
  const other = await stack.token();
  const r = await send(stack.url, { method: 'POST', path: '/art/submit/imagine', headers: jsonHeaders(other.key), body: json({ prompt: 'a lighthouse' }) });
  assert.deepEqual({ open: breakers.openChannels(), other: `${r.status} ${r.text.slice(0, 160)}` },
    { open: [], other: `200 ${r.text.slice(0, 160)}` }, 'a client opened the breaker of a healthy channel and another client is refused');
  assert.equal(JSON.parse(r.text).code, 1);
});

test('a body one byte over max_body_bytes gets 413 request_too_large on every POST route (declared and chunked)', { timeout: 120_000 }, async () => {
  const posts = routes.filter((r) => r.method === 'POST');
  const big = Buffer.alloc(Math.max(...posts.map(maxBody)) + 1, 0x20);
  for (const route of posts) {
    const h: Hostile = { method: 'POST', path: pathWith(route), headers: { authorization: `Bearer ${keyFor(route)}`, 'content-type': 'application/json' }, body: big.subarray(0, maxBody(route) + 1) };
    const r = await send(stack.url, h);
    assertContract(route, h, r, secrets);
    // Without a session a console user's route refuses before it reads a byte of the body.
    const [status, code] = route.auth === 'session' ? [401, 'session_required'] as const : [413, 'request_too_large'] as const;
    assert.equal(r.status, status, describe(h, r));
    assertRefusal(route, r, describe(h, r), code);
  }
  // Without Content-Length the bound is enforced while reading.
  const chat = posts.find((r) => r.id === 'chat_completions')!;
  const r = await chunked(pathWith(chat), big.subarray(0, maxBody(chat) + 1));
  assert.equal(r.status, 413, r.text);
  assertShapeA(r, `chunked: ${r.text}`, 'request_too_large');
  await healthy();
});

test('nesting exactly at max_json_depth is not refused for depth', async () => {
  for (const route of routes.filter(readsJson)) {
    const d = maxDepth(route);
    const h: Hostile = { method: route.method, path: pathWith(route), headers: { authorization: `Bearer ${keyFor(route)}`, 'content-type': 'application/json' },
      body: Buffer.from(`{"model":"gpt-4o-mini","x":${'['.repeat(d - 1)}1${']'.repeat(d - 1)}}`) };
    const r = await send(stack.url, h);
    assertContract(route, h, r, secrets);
    assert.doesNotMatch(r.text, /nests deeper/, describe(h, r));
  }
});

test('RSS does not grow unboundedly over a few thousand hostile requests', { timeout: 180_000 }, async () => {
  const count = Math.max(3000, runs);
  const all = fc.constantFrom(...routes).chain((route) => fc.oneof(...Object.values(kinds).map((k) => k(route, keyFor(route)))));
  const sample = fc.sample(all, { numRuns: count, seed: Number(process.env.FUZZ_SEED ?? 42) + 1 });
  // A full collection before each reading, so readings compare memory kept, not how long ago V8 last collected
  // (node runs without --expose-gc: the flag is set here, and the function taken from a fresh context).
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const rss = () => { gc(); return process.memoryUsage().rss; };
  const pump = async (items: typeof sample) => {
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < items.length) {
        const h = items[next++];
        const r = await send(stack.url, h); // a hang or a dropped connection fails here
        assert.ok(r.status >= 200 && r.status < 600, describe(h, r));
      }
    }));
  };
  await pump(sample.slice(0, 300)); // warm-up: caches, compiled schemas, sockets
  const before = rss();
  // Even after a collection RSS swings by up to ~100 MB with what the last requests allocated outside the heap (memory
  // the allocator freed but keeps): read after each 300 requests, the lowest of the last three readings is what stayed.
  const readings: number[] = [];
  for (let i = 0; i < sample.length; i += 300) {
    await pump(sample.slice(i, i + 300));
    readings.push(rss());
  }
  const grown = Math.min(...readings.slice(-3)) - before;
  assert.ok(grown < 150 * 1024 * 1024, `RSS grew by ${Math.round(grown / 1048576)} MB over ${count} requests (after every 300: ${readings.map((r) => Math.round(r / 1048576)).join(', ')} MB)`);
  await healthy();
});

test('the gateway is still up and ready after the fuzz', async () => {
  await healthy();
  assert.equal((await send(stack.url, { method: 'GET', path: '/readyz', headers: {} })).status, 200);
});

/** A POST with chunked transfer encoding (no Content-Length). */
async function chunked(path: string, body: Buffer): Promise<Reply> {
  const res = await fetch(`${stack.url}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, duplex: 'half',
    body: new ReadableStream({ start(c) { for (let i = 0; i < body.length; i += 65536) c.enqueue(body.subarray(i, i + 65536)); c.close(); } }),
    signal: AbortSignal.timeout(15_000),
  } as RequestInit);
  return { status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() };
}
