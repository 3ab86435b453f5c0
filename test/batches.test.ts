// Files and batches through the official openai client, against the simulator's Files and Batch APIs: a real JSONL
// uploaded, a batch created, retrieved, listed and cancelled, its output read; ownership; every line checked before
// anything is reserved; a gateway restart mid-batch; and the charge, which must be the vendor's batch price for the
// usage the output file reports (computed here from OpenAI's published prices, never from vendors/*.yaml).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import { startStack, type Stack } from './helpers/stack.js';
import { fastTasks, ledgerKinds } from './helpers/video.js';
import { client } from './helpers/api.js';
import { billUnits, chatLine, fileLines, holdPolls, jsonl, upload, waitBatch } from './helpers/batches.js';
import { simBatches } from '../simulator/server.js';
import { redisSkip, startRedis } from './helpers/redis.js';

let stack: Stack;
before(async () => { stack = await startStack(); fastTasks(stack); });
after(async () => { await stack.close(); });

const sol = 'gpt-6.2-sol';
const limit = { max_completion_tokens: 60_000 };
/** Three requests whose answers report known usage: cached prompt tokens, reasoning, a small one. */
const solLines = (tag: string) => [
  chatLine(`${tag}-1`, sol, { prompt_tokens: 120_000, completion_tokens: 8_000, prompt_tokens_details: { cached_tokens: 20_000 } }, limit),
  chatLine(`${tag}-2`, sol, { prompt_tokens: 50_000, completion_tokens: 30_000, completion_tokens_details: { reasoning_tokens: 10_000 } }, limit),
  chatLine(`${tag}-3`, sol, { prompt_tokens: 1_000, completion_tokens: 500 }, limit),
];
const vendorCalls = (method: string, prefix: string) => stack.sim.control.requests().filter((r) => r.method === method && r.path.startsWith(prefix));
const notFound = (code: string) => (e: unknown) => e instanceof OpenAI.NotFoundError && (e.error as { code?: string }).code === code;
const badRequest = (...parts: (string | RegExp)[]) => (e: unknown) => {
  if (!(e instanceof OpenAI.BadRequestError)) return false;
  const message = (e.error as { message?: string }).message ?? '';
  for (const p of parts) assert.match(message, typeof p === 'string' ? new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : p);
  return true;
};

test('files.create, batches.create/retrieve/list, files.content: the charge is the vendor\'s batch price for the output\'s usage', async () => {
  fastTasks(stack);
  const { key, id: account } = await stack.token({ quota: 1_000_000 });
  const ai = client(stack, key);
  const text = jsonl(solLines('main'));
  const input = await upload(ai, text, 'requests.jsonl');
  assert.equal(input.object, 'file');
  assert.equal(input.purpose, 'batch');
  assert.equal(input.bytes, Buffer.byteLength(text));
  assert.equal(input.filename, 'requests.jsonl');
  assert.equal(input.status, 'processed');
  assert.match(input.id, /^file-[A-Za-z0-9]{24}$/);
  assert.ok(input.expires_at! - input.created_at === 30 * 86_400, 'a batch file is kept 30 days by default, as OpenAI keeps it');
  assert.deepEqual(await ai.files.retrieve(input.id), input);
  assert.equal(await (await ai.files.content(input.id)).text(), text, 'the input reads back byte for byte (from the vendor)');
  const vendorFile = vendorCalls('POST', '/v1/files');
  assert.equal(vendorFile.length, 1, 'the bytes were stored at the vendor');

  const start = (await stack.balance(account))!;
  const created = await ai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { job: 'nightly', sim: '[sim polls=3]' } });
  assert.equal(created.object, 'batch');
  assert.equal(created.input_file_id, input.id, 'the gateway\'s file id, never the vendor\'s');
  assert.equal(created.endpoint, '/v1/chat/completions');
  assert.equal(created.model, sol);
  assert.equal(created.status, 'validating');
  assert.deepEqual(created.metadata, { job: 'nightly', sim: '[sim polls=3]' });
  const reserved = start - (await stack.balance(account))!;
  const sent = simBatches(stack.sim.control).at(-1)!;
  assert.notEqual(sent.input_file_id, input.id, 'the vendor got its own file id');
  assert.equal(sent.input_file_id, (await stack.gw.gateway.files.get(input.id))!.upstream_id);

  const done = await waitBatch(ai, created.id);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.deepEqual(done.request_counts, { total: 3, completed: 3, failed: 0 });
  assert.equal(done.error_file_id, null);
  assert.ok(done.completed_at && done.in_progress_at && done.finalizing_at);
  const output = await fileLines(ai, done.output_file_id!);
  assert.deepEqual(output.map((l) => l.custom_id), ['main-1', 'main-2', 'main-3']);
  assert.ok(output.every((l) => l.response.status_code === 200 && l.error === null && l.response.body.object === 'chat.completion'));
  const outFile = await ai.files.retrieve(done.output_file_id!);
  assert.equal(outFile.purpose, 'batch_output');
  assert.equal(outFile.bytes, Buffer.byteLength(await (await ai.files.content(done.output_file_id!)).text()));

  // OpenAI's batch price for what the output reports: (100,000 × $1 + 20,000 × $0.05 + 8,000 × $5) + (50,000 × $1 +
  // 30,000 × $5) + (1,000 × $1 + 500 × $5) per million = $0.3445 → 345 units.
  const bill = billUnits(sol, output);
  assert.equal(bill, 345);
  assert.ok(reserved >= bill, `reserved ${reserved} before it ran`);
  assert.equal(start - (await stack.balance(account))!, bill, 'charged exactly the batch price of the output\'s usage');
  assert.deepEqual(await ledgerKinds(stack, account, created.id), [`reserve:${reserved}`, `settle:${bill - reserved}`]);

  const listed = await ai.batches.list();
  assert.deepEqual(listed.data.map((b) => b.id), [created.id]);
  assert.equal(listed.data[0].status, 'completed');
  const files = (await ai.files.list()).data;
  assert.deepEqual(files.map((f) => f.id).sort(), [input.id, done.output_file_id].sort());
  assert.deepEqual((await ai.files.list({ purpose: 'batch' })).data.map((f) => f.id), [input.id]);
  const first = await ai.files.list({ limit: 1, order: 'asc' });
  assert.deepEqual(first.data.map((f) => f.id), [input.id]);
  assert.equal(first.has_more, true);
});

test('an embeddings batch and a Responses batch are charged from their own usage shapes', async () => {
  fastTasks(stack);
  const { key, id: account } = await stack.token();
  const ai = client(stack, key);
  const emb = jsonl([1, 2, 3].map((i) => ({ custom_id: `e${i}`, method: 'POST', url: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: ['alpha beta gamma '.repeat(i * 40)] } })));
  const resp = jsonl([1, 2].map((i) => ({ custom_id: `r${i}`, method: 'POST', url: '/v1/responses', body: { model: 'gpt-4o-mini', input: `hello [sim chunks=${i * 50}]`, max_output_tokens: 1000 } })));
  for (const [text, endpoint, model] of [[emb, '/v1/embeddings', 'text-embedding-3-small'], [resp, '/v1/responses', 'gpt-4o-mini']] as const) {
    const start = (await stack.balance(account))!;
    const b = await ai.batches.create({ input_file_id: (await upload(ai, text)).id, endpoint, completion_window: '24h' });
    const done = await waitBatch(ai, b.id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const out = await fileLines(ai, done.output_file_id!);
    assert.ok(out.every((l) => l.response.body.usage), endpoint);
    const bill = billUnits(model, out);
    assert.equal(start - (await stack.balance(account))!, bill, endpoint);
  }
});

test('each file and batch is its owner\'s: another token gets 404 everywhere, and cannot run the file', async () => {
  fastTasks(stack);
  const a = await stack.token();
  const b = await stack.token();
  const mine = client(stack, a.key);
  const theirs = client(stack, b.key);
  const input = await upload(mine, jsonl([chatLine('o-1', 'gpt-4o-mini', undefined, { max_tokens: 100 })]));
  const batch = await mine.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  await assert.rejects(theirs.files.retrieve(input.id), notFound('file_not_found'));
  await assert.rejects(theirs.files.content(input.id), notFound('file_not_found'));
  await assert.rejects(theirs.files.delete(input.id), notFound('file_not_found'));
  await assert.rejects(theirs.batches.retrieve(batch.id), notFound('task_not_found'));
  await assert.rejects(theirs.batches.cancel(batch.id), notFound('task_not_found'));
  const start = (await stack.balance(b.id))!;
  await assert.rejects(theirs.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' }), notFound('file_not_found'));
  assert.equal(await stack.balance(b.id), start, 'nothing reserved');
  assert.deepEqual((await theirs.files.list()).data, []);
  assert.deepEqual((await theirs.batches.list()).data, []);
  const done = await waitBatch(mine, batch.id);
  await assert.rejects(theirs.files.content(done.output_file_id!), notFound('file_not_found'));
  await assert.rejects(theirs.files.list({ after: input.id }), badRequest('`after`'));
});

test('a line of a model the token may not use is refused with 400 naming the line, before anything reaches a vendor or is reserved', async () => {
  const { key, id: account } = await stack.token({ models: ['gpt-4o-mini'] });
  const ai = client(stack, key);
  const stored = vendorCalls('POST', '/v1/files').length;
  const text = jsonl([chatLine('m-1', 'gpt-4o-mini', undefined), chatLine('m-2', 'gpt-4o', undefined)]);
  await assert.rejects(upload(ai, text), badRequest('Line 2', '`body.model`'));
  await assert.rejects(upload(ai, jsonl([chatLine('m-1', 'gpt-4o', undefined)])), badRequest('Line 1', 'This token has no access to model gpt-4o'));
  assert.equal(vendorCalls('POST', '/v1/files').length, stored, 'no file reached the vendor');

  // Allowed when uploaded, no longer when the batch is created: refused naming the line, nothing reserved or sent.
  const input = await upload(ai, jsonl([chatLine('m-1', 'gpt-4o-mini', undefined)]));
  await stack.gw.gateway.tokens.update(account, { models: ['gpt-4o'] });
  const start = (await stack.balance(account))!;
  const batches = simBatches(stack.sim.control).length;
  await assert.rejects(ai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    badRequest(`Line 1 of file ${input.id}`, 'no access to model gpt-4o-mini'));
  assert.equal(await stack.balance(account), start);
  assert.deepEqual(await stack.gw.store.quota.entries(account).then((e) => e.filter((x) => x.kind !== 'topup')), []);
  assert.equal(simBatches(stack.sim.control).length, batches, 'no batch reached the vendor');
});

test('a model whose vendor has no batch API is refused with 400 naming the line', async () => {
  const { key } = await stack.token();
  const ai = client(stack, key);
  const text = jsonl([chatLine('c-1', 'gpt-4o-mini', undefined), chatLine('c-2', 'gpt-4o-mini', undefined), chatLine('c-3', 'claude-sonnet-4-5', undefined)]);
  await assert.rejects(upload(ai, jsonl([chatLine('c-1', 'claude-sonnet-4-5', undefined, { max_tokens: 100 })])), badRequest('Line 1', 'claude-sonnet-4-5', 'no batch API'));
  await assert.rejects(upload(ai, text), badRequest('Line 3', '`body.model`'));
});

test('every line is checked as its endpoint checks a request; the first fault refuses the upload naming the line and field', async () => {
  const { key } = await stack.token();
  const ai = client(stack, key);
  const ok = (id: string, extra: Record<string, unknown> = {}) => chatLine(id, 'gpt-4o-mini', undefined, extra);
  const cases: [string, string, (string | RegExp)[]][] = [
    ['a repeated custom_id', jsonl([ok('x'), ok('x')]), ['Line 2', '`custom_id`', 'unique']],
    ['a GET', jsonl([{ ...ok('x'), method: 'GET' }]), ['Line 1', '`method`']],
    ['another url', jsonl([ok('x'), { ...ok('y'), url: '/v1/embeddings' }]), ['Line 2', '`url`', 'one endpoint']],
    ['an unknown url', jsonl([{ ...ok('x'), url: '/v1/images/generations' }]), ['Line 1', '`url` must be one of']],
    ['another model', jsonl([ok('x'), ok('y'), chatLine('z', 'gpt-4o', undefined)]), ['Line 3', '`body.model`', 'one model']],
    ['broken JSON', `${JSON.stringify(ok('x'))}\n{"custom_id": "y",\n`, ['Line 2', 'not valid JSON']],
    ['a blank line between', `${JSON.stringify(ok('x'))}\n\n${JSON.stringify(ok('y'))}\n`, ['Line 2 is empty']],
    ['a limit above the model\'s', jsonl([ok('x', { max_completion_tokens: 20_000 })]), ['Line 1', '`body.max_completion_tokens`', '16384']],
    ['a body its endpoint refuses', jsonl([{ ...ok('x'), body: { model: 'gpt-4o-mini' } }]), ['Line 1', '`body.messages` is required']],
    ['a priced option', jsonl([ok('x', { service_tier: 'priority' })]), ['Line 1', 'service_tier', 'batch']],
    ['an unknown model', jsonl([chatLine('x', 'no-such-model', undefined)]), ['Line 1', 'no-such-model']],
    ['a kept conversation continued', jsonl([{ custom_id: 'x', method: 'POST', url: '/v1/responses', body: { model: 'gpt-4o-mini', input: 'hi', previous_response_id: 'resp_1' } }]), ['Line 1', '`body.previous_response_id`', 'batch']],
    ['no lines', '', ['no requests']],
    ['a blank line', '\n', ['Line 1 is empty']],
  ];
  const stored = vendorCalls('POST', '/v1/files').length;
  for (const [what, text, expect] of cases) await assert.rejects(upload(ai, text), badRequest(...expect), what);
  assert.equal(vendorCalls('POST', '/v1/files').length, stored, 'no refused file reached the vendor');
  await assert.rejects(ai.files.create({ file: await toFile(Buffer.from(jsonl([ok('x')])), 'a.jsonl'), purpose: 'assistants' }), badRequest('`purpose`'));
  await assert.rejects(ai.files.create({ file: await toFile(Buffer.from(jsonl([ok('x')])), 'a.jsonl'), purpose: 'batch', expires_after: { anchor: 'created_at', seconds: 60 } }), badRequest('`expires_after[seconds]`'));
  const short = await ai.files.create({ file: await toFile(Buffer.from(jsonl([ok('x')])), 'a.jsonl'), purpose: 'batch', expires_after: { anchor: 'created_at', seconds: 7200 } });
  assert.equal(short.expires_at! - short.created_at, 7200);
});

test('a batch whose endpoint is not its lines\' url is refused naming the line; nothing reserved', async () => {
  const { key, id: account } = await stack.token();
  const ai = client(stack, key);
  const input = await upload(ai, jsonl([chatLine('u-1', 'gpt-4o-mini', undefined)]));
  const start = (await stack.balance(account))!;
  await assert.rejects(ai.batches.create({ input_file_id: input.id, endpoint: '/v1/embeddings', completion_window: '24h' }), badRequest('Line 1', '`url` /v1/chat/completions', '`endpoint`'));
  await assert.rejects(ai.batches.create({ input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' }), notFound('file_not_found'));
  assert.equal(await stack.balance(account), start);
});

test('a restart of the gateway mid-batch still finishes it, and charges it once', async () => {
  holdPolls(stack);
  const { key, id: account } = await stack.token();
  const ai = client(stack, key);
  const start = (await stack.balance(account))!;
  const input = await upload(ai, jsonl(solLines('restart')));
  const b = await ai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { sim: '[sim polls=6]' } });
  fastTasks(stack);
  for (let s = b.status; s !== 'in_progress'; s = (await ai.batches.retrieve(b.id)).status) await new Promise((r) => setTimeout(r, 20));
  holdPolls(stack); // the vendor runs it; this gateway goes away before it ends
  await stack.restartGateway();
  fastTasks(stack);
  const again = client(stack, key);
  const done = await waitBatch(again, b.id);
  assert.equal(done.status, 'completed');
  const bill = billUnits(sol, await fileLines(again, done.output_file_id!));
  assert.equal(bill, 345);
  await new Promise((r) => setTimeout(r, 300)); // more polls would find nothing to settle again
  assert.equal(start - (await stack.balance(account))!, bill);
  const kinds = await ledgerKinds(stack, account, b.id);
  assert.equal(kinds.length, 2, kinds.join(' '));
  assert.match(kinds[1], /^settle:/);
});

test('cancel: the vendor cancels, what ran is charged and the rest listed in the error file', async () => {
  holdPolls(stack);
  const { key, id: account } = await stack.token();
  const ai = client(stack, key);
  const start = (await stack.balance(account))!;
  const input = await upload(ai, jsonl(solLines('cancel')));
  const b = await ai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { sim: '[sim polls=50 done=1]' } });
  const cancelling = await ai.batches.cancel(b.id);
  assert.equal(cancelling.status, 'cancelling');
  assert.ok(cancelling.cancelling_at);
  assert.ok(start > (await stack.balance(account))!, 'still reserved while the vendor cancels');
  fastTasks(stack);
  const done = await waitBatch(ai, b.id);
  assert.equal(done.status, 'cancelled', JSON.stringify(done));
  assert.ok(done.cancelled_at);
  assert.deepEqual(done.request_counts, { total: 3, completed: 1, failed: 2 });
  const out = await fileLines(ai, done.output_file_id!);
  const errors = await fileLines(ai, done.error_file_id!);
  assert.deepEqual(out.map((l) => l.custom_id), ['cancel-1']);
  assert.deepEqual(errors.map((l) => [l.custom_id, l.error.code]), [['cancel-2', 'batch_cancelled'], ['cancel-3', 'batch_cancelled']]);
  const bill = billUnits(sol, out);
  assert.equal(bill, 141, 'the one request that ran: $0.141');
  assert.equal(start - (await stack.balance(account))!, bill);
  await assert.rejects(ai.batches.cancel(b.id), badRequest('already ended'));
});

test('an expired batch is charged for the requests it ran; a failed one is refunded whole', async () => {
  fastTasks(stack);
  const { key, id: account } = await stack.token();
  const ai = client(stack, key);
  let start = (await stack.balance(account))!;
  const expired = await waitBatch(ai, (await ai.batches.create({ input_file_id: (await upload(ai, jsonl(solLines('exp')))).id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { sim: '[sim expire=1 done=2]' } })).id);
  assert.equal(expired.status, 'expired');
  assert.ok(expired.expired_at);
  const bill = billUnits(sol, await fileLines(ai, expired.output_file_id!));
  assert.equal(bill, 341, 'the two requests that ran: $0.341');
  assert.equal(start - (await stack.balance(account))!, bill);
  assert.deepEqual((await fileLines(ai, expired.error_file_id!)).map((l) => l.error.code), ['batch_expired']);

  start = (await stack.balance(account))!;
  const b = await ai.batches.create({ input_file_id: (await upload(ai, jsonl(solLines('fail')))).id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { sim: '[sim fail=1]' } });
  const failed = await waitBatch(ai, b.id);
  assert.equal(failed.status, 'failed');
  assert.ok(failed.failed_at);
  assert.equal((failed.errors?.data ?? [])[0]?.line, 1);
  assert.equal(failed.output_file_id, null);
  assert.equal(await stack.balance(account), start, 'refunded');
  assert.deepEqual((await ledgerKinds(stack, account, b.id)).map((k) => k.split(':')[0]), ['reserve', 'refund']);
});

test('a request that fails inside a batch goes to the error file and is not charged', async () => {
  fastTasks(stack);
  const { key, id: account } = await stack.token();
  const ai = client(stack, key);
  const start = (await stack.balance(account))!;
  const lines = solLines('err');
  lines[1] = chatLine('err-2', sol, { prompt_tokens: 50_000, completion_tokens: 30_000 }, limit, 'fail me [sim status=400]');
  const done = await waitBatch(ai, (await ai.batches.create({ input_file_id: (await upload(ai, jsonl(lines))).id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id);
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.request_counts, { total: 3, completed: 2, failed: 1 });
  assert.deepEqual((await fileLines(ai, done.error_file_id!)).map((l) => [l.custom_id, l.response.status_code]), [['err-2', 400]]);
  const bill = billUnits(sol, await fileLines(ai, done.output_file_id!));
  assert.equal(bill, 145, '$0.141 + $0.0035');
  assert.equal(start - (await stack.balance(account))!, bill);
});

test('a deleted file is gone here and at the vendor', async () => {
  const { key } = await stack.token();
  const ai = client(stack, key);
  const input = await upload(ai, jsonl([chatLine('d-1', 'gpt-4o-mini', undefined)]));
  const vendorId = (await stack.gw.gateway.files.get(input.id))!.upstream_id;
  assert.deepEqual(await ai.files.delete(input.id), { id: input.id, object: 'file', deleted: true });
  assert.equal(vendorCalls('DELETE', `/v1/files/${vendorId}`).length, 1);
  await assert.rejects(ai.files.retrieve(input.id), notFound('file_not_found'));
  await assert.rejects(ai.files.delete(input.id), notFound('file_not_found'));
  assert.deepEqual((await ai.files.list()).data, []);
});

test('a file of more than 50,000 requests is refused', async () => {
  const { key } = await stack.token();
  const ai = client(stack, key);
  const line = JSON.stringify(chatLine('x', 'gpt-4o-mini', undefined));
  const text = Array.from({ length: 50_001 }, (_, i) => line.replace('"x"', `"x${i}"`)).join('\n');
  await assert.rejects(upload(ai, text), badRequest('more than 50000 requests', 'Line 50001'));
});

test('on a Redis store: a file listed and read back, a batch run and charged, records that expire with their file', { skip: redisSkip('the Redis batch test') }, async () => {
  const redis = await startRedis();
  const rstack = await startStack({ storeUri: `${redis.uri}/0` });
  try {
    fastTasks(rstack);
    const { key, id: account } = await rstack.token();
    const ai = client(rstack, key);
    const start = (await rstack.balance(account))!;
    const input = await upload(ai, jsonl(solLines('redis')));
    assert.deepEqual((await ai.files.list()).data.map((f) => f.id), [input.id]);
    const done = await waitBatch(ai, (await ai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id);
    assert.equal(done.status, 'completed');
    assert.equal(billUnits(sol, await fileLines(ai, done.output_file_id!)), 345);
    assert.equal(start - (await rstack.balance(account))!, 345);
    assert.deepEqual((await ai.batches.list()).data.map((b) => b.id), [done.id]);
    const ttl = await (await import('../src/store/redis-client.js')).connectRedis(`${redis.uri}/0`).then(async ({ client: c }) => {
      try { return await c.pTTL(`sy:kv:files::${input.id}`); } finally { await c.close(); }
    });
    assert.ok(ttl > 29 * 86_400_000 && ttl <= 30 * 86_400_000, `the record expires with the file (${ttl} ms)`);
  } finally {
    await rstack.close();
    await redis.stop();
  }
});
