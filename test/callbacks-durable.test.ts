// A callback the client's endpoint refused is retried from the store: a gateway restart does not lose it.
import { test } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, eventually } from './helpers/stack.js';
import { quickTaskConfig } from './helpers/child-gateway.js';
import { call, waitFinal } from './helpers/video.js';

test('a pending notifyHook delivery survives a restart and is delivered by the next gateway', { timeout: 30_000 }, async () => {
  let up = false;
  const got: string[] = [];
  const hook = createServer((req, res) => {
    let b = '';
    req.on('data', (c) => { b += c; });
    req.on('end', () => { if (up) got.push(b); res.writeHead(up ? 200 : 503).end(); });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  const stack = await startStack({ configDir: quickTaskConfig({}, [[['callbacks', 'allow_private_networks'], true]]) });
  try {
    const { key } = await stack.token();
    const r = await call(stack, key, 'POST', '/art/submit/imagine', { prompt: 'later [sim polls=0]', notifyHook: url });
    await waitFinal(stack, key, `/art/task/${r.json.result}/fetch`, (j) => j?.status === 'SUCCESS');
    const queue = stack.gw.store.jobs('callbacks');
    await eventually(async () => (await queue.count()) === 1 && got.length === 0);
    await stack.restartGateway(); // the refused delivery's retry is due in a second: the old gateway never makes it
    up = true;
    await eventually(() => got.some((b) => b.includes(r.json.result) && b.includes('SUCCESS')), 10_000);
    await eventually(async () => (await stack.gw.store.jobs('callbacks').count()) === 0);
  } finally {
    await stack.close();
    hook.close();
  }
});
