// A vendor that echoes the credential it was sent, in every error field, task failure, pass-through body and
// message: not one occurrence may reach a client answer, a stream, a callback or a log line.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, type Stack } from './helpers/stack.js';
import { call, fastTasks } from './helpers/video.js';
import { Redactor } from '../src/redaction/redactor.js';
import { createLogging } from '../src/log.js';

let stack: Stack;
let key: string;
let hook: Server;
let hookUrl = '';
const hooks: string[] = [];
const answers: { what: string; text: string }[] = [];

before(async () => {
  stack = await startStack();
  fastTasks(stack);
  stack.sim.control.setEchoCredential(true);
  stack.gw.gateway.runtime.callbacks.allow_private_networks = true;
  ({ key } = await stack.token({ quota: 10_000_000 }));
  hook = createServer((req, res) => { let b = ''; req.on('data', (c) => { b += c; }); req.on('end', () => { hooks.push(b); res.end('ok'); }); });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
});
after(async () => { hook.close(); await stack.close(); });

// What the channels present to the simulator: plain keys, Volcengine access keys, and the JWTs minted from Kling's pair.
const secrets = ['sim-key', 'sim-ak', 'sim-sk'];
const jwtHeader = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9';
const leaks = (text: string) => [...secrets, jwtHeader].filter((s) => text.includes(s));

async function ask(what: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await call(stack, key, method, path, body);
  answers.push({ what, text: `${r.text}\n${JSON.stringify([...r.headers])}` });
  return r;
}

async function settled(path: string, done: (j: any) => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await ask(`poll ${path}`, 'GET', path);
    if (done(r.json)) return;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`${path} did not settle`);
}

test('every kind of answer that carries vendor words, with the vendor echoing its key', { timeout: 60_000 }, async () => {
  const chat = (content: string, extra = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra });
  await ask('chat: vendor 400 (message, code, type)', 'POST', '/v1/chat/completions', chat('x [sim status=400]'));
  await ask('chat: vendor 401', 'POST', '/v1/chat/completions', chat('x [sim status=401]'));
  await ask('chat: stream with a vendor error event', 'POST', '/v1/chat/completions', chat('x [sim error_after=2]', { stream: true }));
  await ask('video: submit refused by the vendor', 'POST', '/v1/video/generations', { model: 'sora-2', prompt: 'x [sim submit_status=400]' });
  await ask('vendork: submit refused (the JWT echoed)', 'POST', '/vendork/v1/videos/text2video', { model_name: 'kling-v2-master', prompt: 'x [sim submit_status=400]' });
  await ask('vendork: business error → task_failed', 'POST', '/v1/video/generations', { model: 'kling-v2-master', prompt: 'x [sim business_error=1]' });
  const failed = await ask('video: submit of a task that will fail', 'POST', '/v1/video/generations', { model: 'sora-2', prompt: 'x [sim fail=1 polls=0]' });
  await settled(`/v1/videos/${failed.json.id}`, (j) => j?.status === 'failed');
  const kfail = await ask('vendork: task that will fail', 'POST', '/vendork/v1/videos/text2video', { model_name: 'kling-v2-master', prompt: 'x [sim fail=1 polls=0]' });
  await settled(`/vendork/v1/videos/text2video/${kfail.json.data.task_id}`, (j) => j?.data?.task_status === 'failed');
  await ask('asset pass-through body (2xx with the echo)', 'POST', '/v1/vendors/asset/CreateAssetGroup', { Name: 'g' });
  await ask('asset pass-through error', 'POST', '/v1/vendors/asset/NoSuchAction', { Name: 'g' });
  await ask('art: code 24 relayed in its own shape', 'POST', '/art/submit/imagine', { prompt: 'x [sim mj_code=24]' });
  const art = await ask('art: task that will fail, with a callback', 'POST', '/art/submit/imagine', { prompt: 'x [sim fail=1 polls=0]', notifyHook: hookUrl });
  await settled(`/art/task/${art.json.result}/fetch`, (j) => j?.status === 'FAILURE');
  const ok = await ask('art: task that succeeds', 'POST', '/art/submit/imagine', { prompt: 'y [sim polls=0]' });
  await settled(`/art/task/${ok.json.result}/fetch`, (j) => j?.status === 'SUCCESS');
  await ask('art: image seed relayed from the vendor', 'GET', `/art/task/${ok.json.result}/image-seed`);
  const music = await ask('music: task that will fail', 'POST', '/music/submit/music', { prompt: 'x [sim fail=1 polls=0]' });
  await settled(`/music/fetch/${music.json.data}`, (j) => j?.data?.status === 'FAILURE');
  await ask('images: vendor refusal', 'POST', '/v1/images/generations', { model: 'dall-e-3', prompt: 'x', size: '7x7' });
  await ask('gemini: vendor refusal', 'POST', '/v1beta/models/gemini-2.5-flash-image:generateContent', { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { imageConfig: { imageSize: '9K' } } });
  await ask('visual API pass-through error (the AK echoed)', 'POST', '/art-official?Action=CVSync2AsyncSubmitTask&Version=2022-08-31', { req_key: 'jimeng_t2i_v40' });
  for (let i = 0; i < 100 && !hooks.some((h) => h.includes('FAILURE')); i++) await new Promise((res) => setTimeout(res, 20));

  const leaked = answers.filter((a) => leaks(a.text).length);
  const masked = answers.filter((a) => a.text.includes('*'.repeat(7)));
  const logLines = stack.rawLogs().split('\n');
  console.log(`secret echo: ${answers.length} answers, ${masked.length} carried a masked echo, ${leaked.length} leaked; ` +
    `${hooks.length} callbacks, ${hooks.filter((h) => leaks(h).length).length} leaked; ${logLines.length} log lines, ${logLines.filter((l) => leaks(l).length).length} leaked`);
  assert.deepEqual(leaked.map((a) => `${a.what}: ${leaks(a.text)}`), []);
  assert.ok(masked.length >= 12, `the vendor did echo, and the gateway masked it (${masked.map((a) => a.what).join('; ')})`);
  assert.ok(hooks.some((h) => h.includes('FAILURE')), 'the failure callback arrived');
  assert.deepEqual(hooks.filter((h) => leaks(h).length), []);
  assert.deepEqual(logLines.filter((l) => leaks(l).length), []);
});

test('a log line carrying a secret is masked on its way out, whatever wrote it', () => {
  const lines: string[] = [];
  const redactor = new Redactor();
  redactor.setSecrets(['sk-live-0123456789']);
  const logging = createLogging(redactor, { write: (l) => lines.push(l) }, 'info');
  logging.log.warn({ err: 'vendor said: bad key sk-live-0123456789' }, 'upstream refused sk-live-0123456789');
  logging.write('{"msg":"access","code":"sk-live-0123456789"}\n');
  assert.equal(lines.length, 2);
  for (const l of lines) {
    assert.ok(!l.includes('sk-live'), l);
    assert.ok(l.includes('*'.repeat(18)), l);
  }
});

test('a streamed body split inside a secret is still masked, and its length is unchanged', async () => {
  const { RedactingResponse } = await import('../src/redaction/redacting-response.js');
  const redactor = new Redactor();
  redactor.setSecrets(['sim-key-abcdef']);
  const srv = createServer({ ServerResponse: RedactingResponse }, (_req, res) => {
    (res as InstanceType<typeof RedactingResponse>).redactor = redactor;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 33 });
    res.write(Buffer.from('{"k":"sim-ke'));
    setTimeout(() => { res.write('y-abcdef","x"'); res.end(Buffer.from(':"sim-"}')); }, 20);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const text = await (await fetch(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/`)).text();
  srv.close();
  assert.equal(text, '{"k":"**************","x":"sim-"}');
});
