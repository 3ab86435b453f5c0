// A browser (Debian's chromium) opening a realtime session the way a web app does: its server mints a client secret
// with the token, the page gets only the secret and opens the WebSocket with the `openai-insecure-api-key.` subprotocol
// (a browser's WebSocket cannot set headers), then speaks a turn. The long-lived key never reaches the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { browserSkip, launchChromium } from './helpers/browser.js';
import { startStack, eventually, type Stack } from './helpers/stack.js';

const skip = browserSkip('the realtime browser test');
let stack: Stack;
let browser: Browser | undefined;
before(async () => {
  stack = await startStack();
  if (!skip) browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await stack?.close();
});

/** Runs in the page: opens the session with the secret, sends one text turn, returns the event types and the audio's size. */
async function pageSession(args: { url: string; secret: string }): Promise<{ protocol: string; types: string[]; audioBytes: number; closeCode: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(args.url, ['realtime', `openai-insecure-api-key.${args.secret}`]);
    const types: string[] = [];
    let audioBytes = 0;
    ws.onerror = () => reject(new Error('websocket error'));
    ws.onmessage = (m) => {
      const e = JSON.parse(m.data);
      types.push(e.type);
      if (e.type === 'session.created') {
        ws.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello from the browser' }] } }));
        ws.send(JSON.stringify({ type: 'response.create' }));
      }
      if (e.type === 'response.output_audio.delta') audioBytes += atob(e.delta).length;
      if (e.type === 'response.done') ws.close(1000);
    };
    ws.onclose = (c) => resolve({ protocol: ws.protocol, types, audioBytes, closeCode: c.code });
  });
}

test('chromium opens a realtime session with a minted client secret and hears an answer', { skip }, async () => {
  const { key, id } = await stack.token({ quota: 1_000_000 });
  // The web app's server side: mint a short-lived secret for this token.
  const minted = await fetch(`${stack.url}/v1/realtime/client_secrets`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ expires_after: { anchor: 'created_at', seconds: 60 }, session: { type: 'realtime', model: 'gpt-realtime-2.1-mini' } }),
  });
  assert.equal(minted.status, 200);
  const { value } = await minted.json();

  const page = await browser!.newPage();
  try {
    await page.goto(`${stack.url}/healthz`);
    const wsUrl = `${stack.url.replace(/^http/, 'ws')}/v1/realtime?model=gpt-realtime-2.1-mini`;
    const r = await page.evaluate(pageSession, { url: wsUrl, secret: value });
    assert.equal(r.protocol, 'realtime', 'the gateway answered the realtime subprotocol, not the one with the secret');
    assert.equal(r.types[0], 'session.created');
    assert.ok(r.types.includes('response.output_audio.delta'));
    assert.ok(r.audioBytes > 0);
    assert.equal(r.types.at(-1) === 'response.done' || r.types.includes('response.done'), true);
    assert.equal(r.closeCode, 1000);
  } finally {
    await page.close();
  }
  let rec: Record<string, any> | undefined;
  await eventually(() => { rec = stack.logs().find((l) => l.msg === 'request' && l.route === 'realtime' && l.token_id === id); return rec !== undefined; });
  assert.equal(rec!.model, 'gpt-realtime-2.1-mini');
  assert.ok(rec!.charged >= 1);
  assert.equal(await stack.balance(id), 1_000_000 - rec!.charged);
  assert.ok(!stack.rawLogs().includes(value), 'the secret is never logged');
  assert.equal(stack.sim.control.realtimeSessions().at(-1)!.key, 'sim-key');
});
