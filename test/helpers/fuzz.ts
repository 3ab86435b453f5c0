// Fuzz helpers: routes read from routes.yaml, hostile-request arbitraries, a raw HTTP sender and the contract's error checks.
import assert from 'node:assert/strict';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { projectRoot } from '../../src/config/load-config.js';

export interface RouteDef {
  id: string; method: string; path: string; policy: string; body_schema?: string; auth?: boolean | 'admin' | 'session'; multipart?: boolean; dialect?: string;
  task?: { action: string; saturated_shape?: 'A' | 'B'; family?: string }; limits?: { max_body_bytes?: number; max_json_depth?: number };
}
export interface Hostile { method: string; path: string; headers: Record<string, string>; body?: Buffer }
export interface Reply { status: number; headers: IncomingHttpHeaders; text: string }

const yamlAt = (file: string) => parse(readFileSync(join(projectRoot, file), 'utf8'));
const routesDoc = yamlAt('routes.yaml');
export const routes: RouteDef[] = routesDoc.routes;
export const models: string[] = Object.keys(yamlAt('channels.yaml').models);
export const maxBody = (r: RouteDef): number => r.limits?.max_body_bytes ?? routesDoc.defaults.max_body_bytes;
export const maxDepth = (r: RouteDef): number => r.limits?.max_json_depth ?? routesDoc.defaults.max_json_depth;
/** Routes whose policy parses the body as JSON: the media-type and depth rules apply to them. */
export const readsJson = (r: RouteDef) => (r.method === 'POST' && (['stream', 'json', 'count_tokens'].includes(r.policy) || ['submit', 'list'].includes(r.task?.action ?? '')))
  || (r.policy === 'admin' && Boolean(r.body_schema));
export const isArt = (r: RouteDef) => r.path.startsWith('/art/');
export const isMusic = (r: RouteDef) => r.path.startsWith('/music/');
/** Routes of Anthropic's Messages dialect answer errors in its shape: {type: "error", error: {type, message}}. */
export const isMessages = (r: RouteDef) => r.dialect === 'anthropic_messages';
/** Routes of Gemini's dialect answer errors in Google's shape: {error: {code, message, status}}. */
export const isGemini = (r: RouteDef) => r.dialect === 'gemini_generate';
// Google's status word for each refusal the fuzz expects (dialects/gemini_generate.yaml `error`).
const geminiStatus: Record<string, string> = {
  invalid_request: 'INVALID_ARGUMENT', unsupported_media_type: 'INVALID_ARGUMENT', invalid_api_key: 'UNAUTHENTICATED',
  request_too_large: 'INVALID_ARGUMENT',
};

/**
 * Google's shape where the request may reach a Gemini route: the route is one, or shares its path with one and the
 * request's path names another model than the route's own (an odd one picks the first route on the path). With its
 * own model, a route on a shared path answers every refusal in its own shape.
 */
const googleShaped = (route: RouteDef, h: Hostile, j: any) => typeof j?.error?.code === 'number' && 'status' in j.error
  && (isGemini(route) || (h.path.split('?')[0] !== pathWith(route) && routes.some((o) => isGemini(o) && o.method === route.method && o.path === route.path)));

/** Google's error shape exactly: the HTTP status as `code`, the message ending with the request id of the header. */
function assertGeminiError(r: Reply, where: string, status?: string): string {
  const j = JSON.parse(r.text);
  assert.deepEqual(Object.keys(j), ['error'], where);
  assert.deepEqual(Object.keys(j.error).sort(), ['code', 'message', 'status'], where);
  assert.equal(j.error.code, r.status, where);
  assert.ok(typeof j.error.status === 'string' && /^[A-Z_]+$/.test(j.error.status), where);
  assert.ok(typeof j.error.message === 'string' && j.error.message.endsWith(`(request id: ${r.headers['x-request-id']})`), where);
  assert.equal(r.headers['content-type'], 'application/json', where);
  if (status) assert.equal(j.error.status, status, where);
  return j.error.message;
}
// The Messages error type of each refusal the fuzz expects (routes.yaml dialects.anthropic_messages.error).
const messagesType: Record<string, string> = {
  invalid_request: 'invalid_request_error', unsupported_media_type: 'invalid_request_error', invalid_api_key: 'authentication_error',
  request_too_large: 'request_too_large',
};

/** Anthropic's error shape exactly, the message ending with the request id of the header. */
function assertMessagesError(r: Reply, where: string, type?: string): string {
  const j = JSON.parse(r.text);
  assert.deepEqual(Object.keys(j).sort(), ['error', 'type'], where);
  assert.equal(j.type, 'error', where);
  assert.deepEqual(Object.keys(j.error).sort(), ['message', 'type'], where);
  assert.ok(typeof j.error.type === 'string' && /^[a-z_]+$/.test(j.error.type), where);
  assert.ok(typeof j.error.message === 'string' && j.error.message.endsWith(`(request id: ${r.headers['x-request-id']})`), where);
  assert.equal(r.headers['content-type'], 'application/json', where);
  if (type) assert.equal(j.error.type, type, where);
  return j.error.message;
}

const generic = ['model', 'prompt', 'mode', 'ids', 'notifyHook', 'taskId', 'req_key', 'tags', 'base64Array', 'customId', 'action', 'index',
  'state', 'messages', 'stream', 'n', 'size', 'seconds', 'duration', 'image', 'images', 'contents', 'model_name', 'metadata', 'content'];
const apiSchema = (file: string) => JSON.parse(readFileSync(join(projectRoot, 'schemas', 'api', file), 'utf8'));
/** Property names of a schema, following `allOf` and `$ref`s into the other API schemas (`file.json#/definitions/X`). */
function propertiesOf(schema: any, file: string): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const [refFile, pointer] = typeof schema.$ref === 'string' ? schema.$ref.split('#') : [];
  const target = schema.$ref ? (pointer ?? '').split('/').filter(Boolean).reduce((o: any, k: string) => o?.[k], apiSchema(refFile || file)) : undefined;
  return [...Object.keys(schema.properties ?? {}), ...(schema.allOf ?? []).flatMap((s: unknown) => propertiesOf(s, file)), ...propertiesOf(target, refFile || file)];
}
/** The route's real field names (its body schema's properties) and the fields the vendor formats use. */
export function fieldsOf(r: RouteDef): string[] {
  return [...new Set([...(r.body_schema ? propertiesOf(apiSchema(r.body_schema), r.body_schema) : []), ...generic])];
}

/**
 * A well-formed value for each path parameter, so body fuzzing reaches the policy behind the route. Routes that share
 * a path are chosen by the model it names: the Gemini dialect's by a chat model, the image route by an image model.
 */
const plainParam: Record<string, string> = { id: 'task_doesnotexist', model: 'gemini-3-pro-image-preview', action: 'CreateAsset' };
const paramFor = (r: RouteDef, n: string) => (n === 'model' && isGemini(r) ? 'gemini-2.5-flash' : plainParam[n]);
export const pathWith = (r: RouteDef, param?: string) => r.path.replace(/\{(\w+)\}/g, (_m, n: string) => param ?? paramFor(r, n) ?? 'x');

const ascii = (maxLength: number) => fc.string({ unit: 'grapheme-ascii', maxLength });
const odd = fc.constantFrom(null, true, false, -1, 0, -0, 1e308, 2 ** 53 + 1, 1.5, '', ' ', [], {}, [null], { '': '' }, 'data:image/png;base64,!!',
  'asset://nope', 'http://127.0.0.1:1/hook', '../../etc/passwd', '\u0000', '\ud800', 'NaN', '1e999', 'RELAX', 'FAST', '16:9', '4k', '5', 'true');
const huge = fc.integer({ min: 20_000, max: 200_000 }).map((n) => 'ab '.repeat(n));
const wrongValue = fc.oneof({ weight: 4, arbitrary: odd }, { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: fc.constantFrom(...models) }, { weight: 1, arbitrary: huge });
export const json = (v: unknown) => Buffer.from(JSON.stringify(v) ?? 'null');
export const jsonHeaders = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra });

/** Arbitrary JSON values (any type at the top level) as the body. */
export const anyJson = (r: RouteDef, key: string) => fc.jsonValue().map((v): Hostile => ({ method: r.method, path: pathWith(r), headers: jsonHeaders(key), body: json(v) }));

/** The route's real field names with wrong types, odd values and huge strings, often over a real model and prompt. */
export const mixedFields = (r: RouteDef, key: string) => fc.tuple(
  fc.option(fc.record({ model: fc.constantFrom(...models), prompt: fc.constant('a fox'), messages: fc.constant([{ role: 'user', content: 'hi' }]) })),
  fc.dictionary(fc.constantFrom(...fieldsOf(r)), wrongValue, { maxKeys: 6 }),
).map(([base, fields]): Hostile => ({ method: r.method, path: pathWith(r), headers: jsonHeaders(key), body: json({ ...base, ...fields }) }));

/**
 * Nesting beyond the route's max_json_depth, bare or inside a real field. A passthrough route sends the body to the
 * vendor as is; the simulator's request log recurses into bodies over 64 KB, so those stay small to keep it healthy.
 */
export const deepNesting = (r: RouteDef, key: string) => fc.record({
  depth: fc.integer({ min: maxDepth(r) + 1, max: r.policy === 'passthrough' ? 2000 : 20_000 }), open: fc.constantFrom('[', '{"a":'), inField: fc.constantFrom(...fieldsOf(r)), wrap: fc.boolean(),
}).map(({ depth, open, inField, wrap }): Hostile => {
  const nest = `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`;
  return { method: r.method, path: pathWith(r), headers: jsonHeaders(key), body: Buffer.from(wrap ? `{"model":"gpt-4o-mini","${inField}":${nest}}` : nest) };
});

/** Random bytes, and invalid UTF-8 sequences inside the JSON strings of real fields. */
export const invalidUtf8 = (r: RouteDef, key: string) => fc.oneof(
  fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)),
  fc.tuple(fc.constantFrom(...fieldsOf(r)), fc.uint8Array({ minLength: 1, maxLength: 64 }))
    .map(([f, b]) => Buffer.concat([Buffer.from(`{"model":"gpt-4o-mini","${f}":"`), Buffer.from(b.map((x) => x | 0x80)), Buffer.from('"}')])),
).map((body): Hostile => ({ method: r.method, path: pathWith(r), headers: jsonHeaders(key), body }));

const contentTypes = fc.oneof(fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data',
  'multipart/form-data; boundary=', 'multipart/form-data; boundary=zz', 'multipart/mixed; boundary=zz', 'application/json; charset=utf-16',
  'application/octet-stream', '*/*', ''), ascii(60));
const multipartBody = fc.tuple(fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 }), fc.boolean()), { maxLength: 5 }),
  fc.uint8Array({ maxLength: 200 }), fc.boolean()).map(([parts, junk, close]) => Buffer.concat([
  ...parts.map(([name, value, file]) => Buffer.from(`--zz\r\nContent-Disposition: form-data; name="${name}"${file ? '; filename="a.png"\r\nContent-Type: image/png' : ''}\r\n\r\n${value}\r\n`)),
  close ? Buffer.from('--zz--\r\n') : Buffer.from(junk),
]));
/** Wrong content types (multipart garbage included) over JSON, multipart and random bodies. */
export const wrongContentType = (r: RouteDef, key: string) => fc.tuple(contentTypes, fc.oneof(multipartBody, fc.jsonValue().map(json), fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b))))
  .map(([type, body]): Hostile => ({ method: r.method, path: pathWith(r), headers: { authorization: `Bearer ${key}`, 'content-type': type }, body }));

/** Authorization exactly as the gateway accepts it: `Bearer <key>`, any case, any whitespace. */
export const validAuth = (key: string, v: string | undefined) => v !== undefined && new RegExp(`^Bearer\\s+${key}\\s*$`, 'i').test(v.trim());
const authVariants = (key: string) => fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(`Bearer ${key}`, `bearer ${key}`, `BEARER \t${key}  `) },
  { weight: 5, arbitrary: fc.oneof(fc.constantFrom(undefined, '', 'Bearer', 'Bearer ', `Bearer ${key}x`, `Bearer ${key.slice(0, -1)}`, `Bearer ${key} ${key}`,
    `Basic ${Buffer.from(`u:${key}`).toString('base64')}`, `Token ${key}`, key, 'Bearer sim-key', `Bearer ${'a'.repeat(8000)}`),
  ascii(300), ascii(300).map((s) => `Bearer ${s}`)) },
);
const extraHeaders = fc.dictionary(fc.constantFrom('accept', 'accept-encoding', 'range', 'x-forwarded-for', 'x-request-id', 'cookie', 'x-api-key',
  'mj-api-secret', 'x-goog-api-key', 'origin', 'if-none-match', 'x-dashscope-async', 'content-encoding'), ascii(200), { maxKeys: 4 });
/** Random Authorization variants and other header values over a plausible body. */
export const headerVariants = (r: RouteDef, key: string) => fc.tuple(authVariants(key), extraHeaders, fc.option(fc.jsonValue({ maxDepth: 2 })))
  .map(([auth, extra, body]): Hostile => ({
    method: r.method, path: pathWith(r), body: body === null ? undefined : json(body),
    headers: { ...extra, 'content-type': 'application/json', ...(auth === undefined ? {} : { authorization: auth }) },
  }));

const rawParamChars = fc.constantFrom(...'%:;@!$&\'()*+,=~._-aZ09\u00e9\u00ff'.split(''));
const oddParam = fc.oneof(fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%2F', '..', '%2e%2e', '%C0%AF', '%FF', '%u0041', 'task_', ':generateContent', '%3A', 'a'.repeat(3000)),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map(encodeURIComponent), fc.string({ unit: rawParamChars, minLength: 1, maxLength: 30 }));
/** Odd characters in path parameters (and wrong methods), with a valid key and a plausible body. */
export const oddPath = (r: RouteDef, key: string) => fc.tuple(oddParam, fc.constantFrom(r.method, r.method, 'PUT', 'DELETE', 'PATCH'), fc.option(ascii(80)))
  .map(([param, method, query]): Hostile => ({
    method, path: `${pathWith(r, param)}${query === null ? '' : `?${encodeURI(query)}`}`, headers: jsonHeaders(key),
    body: method === 'GET' ? undefined : json({ model: 'gpt-4o-mini', prompt: 'x' }),
  }));

/** Counterexamples print as one readable line (method, path, headers, body preview) instead of raw bytes. */
const printable = (k: (r: RouteDef, key: string) => fc.Arbitrary<Hostile>) => (r: RouteDef, key: string) =>
  k(r, key).map((h) => Object.assign(h, { [fc.toStringMethod]: () => describe(h) }));
export const kinds = {
  anyJson: printable(anyJson), mixedFields: printable(mixedFields), deepNesting: printable(deepNesting), invalidUtf8: printable(invalidUtf8),
  wrongContentType: printable(wrongContentType), headerVariants: printable(headerVariants), oddPath: printable(oddPath),
};

const agent = new Agent({ keepAlive: true, maxSockets: 32 });
/** One request with the exact bytes, method and path given (fetch would normalise the path); bounded in time. */
export function send(base: string, h: Hostile, timeoutMs = 15_000): Promise<Reply> {
  const u = new URL(base);
  const headers = { ...h.headers, ...(h.body ? { 'content-length': String(h.body.length) } : {}) };
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method: h.method, path: h.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no complete answer within ${timeoutMs} ms: ${h.method} ${h.path}`)));
    req.on('error', reject);
    req.end(h.body);
  });
}

// Only the body's head is decoded (640 bytes hold at least 160 characters): the 413 cases send 10 MB bodies, and
// every assertion builds its message.
export const describe = (h: Hostile, r?: Reply) =>
  `${h.method} ${h.path.slice(0, 120)} ${JSON.stringify(h.headers).slice(0, 200)} body(${h.body?.length ?? 0})=${JSON.stringify(h.body?.subarray(0, 640).toString('utf8').slice(0, 160))}` +
  (r ? ` → ${r.status} ${r.text.slice(0, 300)}` : '');

/** Shape A exactly: `{error:{message,type,param:'',code}}`, the message ending with the request id of the header. */
export function assertShapeA(r: Reply, where: string, code?: string): void {
  const j = JSON.parse(r.text);
  assert.deepEqual(Object.keys(j), ['error'], where);
  assert.deepEqual(Object.keys(j.error).sort(), ['code', 'message', 'param', 'type'], where);
  assert.equal(j.error.param, '', where);
  assert.ok(typeof j.error.code === 'string' && j.error.code !== '' && typeof j.error.type === 'string' && j.error.type !== '', where);
  assert.ok(typeof j.error.message === 'string' && j.error.message.endsWith(`(request id: ${r.headers['x-request-id']})`), where);
  assert.equal(r.headers['content-type'], 'application/json', where);
  if (code) assert.equal(j.error.code, code, where);
}

/**
 * A refusal by the gateway itself with `code`, in the route family's shape: Shape A, or the image-art family's
 * `{code: 4|30, description}` and the music wrapper's `{code, message, data: null}` (their routes' `error_answer`), or
 * Anthropic's on the Messages routes (its dialect's `error`). Returns the message.
 */
export function assertRefusal(route: RouteDef, r: Reply, where: string, code: string): string {
  const j = JSON.parse(r.text);
  if (isArt(route)) {
    assert.deepEqual(Object.keys(j).sort(), ['code', 'description', 'properties', 'result'], where);
    assert.equal(j.code, code === 'too_many_requests' ? 30 : 4, where);
    return j.description;
  }
  if (isMusic(route)) {
    assert.deepEqual(Object.keys(j).sort(), ['code', 'data', 'message'], where);
    assert.equal(j.code, code, where);
    return j.message;
  }
  if (isMessages(route)) return assertMessagesError(r, where, messagesType[code] ?? assert.fail(`no Messages error type for ${code}`));
  if (isGemini(route)) return assertGeminiError(r, where, geminiStatus[code] ?? assert.fail(`no Gemini status for ${code}`));
  assertShapeA(r, where, code);
  return j.error.message;
}

/**
 * The properties every hostile request must keep: no 5xx, no key in the answer, a request id, and a 4xx body in the
 * contract's shape — Shape A, Shape B only for a saturated `saturated_shape: B` route, or the vendor's own format on
 * the routes that relay it (image-art and music submits, passthrough routes) or speak its dialect (Messages).
 */
export function assertContract(route: RouteDef, h: Hostile, r: Reply, secrets: string[]): void {
  const where = `[${route.id}] ${describe(h, r)}`;
  assert.ok(r.status >= 200 && r.status < 500, `server error for a client fault: ${where}`);
  const whole = `${r.text}\n${JSON.stringify(r.headers)}`;
  for (const s of secrets) assert.ok(!whole.includes(s), `the answer contains a key (${s.slice(0, 6)}…): ${where}`);
  assert.match(String(r.headers['x-request-id']), /^req_[0-9a-z]+$/, where);
  if (r.status < 400) return;
  let j: any;
  try { j = JSON.parse(r.text); } catch { assert.fail(`4xx body is not JSON: ${where}`); }
  assert.ok(j && typeof j === 'object' && !Array.isArray(j), `4xx body is not an object: ${where}`);
  const keys = Object.keys(j).sort().join(',');
  // A wrong method, or a path no route matches, answers in Shape A: there is no route to give its own.
  if (keys === 'error') return googleShaped(route, h, j) ? void assertGeminiError(r, where) : assertShapeA(r, where);
  if (r.status === 429 && route.task?.saturated_shape === 'B' && keys === 'code,data,message') {
    assert.equal(j.code, 'too_many_requests', where);
    assert.equal(j.data, null, where);
    return;
  }
  if (isArt(route) && keys === 'code,description,properties,result') return assert.equal(typeof j.code, 'number', where);
  if (isMusic(route) && keys === 'code,data,message') return assert.equal(j.data, null, where);
  if (isMessages(route) && keys === 'error,type') return void assertMessagesError(r, where);
  if (route.policy === 'passthrough' && ('ResponseMetadata' in j || keys === 'code,data,message,request_id,status,time_elapsed')) return;
  assert.fail(`4xx body in no contract shape: ${where}`);
}
